"""Parking: the daily pass stops retrying a series whose generation cannot succeed.

A series whose run fails for a reason a retry cannot fix (a template too large
for its window, a host hook that raises, a unique value every occurrence would
copy) would otherwise fail the same way every day, and in a chunk take its
neighbours' work down with it. The daily pass records the failure on the series
(``parked_at``, ``parked_reason``) and leaves it out of ``due()`` until someone
unparks it: ``resume_series``, a ``generate_series_events`` run that creates
occurrences (Generate now, ``POST generate/``, a rule or window change that
regenerates) or a template edit. See docs/decisions/0023-parked-series.md.
"""

from __future__ import annotations

import datetime as dt
import logging

from ...models import EventSeries
from ...transient import is_transient_db_error
from .plumbing import now_utc

logger = logging.getLogger(__name__)

# A reason is read by people in the admin and the API; a traceback-sized message
# (a host error quoting a whole row) is cut.
PARKED_REASON_MAX_LENGTH = 2000
PARKING_COLUMNS = ("parked_at", "parked_reason")


def parking_reason(exc: BaseException) -> str:
    """What ``parked_reason`` says about ``exc``: its type and message, cut to a readable size."""
    reason = f"{type(exc).__name__}: {exc}"
    if len(reason) > PARKED_REASON_MAX_LENGTH:
        reason = reason[: PARKED_REASON_MAX_LENGTH - 1] + "…"
    return reason


def park_failed_series(
    series_id: int, exc: BaseException, *, now: dt.datetime | None = None
) -> bool:
    """Park the series after ``exc``, unless ``exc`` is transient; returns whether it parked now.

    Call it after the failed transaction rolled back. A plain UPDATE of the series
    row (it takes that row's lock only, so the lock order stays: series first). A
    series parked already keeps its first reason and moment, and the answer is
    False for it: callers count what this run parked (``ChunkResult.parked``).
    """
    if is_transient_db_error(exc):
        return False
    reason = parking_reason(exc)
    parked = EventSeries.objects.filter(pk=series_id, parked_at__isnull=True).update(
        parked_at=now_utc(now), parked_reason=reason
    )
    if parked:
        logger.error(
            "revel_recurring parked series %s: the daily pass skips it until it is "
            "resumed or its template or rule is changed. %s",
            series_id,
            reason,
        )
    return bool(parked)


def clear_parking(series: EventSeries) -> bool:
    """Unpark ``series`` in memory (the caller holds its lock and saves ``PARKING_COLUMNS``)."""
    if series.parked_at is None and not series.parked_reason:
        return False
    series.parked_at = None
    series.parked_reason = ""
    return True


def unpark_series(series_id: int) -> bool:
    """Unpark the series in one UPDATE; returns whether it was parked.

    For writers that change what made it fail (a template edit) without locking
    the series themselves. The caller recomputes ``next_due_at`` when it has to.
    """
    return bool(
        EventSeries.objects.filter(pk=series_id, parked_at__isnull=False).update(
            parked_at=None, parked_reason=""
        )
    )


__all__ = [
    "PARKED_REASON_MAX_LENGTH",
    "PARKING_COLUMNS",
    "clear_parking",
    "park_failed_series",
    "parking_reason",
    "unpark_series",
]
