"""Time-zone data updates on the studio host: UUID lessons, one Booking row per pupil.

A Vancouver lesson at 18:00 every Monday, generated while the test zone keeps
UTC-8; a release then moves it to UTC-7 from its fourth week
(tests/support/zone_shift.py). One moving lesson is booked by a pupil.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.zone_data import (
    apply_zone_data_unattended,
    series_changed_by_zone_data,
)
from tests.hosts.studio.models import Booking, School, User
from tests.studio.conftest import API, lessons
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window
from tests.support.zone_shift import ZONE, clocks_change, first_monday, old_zone_data, wall_hours

pytestmark = pytest.mark.django_db


@pytest.fixture
def zones(tmp_path: Path) -> Iterator[Path]:
    with old_zone_data(tmp_path):
        yield tmp_path


def evening_lessons(school: School, name: str = "Salsa") -> EventSeries:
    start = first_monday().astimezone(ZoneInfo(ZONE))
    return create_recurring_series(
        name=name,
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": ZONE},
        template_data={
            "school": school,
            "title": name,
            "room": "Hall 1",
            "finishes": start + dt.timedelta(hours=1),
        },
        auto_publish=True,
        generation_window_weeks=8,
    )


def hours(series: EventSeries) -> list[int]:
    return wall_hours([lesson.begins for lesson in lessons(series)])


def test_the_report_names_the_moved_lessons_and_nothing_doubles_before_the_fix(
    zones: Path, school: School
) -> None:
    salsa = evening_lessons(school)
    berlin = create_recurring_series(
        name="Tango",
        rule_data={
            "frequency": "WEEKLY",
            "dtstart": first_monday().astimezone(ZoneInfo("Europe/Berlin")),
            "timezone": "Europe/Berlin",
        },
        template_data={"school": school, "title": "Tango", "room": "Hall 2"},
    )
    rows = lessons(salsa)
    before = [(row.pk, row.begins) for row in rows]
    clocks_change(zones)

    [change] = series_changed_by_zone_data()

    assert change.series.pk == salsa.pk  # not the Berlin series
    assert [row.id for row in change.moves] == [row.pk for row in rows[4:]]
    assert hours(salsa) == [18] * 4 + [19] * 4
    assert detect_cadence_drift(salsa) == []
    assert generate_series_events(salsa.pk, now=timezone.now() + dt.timedelta(days=7)) == []
    assert [(row.pk, row.begins) for row in lessons(salsa)] == before
    assert series_changed_by_zone_data(EventSeries.objects.filter(pk=berlin.pk)) == []


def test_the_daily_pass_holds_the_booked_series_and_the_command_moves_it_keeping_ids(
    zones: Path, school: School, pupil: User
) -> None:
    salsa = evening_lessons(school)
    rows = lessons(salsa)
    Booking.objects.create(lesson=rows[5], pupil=pupil)
    clocks_change(zones)

    assert apply_zone_data_unattended(mode="unbooked") == []
    assert hours(salsa) == [18] * 4 + [19] * 4

    out = StringIO()
    call_command("revel_recurring_data", "--apply", stdout=out)

    assert "Moved: 4" in out.getvalue()
    assert [row.pk for row in lessons(salsa)] == [row.pk for row in rows]
    assert hours(salsa) == [18] * 8
    assert Booking.objects.get(pupil=pupil).lesson_id == rows[5].pk


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_the_feeds_show_the_new_times(
    consumer: str, zones: Path, school: School, api: APIClient, client: Any
) -> None:
    salsa = evening_lessons(school)
    clocks_change(zones)
    assert apply_zone_data_unattended(mode="all")
    start, end = window(salsa)
    expected = shown_instances(salsa)
    assert wall_hours([instant for instant, _ in expected]) == [18] * 8

    (read,) = expand_many(consumer, [(b"".join(api.get(f"{API}{salsa.pk}/ical/")), start, end)])

    assert read == expected
