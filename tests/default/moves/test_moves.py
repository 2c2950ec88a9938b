"""A change of time or weekday moves the dates (testapp host): by plan and by split."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import client, user_with
from tests.support.factories import VIENNA, make_series
from tests.support.moves import (
    check_change_feed_reports_rescheduled,
    check_feeds_expand_the_rows,
    check_split_time_change,
    check_split_weekday_change,
    check_time_change_by_plan,
    check_weekday_change_by_plan,
)

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
ZONE = "Europe/Vienna"


@pytest.fixture
def api(django_user_model: Any) -> APIClient:
    return client(
        user_with(django_user_model, "organiser", "change_eventseries", "view_eventseries")
    )


def book(row: Event) -> None:
    Seat.objects.create(event=row, label="Ada", quantity=1, booked=1)


def _series() -> Any:
    """Mondays 18:30 in Vienna from next Monday, eight weeks generated."""
    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(0 - today.weekday()) % 7 or 7)
    start = dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)
    series = make_series(dtstart=start, weekdays=[0], window_weeks=8)
    generate_series_events(series)
    return series


def test_a_time_change_by_plan_moves_every_unbooked_date(api: APIClient) -> None:
    series = _series()
    since = timezone.now()
    check_time_change_by_plan(api, series, book, zone=ZONE)
    check_change_feed_reports_rescheduled(api, series, since=since)
    check_feeds_expand_the_rows(api, series)


def test_a_weekday_change_by_plan_moves_every_date_to_its_week(api: APIClient) -> None:
    series = _series()
    check_weekday_change_by_plan(api, series, book, zone=ZONE, weekday=0)
    check_feeds_expand_the_rows(api, series)


def test_a_split_with_a_time_change_moves_the_dates_without_doubling_them(
    api: APIClient,
) -> None:
    original, continuation = check_split_time_change(
        api, _series(), book, zone=ZONE, delta=dt.timedelta(minutes=30)
    )
    check_feeds_expand_the_rows(api, original, continuation)


def test_a_split_to_another_weekday_moves_the_dates_to_their_weeks(api: APIClient) -> None:
    series = _series()
    continuation = check_split_weekday_change(api, series, zone=ZONE, weekday=0)
    check_feeds_expand_the_rows(api, series, continuation)
