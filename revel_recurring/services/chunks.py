"""The daily pass at scale: one transaction for a whole chunk of due series.

Per chunk, whatever its size: the series locks (one statement on PostgreSQL),
the rules, the templates with their taken slots and pending exdates, one bulk
INSERT of every occurrence (cut by ``REVEL_RECURRING_INSERT_BATCH_BYTES`` when the
rows are large), the host's ``clone_related_many`` and one UPDATE of every cursor.
Planning is :func:`~revel_recurring.services.generation.plan_generation`, the
same as for one series, so a rule behaves identically on both paths.

One series never takes the others down: a series whose planning fails (a
template too large for its window, a host hook that raises) is parked and left
out of the chunk's insert, in Python and without a savepoint (which would cost
two statements per series); a failure of the shared insert rolls the chunk back
and every series goes the per-series way, where the one that fails is parked.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import DatabaseError, transaction

from ..context import suppress_event_notifications
from ..models import EventSeries, RecurrenceRule, get_event_model
from ..notifications import send_series_digest
from .exdates import absorb_pending_exdates
from .generation import (
    TakenSlots,
    apply_plan,
    build_occurrences,
    bulk_insert,
    disarm_series,
    generate_series_events,
    plan_generation,
    read_taken_slots,
    write_cursors,
)
from .locking import lock_series_chunk
from .parking import clear_parking, park_failed_series
from .plumbing import now_utc
from .scheduling import generation_window

logger = logging.getLogger(__name__)


@dataclass
class ChunkResult:
    """What one chunk did, counted in series (``created`` in occurrences).

    Every id handed in ends in exactly one of ``chunked`` (through the chunk
    transaction), ``retried`` (held by another transaction: generated on its own
    after the chunk, waiting for the lock), ``fallen_back`` (the chunk failed and
    rolled back: generated on its own) or ``failures`` (its own run failed too;
    the exception is kept for the caller, which may retry it). ``parked`` lists
    the series parked in this run (a failure a retry cannot fix), whichever
    path found it.
    """

    series: int = 0
    chunked: int = 0
    retried: int = 0
    fallen_back: int = 0
    created: int = 0
    failures: dict[int, Exception] = field(default_factory=dict)
    parked: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The counts, with the failed ids (the Celery task's JSON result)."""
        return {
            "series": self.series,
            "chunked": self.chunked,
            "retried": self.retried,
            "fallen_back": self.fallen_back,
            "created": self.created,
            "failed": sorted(self.failures),
            "parked": sorted(self.parked),
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
    reported in ``failures``; it never raises. A failure a retry cannot fix
    parks the series (``parked``; see :mod:`~revel_recurring.services.parking`).
    """
    moment = now_utc(now)
    ids = sorted(set(series_ids))
    result = ChunkResult(series=len(ids))
    try:
        chunked, skipped, created = _generate_chunk(ids, moment, result)
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
            if park_failed_series(series_id, exc, now=moment):
                result.parked.append(series_id)
        else:
            done += 1
    return done


def _generate_chunk(
    ids: list[int], moment: dt.datetime, result: ChunkResult
) -> tuple[int, list[int], int]:
    """The chunk transaction: (series done in it, ids left to retry, occurrences created)."""
    parked: list[tuple[int, Exception]] = []
    with transaction.atomic(), suppress_event_notifications():
        locked, skipped = lock_series_chunk(ids)
        # Rules are read after the locks, never joined into the locking statement
        # (docs/locking.md: a joined row would be the one from before a lock wait).
        rule_ids = {s.recurrence_rule_id for s in locked if s.recurrence_rule_id is not None}
        rules = RecurrenceRule.objects.in_bulk(list(rule_ids))
        live = [
            s
            for s in locked
            if s.is_active and s.parked_at is None and s.recurrence_rule_id in rules
        ]
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
                disarm_series(series)
                continue
            absorb_pending_exdates(series, pending=state.pending)
            try:
                occurrences = _plan_series(series, state, moment)
            except DatabaseError:
                raise  # the transaction is broken: the whole chunk goes one by one
            except Exception as exc:
                # Nothing of this series was written but its exdates: leave it out
                # of the insert and park it with the others' work intact.
                logger.exception("revel_recurring could not generate series %s", series.pk)
                parked.append((series.pk, exc))
                continue
            batches.append((series, state.template, occurrences))
        created = _insert(batches)
        write_cursors([series for series, _, _ in batches])
        for series, template, occurrences in batches:
            if occurrences:
                transaction.on_commit(
                    partial(send_series_digest, series, occurrences, template=template)
                )
        outcomes = [(pk, error, park_failed_series(pk, error, now=moment)) for pk, error in parked]
    # Counted once the chunk committed: a chunk that rolls back parks nothing here.
    for series_id, error, was_parked in outcomes:
        if was_parked:
            result.parked.append(series_id)
        else:
            result.failures[series_id] = error
    return len(locked), skipped, created


def _plan_series(series: EventSeries, state: TakenSlots, moment: dt.datetime) -> list[Any]:
    """Plan ``series`` and build its occurrences; moves its cursor in memory only."""
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
    if occurrences:
        # Same rule as generate_series_events (parked series never get here today:
        # the chunk leaves them out of its live set).
        clear_parking(series)
    return occurrences


def _insert(batches: Sequence[tuple[EventSeries, Any, list[Any]]]) -> int:
    """One bulk INSERT of every occurrence of the chunk, then the host's related rows."""
    everything = [occurrence for _, _, occurrences in batches for occurrence in occurrences]
    if not everything:
        return 0
    model = get_event_model()
    # bulk_create sets the primary keys on the same objects (RETURNING), so the
    # per-series lists in `batches` now hold saved occurrences.
    bulk_insert(model, everything)
    model.clone_related_many([(template, occurrences) for _, template, occurrences in batches])
    return len(everything)


__all__ = ["ChunkResult", "generate_series_chunk_events"]
