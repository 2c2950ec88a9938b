"""Plain factory functions for series with a template on the test host."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from revel_recurring.models import EventSeries, RecurrenceRule
from tests.testapp.models import Event, Seat

VIENNA = ZoneInfo("Europe/Vienna")
UTC = dt.UTC


def make_series(
    *,
    name: str = "Monday yoga",
    dtstart: dt.datetime | None = None,
    timezone: str = "Europe/Vienna",
    frequency: str = "WEEKLY",
    auto_publish: bool = False,
    window_weeks: int = 8,
    seats: int = 1,
    duration: dt.timedelta = dt.timedelta(hours=1, minutes=30),
    doors_before: dt.timedelta | None = dt.timedelta(minutes=30),
    **rule_fields: Any,
) -> EventSeries:
    """A series with its rule, a template event (title, venue, capacity) and seats."""
    start = dtstart or dt.datetime(2026, 3, 2, 10, 0, tzinfo=VIENNA)
    rule = RecurrenceRule.objects.create(
        frequency=frequency, dtstart=start, timezone=timezone, **rule_fields
    )
    series = EventSeries.objects.create(
        name=name,
        recurrence_rule=rule,
        auto_publish=auto_publish,
        generation_window_weeks=window_weeks,
    )
    template = Event.objects.create(
        series=series,
        is_template=True,
        title=name,
        venue="Studio 2",
        capacity=20,
        starts_at=start,
        ends_at=start + duration,
        doors_open_at=start - doors_before if doors_before is not None else None,
    )
    for number in range(seats):
        Seat.objects.create(event=template, label=f"Row {number + 1}", quantity=10 + number)
    return series


def occurrences(series: EventSeries) -> list[Event]:
    return list(Event.objects.filter(series=series, is_template=False).order_by("starts_at"))
