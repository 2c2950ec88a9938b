"""Helpers for the lifecycle tests: series built through the public service, signal capture."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any
from zoneinfo import ZoneInfo

from django.dispatch import Signal

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.factories import UTC, VIENNA, occurrences
from tests.testapp.models import Event

# UTC, VIENNA and occurrences come from tests.factories and are re-exported so
# the lifecycle tests import everything they share from one place.
__all__ = [
    "DURATION",
    "FIRST_MONDAY",
    "NEW_YORK",
    "NOW",
    "UTC",
    "VIENNA",
    "captured",
    "fresh",
    "monday",
    "occurrences",
    "template_of",
    "weekly_series",
]

NEW_YORK = ZoneInfo("America/New_York")

# Sunday before the first occurrence; the 8-week window then holds the Mondays
# 2 March .. 20 April 2026, across Vienna's switch to summer time on 29 March.
NOW = dt.datetime(2026, 3, 1, tzinfo=UTC)
FIRST_MONDAY = dt.datetime(2026, 3, 2, 10, 0, tzinfo=VIENNA)
DURATION = dt.timedelta(hours=1, minutes=30)


def monday(week: int) -> dt.datetime:
    """The ``week``-th Monday slot (0-based) as a UTC instant, DST respected."""
    wall = FIRST_MONDAY.replace(tzinfo=None) + dt.timedelta(weeks=week)
    return wall.replace(tzinfo=VIENNA).astimezone(UTC)


def weekly_series(
    *,
    now: dt.datetime = NOW,
    name: str = "Monday yoga",
    generate: bool = True,
    auto_publish: bool = False,
    window_weeks: int = 8,
    **rule_fields: Any,
) -> EventSeries:
    """A weekly Vienna series created with ``create_recurring_series``."""
    rule_data: dict[str, Any] = {
        "frequency": "WEEKLY",
        "dtstart": FIRST_MONDAY,
        "timezone": "Europe/Vienna",
        **rule_fields,
    }
    return create_recurring_series(
        rule_data=rule_data,
        template_data={
            "title": name,
            "venue": "Studio 2",
            "capacity": 20,
            "ends_at": FIRST_MONDAY + DURATION,
            "doors_open_at": FIRST_MONDAY - dt.timedelta(minutes=30),
        },
        name=name,
        auto_publish=auto_publish,
        generation_window_weeks=window_weeks,
        generate=generate,
        now=now,
    )


def template_of(series: EventSeries) -> Event:
    return Event.objects.get(series=series, is_template=True)


def fresh(series: EventSeries) -> EventSeries:
    return EventSeries.objects.get(pk=series.pk)


@contextlib.contextmanager
def captured(signal: Signal) -> Iterator[list[dict[str, Any]]]:
    """Record the kwargs of every send of ``signal`` inside the block."""
    calls: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        kwargs.pop("signal", None)
        calls.append({"sender": sender, **kwargs})

    signal.connect(receiver, weak=False)
    try:
        yield calls
    finally:
        signal.disconnect(receiver)
