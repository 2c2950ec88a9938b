"""Slots of deleted occurrences, recorded without the series lock and folded in after commit."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db import transaction

from ...exceptions import SeriesNotFoundError
from ...models import PendingExdate
from .exdates import absorb_pending_exdates
from .locking import lock_series


def record_pending_exdates(series_id: int, instants: Iterable[dt.datetime]) -> None:
    """Record slots to exclude without touching the series row (never waits for a lock).

    After the enclosing transaction commits, they are folded into the series'
    exdates in a short transaction of their own, so ``series.exdates`` shows them
    at once in the common case.
    """
    rows = [PendingExdate(series_id=series_id, instant=instant) for instant in instants]
    if not rows:
        return
    PendingExdate.objects.bulk_create(rows)
    transaction.on_commit(lambda: _absorb_after_commit(series_id), robust=True)


def _absorb_after_commit(series_id: int) -> None:
    if not PendingExdate.objects.filter(series_id=series_id).exists():
        return  # an earlier callback of the same transaction folded them
    try:
        with transaction.atomic():
            absorb_pending_exdates(lock_series(series_id))
    except SeriesNotFoundError:
        PendingExdate.objects.filter(series_id=series_id).delete()


__all__ = ["record_pending_exdates"]
