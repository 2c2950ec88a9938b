"""Keeping a series' history bounded: records older than ``REVEL_RECURRING_HISTORY_DAYS`` go.

The daily pass calls :func:`purge_history`. A record whose messages to booked
people are not all sent stays (its notices would go with it); the rest go with
their rows and series links, a batch of records per transaction, so no
statement grows with the number of old records. What pointed to a record (the
occurrence change feed, a later revert) keeps its row, pointing to nothing.
"""

from __future__ import annotations

import datetime as dt
import uuid

from django.db import transaction

from ..conf import recurring_settings
from ..models import OperationRow, OperationSeries, PersonNotice, SeriesOperation
from .toolbox.plumbing import now_utc

#: Records removed per transaction.
PURGE_BATCH = 200
#: Rows of those records removed per DELETE.
ROWS_PER_DELETE = 5000


def purge_history(*, now: dt.datetime | None = None) -> int:
    """Remove the records older than ``REVEL_RECURRING_HISTORY_DAYS``; how many went.

    Records still owing a message to a booked person (a notice not sent) are kept.
    Each batch: the records' rows in DELETEs of at most :data:`ROWS_PER_DELETE`
    (by position, so a 10,000-row record is a few bounded statements), their
    series links, then the records.
    """
    cutoff = now_utc(now) - dt.timedelta(days=recurring_settings.HISTORY_DAYS)
    owing = PersonNotice.objects.filter(sent_at__isnull=True).values("operation_id")
    removed = 0
    while True:
        ids = list(
            SeriesOperation.objects.filter(created_at__lt=cutoff)
            .exclude(pk__in=owing)
            .order_by("created_at", "pk")
            .values_list("pk", flat=True)[:PURGE_BATCH]
        )
        if not ids:
            return removed
        with transaction.atomic():
            for record in ids:
                _delete_rows(record)
            OperationSeries.objects.filter(operation_id__in=ids).delete()
            SeriesOperation.objects.filter(pk__in=ids).delete()
        removed += len(ids)
        if len(ids) < PURGE_BATCH:
            return removed


def _delete_rows(record: uuid.UUID) -> None:
    rows = OperationRow.objects.filter(operation_id=record)
    last = rows.order_by("-position").values_list("position", flat=True).first()
    if last is None:
        return
    for start in range(0, last + 1, ROWS_PER_DELETE):
        rows.filter(position__gte=start, position__lt=start + ROWS_PER_DELETE).delete()


__all__ = ["PURGE_BATCH", "ROWS_PER_DELETE", "purge_history"]
