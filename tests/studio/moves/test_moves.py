"""A change of time or weekday moves the dates (the UUID host): by plan and by split."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import MakeSeries
from tests.support.moves import (
    Book,
    check_change_feed_reports_rescheduled,
    check_feeds_expand_the_rows,
    check_patch_moves_booked_when_told,
    check_patch_moves_unbooked,
    check_split_time_change,
    check_split_time_change_told,
    check_split_weekday_change,
    check_time_change_by_plan,
    check_time_change_by_plan_told,
    check_weekday_change_by_plan,
)

pytestmark = pytest.mark.django_db
ZONE = "Europe/Berlin"
THURSDAY = 3


@pytest.fixture
def book(pupil: User) -> Book:
    def booking(row: Lesson) -> None:
        Booking.objects.create(lesson=row, pupil=pupil)

    return booking


def test_with_nobody_told_a_time_change_by_plan_moves_every_unbooked_date(
    api: APIClient, make_series: MakeSeries, book: Book, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = make_series()
    since = timezone.now()
    check_time_change_by_plan(api, series, book, zone=ZONE)
    check_change_feed_reports_rescheduled(api, series, since=since)
    check_feeds_expand_the_rows(api, series)


def test_with_the_people_told_a_time_change_by_plan_moves_the_booked_dates_too(
    api: APIClient, make_series: MakeSeries, book: Book
) -> None:
    series = make_series()
    check_time_change_by_plan_told(api, series, book, zone=ZONE)
    check_feeds_expand_the_rows(api, series)


def test_a_weekday_change_by_plan_moves_every_date_to_its_week(
    api: APIClient, make_series: MakeSeries, book: Book
) -> None:
    series = make_series()
    check_weekday_change_by_plan(api, series, book, zone=ZONE, weekday=THURSDAY)
    check_feeds_expand_the_rows(api, series)


def test_with_nobody_told_a_split_with_a_time_change_moves_the_dates_without_doubling_them(
    api: APIClient, make_series: MakeSeries, book: Book, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    original, continuation = check_split_time_change(
        api,
        make_series(),
        book,
        zone=ZONE,
        delta=dt.timedelta(minutes=30),
    )
    check_feeds_expand_the_rows(api, original, continuation)


def test_with_the_people_told_a_split_with_a_time_change_moves_the_booked_date_too(
    api: APIClient, make_series: MakeSeries, book: Book
) -> None:
    original, continuation = check_split_time_change_told(
        api, make_series(), book, zone=ZONE, delta=dt.timedelta(minutes=30)
    )
    check_feeds_expand_the_rows(api, original, continuation)


def test_a_split_to_another_weekday_moves_the_dates_to_their_weeks(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    continuation = check_split_weekday_change(api, series, zone=ZONE, weekday=THURSDAY)
    check_feeds_expand_the_rows(api, series, continuation)


def test_with_nobody_told_a_patch_moves_the_unbooked_dates_and_names_the_booked_one(
    api: APIClient, make_series: MakeSeries, book: Book, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    check_patch_moves_unbooked(api, make_series(), book, zone=ZONE, weekday=THURSDAY)


def test_with_the_people_told_a_patch_moves_the_booked_date_too(
    api: APIClient, make_series: MakeSeries, book: Book
) -> None:
    check_patch_moves_booked_when_told(api, make_series(), book, zone=ZONE, weekday=THURSDAY)
