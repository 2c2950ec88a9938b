"""Operation records for the tests of the history's faces (API and admin), on any host.

``record_operation`` writes a ``SeriesOperation`` with ``rows`` ``OperationRow``
rows in two bulk statements, as a service's record looks (a 10,000-row
cancel-stale included) without needing that service to produce one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from revel_recurring.models import EventSeries, OperationRow, OperationSeries, SeriesOperation

#: One day, the step between the dates of a recorded row.
DAY = dt.timedelta(days=1)
#: How far a "moved" row's start moves.
LATER = dt.timedelta(hours=2)


def record_operation(
    series: EventSeries | None,
    *,
    kind: str = "cancel_stale",
    rows: int = 0,
    actor: str = "7",
    actor_name: str = "organiser",
    face: str = "api",
    created_at: dt.datetime | None = None,
    first_slot: dt.datetime | None = None,
    change: str = "cancelled",
    also: tuple[EventSeries, ...] = (),
    series_ref: int | None = None,
    series_name: str | None = None,
    occurrence_pks: list[Any] | None = None,
    **fields: Any,
) -> SeriesOperation:
    """One operation on ``series`` touching ``rows`` dates, a day apart from ``first_slot``.

    ``also``: further series it names through ``OperationSeries`` (a split's
    continuation, a chunk's series). ``series`` None with ``series_ref``: a record
    of a deleted series. ``occurrence_pks``: the events the rows name (else made-up
    ids from 1000000 on).
    """
    start = first_slot or timezone.now().replace(microsecond=0) + DAY
    moved = change == "moved"
    operation = SeriesOperation.objects.create(
        kind=kind,
        series=series,
        series_ref=series.pk if series is not None else series_ref,
        series_name=series.name if series is not None else (series_name or "gone"),
        notify="no",
        actor=actor,
        actor_name=actor_name,
        face=face,
        row_count=rows,
        created_at=created_at or timezone.now(),
        **fields,
    )
    links = [
        OperationSeries(operation=operation, series_ref=other.pk, series_name=other.name)
        for other in also
    ]
    OperationSeries.objects.bulk_create(links)
    OperationRow.objects.bulk_create(
        [
            OperationRow(
                operation=operation,
                position=position,
                occurrence_pk=str(
                    occurrence_pks[position] if occurrence_pks else 1_000_000 + position
                ),
                change=change,
                series_before=operation.series_ref,
                series_after=operation.series_ref,
                slot_before=start + position * DAY,
                slot_after=start + position * DAY,
                start_before=start + position * DAY,
                start_after=start + position * DAY + (LATER if moved else dt.timedelta(0)),
                status_before="live",
                status_after="live" if moved else "cancelled",
                booked=position % 3,
            )
            for position in range(rows)
        ],
        batch_size=2000,
    )
    return operation
