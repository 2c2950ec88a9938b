"""The suite's one factory module: the shared instants and zones, rules, series, helpers.

``make_series`` builds rows directly (no service involved: for generation tests);
``weekly_series`` goes through ``create_recurring_series`` (for lifecycle tests).
conftest.py exposes ``make_rule`` as a fixture as well.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any
from zoneinfo import ZoneInfo

from django.dispatch import Signal

from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.notifications import SeriesDigest
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.testapp.models import Event, Seat
from tests.support.holidays import AUSTRIA_SKIP, coming_monday

UTC = dt.UTC
VIENNA = ZoneInfo("Europe/Vienna")
NEW_YORK = ZoneInfo("America/New_York")

# Sunday before the first occurrence; the 8-week window then holds the Mondays
# 2 March .. 20 April 2026, across Vienna's switch to summer time on 29 March.
NOW = dt.datetime(2026, 3, 1, tzinfo=UTC)
FIRST_MONDAY = dt.datetime(2026, 3, 2, 10, 0, tzinfo=VIENNA)
DURATION = dt.timedelta(hours=1, minutes=30)


def make_rule(*, save: bool = True, **fields: Any) -> RecurrenceRule:
    """A RecurrenceRule: weekly in Vienna from Monday 17 March 2025 unless ``fields`` say otherwise.

    ``save=False`` returns an unsaved instance (no database needed), which is what
    validation tests want; saving runs the model's own validation.
    """
    values: dict[str, Any] = {
        "frequency": RecurrenceRule.Frequency.WEEKLY,
        "interval": 1,
        "dtstart": dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA),
        "timezone": "Europe/Vienna",
    }
    values.update(fields)
    rule = RecurrenceRule(**values)
    if save:
        rule.save()
    return rule


def make_series(
    *,
    name: str = "Monday yoga",
    dtstart: dt.datetime | None = None,
    timezone: str = "Europe/Vienna",
    frequency: str = "WEEKLY",
    auto_publish: bool = False,
    window_weeks: int = 8,
    seats: int = 1,
    duration: dt.timedelta = DURATION,
    doors_before: dt.timedelta | None = dt.timedelta(minutes=30),
    **rule_fields: Any,
) -> EventSeries:
    """A series with its rule, a template event (title, venue, capacity) and seats."""
    start = dtstart or FIRST_MONDAY
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
    """The series' occurrences (template excluded) in start order."""
    return list(Event.objects.filter(series=series, is_template=False).order_by("starts_at"))


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
    holidays: dict[str, Any] | None = None,
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
        holidays=holidays,
        now=now,
    )


def holiday_class(name: str = "Monday yoga", *, policy: str = "skip") -> EventSeries:
    """Mondays 10:00 Vienna from the coming Monday (real clock) under Austria's holidays,
    six weeks generated (at least three dates, whichever Mondays are holidays)."""
    start = coming_monday(VIENNA)
    return create_recurring_series(
        name=name,
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": "Europe/Vienna"},
        template_data={"title": name, "ends_at": start + DURATION},
        generation_window_weeks=6,
        holidays={**AUSTRIA_SKIP, "policy": policy},
    )


def yoga_digests() -> tuple[SeriesDigest, SeriesDigest]:
    """Digests of a weekly "Yoga" series' first two new dates (with a link) and first one."""
    series = make_series(name="Yoga", auto_publish=True)
    created = generate_series_events(series, now=NOW)
    two = SeriesDigest(
        series=series,
        occurrences=created[:2],
        url="https://site.example/s/yoga/",
        timezone="Europe/Vienna",
    )
    return two, SeriesDigest(series=series, occurrences=created[:1], timezone="Europe/Vienna")


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
