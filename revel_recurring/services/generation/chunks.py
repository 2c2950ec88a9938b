"""The daily pass at scale: one transaction for a whole chunk of due series.

Per chunk, whatever its size: the series locks (one statement on PostgreSQL),
the rules, then the floor both paths share
(:func:`~revel_recurring.services.generation.floor.generate_locked`): the templates
with their taken slots and pending exdates, one bulk INSERT of every occurrence
(cut by ``REVEL_RECURRING_INSERT_BATCH_BYTES`` when the rows are large), the host's
``clone_related_many`` and one UPDATE of every cursor. A rule behaves identically
for one series and in a chunk.

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
from typing import Any

from django.db import transaction

from ...context import routine_generation, suppress_event_notifications
from ...models import RecurrenceRule
from ..toolbox.history import note_generated
from ..toolbox.locking import lock_series_chunk
from ..toolbox.parking import park_failed_series
from ..toolbox.plumbing import now_utc
from .floor import generate_locked
from .single import generate_series_events

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
    #: The chunk booked enrolled users and owes them their messages (``tell_untold``).
    owed: bool = False

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
    parks the series (``parked``; see :mod:`~revel_recurring.services.toolbox.parking`).
    """
    moment = now_utc(now)
    ids = sorted(set(series_ids))
    result = ChunkResult(series=len(ids))
    with routine_generation() as summary:
        try:
            chunked, skipped, created = _generate_chunk(ids, moment, result, summary)
        except Exception:
            summary.clear()  # rolled back with the chunk
            return _fall_back(ids, moment, result)
        result.chunked, result.created = chunked, created
        result.retried = _one_by_one(skipped, moment, result)
    return result


def _fall_back(ids: list[int], moment: dt.datetime, result: ChunkResult) -> ChunkResult:
    """Every series of a chunk that rolled back, one by one (called from its ``except``)."""
    logger.exception(
        "revel_recurring: the chunk of series %s..%s failed and was rolled back; "
        "generating its %s series one by one",
        ids[0] if ids else None,
        ids[-1] if ids else None,
        len(ids),
    )
    result.fallen_back = _one_by_one(ids, moment, result)
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
    ids: list[int], moment: dt.datetime, result: ChunkResult, summary: list[Any]
) -> tuple[int, list[int], int]:
    """The chunk transaction: (series done in it, ids left to retry, occurrences created)."""
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
        run = generate_locked(live, now=moment, chunk=True)
        result.owed = result.owed or run.owed
        for series_id, error in run.failed:
            logger.error("revel_recurring could not generate series %s", series_id, exc_info=error)
        outcomes = [
            (pk, error, park_failed_series(pk, error, now=moment)) for pk, error in run.failed
        ]
        # The chunk's one summary record (the series' history), in its transaction.
        note_generated(
            summary,
            {batch.series.pk: (batch.series.name, len(batch.occurrences)) for batch in run.batches},
            now=moment,
        )
    # Counted once the chunk committed: a chunk that rolls back parks nothing here.
    for series_id, error, was_parked in outcomes:
        if was_parked:
            result.parked.append(series_id)
        else:
            result.failures[series_id] = error
    return len(locked), skipped, run.created


__all__ = ["ChunkResult", "generate_series_chunk_events"]
