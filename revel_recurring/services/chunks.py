"""The daily pass at scale: one transaction for a whole chunk of due series.

Per chunk, whatever its size: the series locks (one statement on PostgreSQL),
the rules, the templates with their taken slots and pending exdates, one bulk
INSERT of every occurrence, the host's ``clone_related_many`` and one UPDATE of
every cursor. Planning is :func:`~revel_recurring.services.generation.plan_generation`,
the same as for one series, so a rule behaves identically on both paths.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import connections, transaction

from ..models import EventSeries, RecurrenceRule, get_event_model
from ..notifications import send_series_digest, suppress_event_notifications
from .exdates import absorb_pending_exdates
from .generation import (
    apply_plan,
    build_occurrences,
    generate_series_events,
    park_series,
    plan_generation,
    read_taken_slots,
    write_cursors,
)
from .locking import lock_series_chunk
from .plumbing import now_utc
from .scheduling import generation_window

logger = logging.getLogger(__name__)

# PostgreSQL accepts at most 65,535 parameters in one statement.
_MAX_PARAMETERS = 60_000


@dataclass
class ChunkResult:
    """What one chunk did, counted in series (``created`` in occurrences).

    Every id handed in ends in exactly one of ``chunked`` (through the chunk
    transaction), ``retried`` (held by another transaction: generated on its own
    after the chunk, waiting for the lock), ``fallen_back`` (the chunk failed and
    rolled back: generated on its own) or ``failures`` (its own run failed too;
    the exception is kept for the caller, which may retry it).
    """

    series: int = 0
    chunked: int = 0
    retried: int = 0
    fallen_back: int = 0
    created: int = 0
    failures: dict[int, Exception] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The counts, with the failed ids (the Celery task's JSON result)."""
        return {
            "series": self.series,
            "chunked": self.chunked,
            "retried": self.retried,
            "fallen_back": self.fallen_back,
            "created": self.created,
            "failed": sorted(self.failures),
        }


def generate_series_chunk_events(
    series_ids: Iterable[int], *, now: dt.datetime | None = None
) -> ChunkResult:
    """Materialize the rolling window of many series, in one transaction where possible.

    For the daily pass: no ``until`` and no backfill. Series held by another
    transaction (PostgreSQL's ``SKIP LOCKED`` leaves them out) are generated one
    by one after the chunk commits, through :func:`generate_series_events`, which
    waits for the lock and re-reads the cursor, so nothing is done twice and
    nothing is lost. When anything in the chunk transaction fails, all of it
    rolls back and every series of the chunk goes the per-series way, so one
    broken series never blocks the others and never half-writes. One digest per
    series batch, after commit. A series that fails on its own is logged and
    reported in ``failures``; it never raises.
    """
    moment = now_utc(now)
    ids = sorted(set(series_ids))
    result = ChunkResult(series=len(ids))
    try:
        chunked, skipped, created = _generate_chunk(ids, moment)
    except Exception:
        logger.exception(
            "revel_recurring: the chunk of series %s..%s failed and was rolled back; "
            "generating its %s series one by one",
            ids[0] if ids else None,
            ids[-1] if ids else None,
            len(ids),
        )
        result.fallen_back = _one_by_one(ids, moment, result)
        return result
    result.chunked, result.created = chunked, created
    result.retried = _one_by_one(skipped, moment, result)
    return result


def _one_by_one(ids: Sequence[int], moment: dt.datetime, result: ChunkResult) -> int:
    done = 0
    for series_id in ids:
        try:
            result.created += len(generate_series_events(series_id, now=moment))
        except Exception as exc:
            logger.exception("revel_recurring could not generate series %s", series_id)
            result.failures[series_id] = exc
        else:
            done += 1
    return done


def _generate_chunk(ids: list[int], moment: dt.datetime) -> tuple[int, list[int], int]:
    """The chunk transaction: (series done in it, ids left to retry, occurrences created)."""
    with transaction.atomic(), suppress_event_notifications():
        locked, skipped = lock_series_chunk(ids)
        # Rules are read after the locks, never joined into the locking statement
        # (docs/locking.md: a joined row would be the one from before a lock wait).
        rule_ids = {s.recurrence_rule_id for s in locked if s.recurrence_rule_id is not None}
        rules = RecurrenceRule.objects.in_bulk(list(rule_ids))
        live = [s for s in locked if s.is_active and s.recurrence_rule_id in rules]
        for series in live:
            series.recurrence_rule = rules[series.recurrence_rule_id]
        # One lower bound for the whole chunk: every series' window starts at `now`
        # or later, so each gets a superset of its own taken slots, cut back below.
        taken = read_taken_slots([s.pk for s in live], moment)
        batches: list[tuple[EventSeries, Any, list[Any]]] = []
        for series in live:
            state = taken.get(series.pk)
            if state is None:
                absorb_pending_exdates(series)
                park_series(series)
                continue
            absorb_pending_exdates(series, pending=state.pending)
            rule = series.recurrence_rule
            assert rule is not None
            since = generation_window(series, rule, now=moment).search_from
            plan = plan_generation(
                series,
                rule,
                materialized={slot for slot in state.materialized if slot >= since},
                now=moment,
            )
            occurrences = build_occurrences(series, state.template, plan.slots)
            apply_plan(series, plan, created=len(occurrences))
            batches.append((series, state.template, occurrences))
        created = _insert(batches)
        write_cursors([series for series, _, _ in batches])
        for series, template, occurrences in batches:
            if occurrences:
                transaction.on_commit(
                    partial(send_series_digest, series, occurrences, template=template)
                )
    return len(locked), skipped, created


def _insert(batches: Sequence[tuple[EventSeries, Any, list[Any]]]) -> int:
    """One bulk INSERT of every occurrence of the chunk, then the host's related rows."""
    everything = [occurrence for _, _, occurrences in batches for occurrence in occurrences]
    if not everything:
        return 0
    model = get_event_model()
    manager = model._default_manager
    batch_size = None
    if connections[manager.db].vendor == "postgresql":
        batch_size = max(1, _MAX_PARAMETERS // len(model._meta.concrete_fields))
    # bulk_create sets the primary keys on the same objects (RETURNING), so the
    # per-series lists in `batches` now hold saved occurrences.
    manager.bulk_create(everything, batch_size=batch_size)
    model.clone_related_many([(template, occurrences) for _, template, occurrences in batches])
    return len(everything)


__all__ = ["ChunkResult", "generate_series_chunk_events"]
