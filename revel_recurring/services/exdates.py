"""Exdates recorded outside the series lock, folded in under it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable

from django.db import transaction

from .. import rules
from ..exceptions import SeriesNotFoundError
from ..models import EventSeries, PendingExdate
from .locking import lock_series


def absorb_pending_exdates(
    series: EventSeries, *, pending: Collection[dt.datetime] | None = None
) -> bool:
    """Fold the series' pending exdates into ``series.exdates``; the caller holds its lock.

    ``pending`` are the instants when the caller read them already (generation
    reads them with the template). Returns whether any were found. Rows committed
    after the read are folded by the next holder of the lock.
    """
    if pending is None:
        pending = list(
            PendingExdate.objects.filter(series_id=series.pk).values_list("instant", flat=True)
        )
    if not pending:
        return False
    merged = rules.normalize_exdates([*series.exdates, *pending])
    PendingExdate.objects.filter(series_id=series.pk, instant__in=list(pending)).delete()
    if merged != series.exdates:
        series.exdates = merged
        EventSeries.objects.filter(pk=series.pk).update(exdates=merged)
    return True


def pending_exdate_instants(series_id: int) -> set[dt.datetime]:
    """The UTC instants of the series' pending exdates (read, not folded)."""
    return {
        rules.to_utc(instant)
        for instant in PendingExdate.objects.filter(series_id=series_id).values_list(
            "instant", flat=True
        )
    }


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
            lock_series(series_id)
    except SeriesNotFoundError:
        PendingExdate.objects.filter(series_id=series_id).delete()


def add_exdates(series_id: int, instants: Iterable[dt.datetime]) -> list[str]:
    """Record instants as exdates (UTC, deduplicated) under the series lock; returns the list.

    Takes the series lock: call it only where nothing in the transaction holds an
    occurrence row yet (see docs/locking.md); hosts deleting occurrences need not
    call it, the ``pre_delete`` receiver records the slot without a lock.
    """
    with transaction.atomic():
        series = lock_series(series_id)
        merged = rules.normalize_exdates([*series.exdates, *instants])
        if merged != series.exdates:
            series.exdates = merged
            series.save(update_fields=["exdates", "updated_at"])
        return merged
