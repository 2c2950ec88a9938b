"""Newer holiday data on the studio host: UUID lessons, one Booking row per pupil.

A Munich school skips Bavaria's public holidays; a simulated ``holidays`` release
(tests/support/holidays.py) adds two on its lesson days, one lesson of them booked.
"""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.core.management import call_command

from revel_recurring.checks import check_holiday_data
from revel_recurring.holiday_rules import data_version
from revel_recurring.models import EventSeries
from revel_recurring.services.holiday_data import series_changed_by_holiday_data
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import BERLIN, MakeSeries, lessons
from tests.support.holidays import TEST_DAY, generated_with, newer_holiday_data

pytestmark = pytest.mark.django_db

BAVARIA = {"country": "DE", "subdivision": "BY", "categories": [], "policy": "skip"}


def day_of(lesson: Lesson) -> dt.date:
    return lesson.begins.astimezone(BERLIN).date()


def test_newer_holidays_cancel_the_free_lesson_and_keep_the_booked_one_by_uuid(
    make_series: MakeSeries, pupil: User
) -> None:
    series = make_series(holidays=BAVARIA, generation_window_weeks=6)
    rows = lessons(series)
    free, booked = rows[1], rows[2]
    other = User.objects.create_user("second@studio.example", "x")
    Booking.objects.create(lesson=booked, pupil=pupil)
    Booking.objects.create(lesson=booked, pupil=other)
    generated_with(series)

    with newer_holiday_data([day_of(free), day_of(booked)]):
        [change] = series_changed_by_holiday_data()
        assert [(d.occurrence.id, d.occurrence.bookings) for d in change.drift] == [
            (free.pk, 0),
            (booked.pk, 2),
        ]
        assert [w.id for w in check_holiday_data(databases=["default"])] == ["revel_recurring.W002"]
        out = StringIO()

        call_command("revel_recurring_holidays", "--apply", stdout=out)

        assert check_holiday_data(databases=["default"]) == []
    text = out.getvalue()
    assert f"Kept because booked: 1\n    {change.drift[1].occurrence.display}  2 bookings" in text
    assert f"Cancelled: 1\n    {change.drift[0].occurrence.display}  {TEST_DAY}" in text
    states = dict(Lesson.objects.filter(pk__in=[free.pk, booked.pk]).values_list("pk", "state"))
    assert states == {free.pk: Lesson.State.SCRAPPED, booked.pk: Lesson.State.BOOKABLE}
    assert Booking.objects.filter(lesson=booked).count() == 2
    assert EventSeries.objects.get(pk=series.pk).holidays_version == data_version()
