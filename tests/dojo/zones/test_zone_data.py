"""Time-zone data updates on the dojo host: text keys, a duration instead of an end, German.

A Vancouver training at 18:00 every Monday, generated while the test zone keeps
UTC-8; a release then moves it to UTC-7 from its fourth week
(tests/support/zone_shift.py). One moving training is booked by a member.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.checks import check_zone_data
from revel_recurring.models import EventSeries, PersonNotice
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.zone_data import (
    apply_zone_data,
    apply_zone_data_unattended,
    series_changed_by_zone_data,
)
from tests.dojo.conftest import API, trainings
from tests.hosts.dojo.models import Booking, User
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window
from tests.support.zone_shift import ZONE, clocks_change, first_monday, old_zone_data, wall_hours

pytestmark = pytest.mark.django_db


@pytest.fixture
def zones(tmp_path: Path) -> Iterator[Path]:
    with old_zone_data(tmp_path):
        yield tmp_path


def evening_training(name: str = "Karate Abend") -> EventSeries:
    start = first_monday().astimezone(ZoneInfo(ZONE))
    return create_recurring_series(
        name=name,
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": ZONE},
        template_data={"title": name, "mat": "Matte 1", "duration": dt.timedelta(minutes=90)},
        auto_publish=True,
        generation_window_weeks=8,
    )


def hours(series: EventSeries) -> list[int]:
    return wall_hours([training.begins_at for training in trainings(series)])


def test_the_report_names_the_moved_trainings_and_nothing_doubles_before_the_fix(
    zones: Path,
) -> None:
    karate = evening_training()
    rows = trainings(karate)
    before = [(row.pk, row.begins_at) for row in rows]
    clocks_change(zones)

    [change] = series_changed_by_zone_data()

    assert [row.id for row in change.moves] == [row.pk for row in rows[4:]]
    assert [w.id for w in check_zone_data(databases=["default"])] == ["revel_recurring.W003"]
    assert detect_cadence_drift(karate) == []
    assert generate_series_events(karate.pk, now=timezone.now() + dt.timedelta(days=7)) == []
    assert [(row.pk, row.begins_at) for row in trainings(karate)] == before


def test_booked_trainings_move_under_all_and_keep_their_members(zones: Path, member: User) -> None:
    free = evening_training("Judo Abend")
    karate = evening_training()
    rows = trainings(karate)
    Booking.objects.create(training=rows[6], member=member)
    clocks_change(zones)

    done = apply_zone_data_unattended(mode="unbooked")

    assert [item.change.series.pk for item in done] == [free.pk]
    assert hours(free) == [18] * 8
    assert hours(karate) == [18] * 4 + [19] * 4
    out = StringIO()
    call_command("revel_recurring_data", stdout=out)
    assert f"Karate Abend (Serie {karate.pk})" in out.getvalue()  # the German host

    done = apply_zone_data_unattended(mode="all")

    assert [item.change.series.pk for item in done] == [karate.pk]
    assert [row.pk for row in trainings(karate)] == [row.pk for row in rows]
    assert hours(karate) == [18] * 8
    assert Booking.objects.get(member=member).training_id == rows[6].pk


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_the_feeds_show_the_new_times(consumer: str, zones: Path, api: APIClient) -> None:
    karate = evening_training()
    clocks_change(zones)
    assert apply_zone_data(karate) is not None
    start, end = window(karate)
    expected = shown_instances(karate)
    assert wall_hours([instant for instant, _ in expected]) == [18] * 8

    (read,) = expand_many(consumer, [(b"".join(api.get(f"{API}{karate.pk}/ical/")), start, end)])

    assert read == expected


def test_the_people_on_a_moved_training_are_told_once(zones: Path, member: User) -> None:
    karate = evening_training()
    Booking.objects.create(training=trainings(karate)[5], member=member)
    clocks_change(zones)

    done = apply_zone_data(karate, notify="all")

    assert done is not None
    assert len(done.applied.moved) == 4
    assert PersonNotice.objects.count() == 1
