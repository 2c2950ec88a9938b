"""Dates beyond the window (testapp host): listed, materialized once, kept by the pass."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import client, user_with
from tests.support.beyond_window import (
    check_list_shows_dates_beyond_the_window,
    check_materialize_far_ahead,
    check_plan_moves_it_like_any_row,
    check_refusals,
    check_split_carries_it,
    check_window_reaches_it,
)
from tests.support.factories import VIENNA, make_series

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]


@pytest.fixture
def api(django_user_model: Any) -> APIClient:
    return client(
        user_with(django_user_model, "organiser", "change_eventseries", "view_eventseries")
    )


def book(row: Event) -> None:
    Seat.objects.create(event=row, label="Ada", quantity=1, booked=1)


def _series(**options: Any) -> Any:
    """Mondays 18:30 in Vienna from next Monday, eight weeks generated."""
    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(0 - today.weekday()) % 7 or 7)
    start = dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)
    series = make_series(dtstart=start, weekdays=[0], window_weeks=8, **options)
    generate_series_events(series)
    series.refresh_from_db()
    return series


def test_the_list_shows_the_dates_beyond_the_window_marked_and_capped(
    api: APIClient, settings: Any
) -> None:
    check_list_shows_dates_beyond_the_window(api, _series(), settings)


def test_a_date_six_months_ahead_is_materialized_once_and_the_window_keeps_it(
    api: APIClient, settings: Any
) -> None:
    series = _series(auto_publish=True)
    row, start = check_materialize_far_ahead(api, series, book, settings)
    check_window_reaches_it(series, row, start)


def test_bad_dates_are_refused_naming_start(api: APIClient) -> None:
    check_refusals(api, _series())


def test_a_plan_moves_a_date_materialized_ahead_like_any_row(api: APIClient, settings: Any) -> None:
    series = _series(auto_publish=True)
    row, _ = check_materialize_far_ahead(api, series, book, settings)
    check_plan_moves_it_like_any_row(api, series, row)


def test_a_split_carries_a_date_materialized_ahead(api: APIClient, settings: Any) -> None:
    series = _series(auto_publish=True)
    row, _ = check_materialize_far_ahead(api, series, book, settings)
    check_split_carries_it(api, series, row)


def test_materializing_a_date_is_recorded_once_in_the_history_with_its_row(
    api: APIClient,
) -> None:
    from revel_recurring.models import OperationRow, SeriesOperation

    series = _series(auto_publish=True)
    later = api.get(f"/api/recurring/series/{series.pk}/occurrences/", {"beyond_window": "true"})
    target = [row for row in later.json()["results"] if not row["materialized"]][10]

    made = api.post(
        f"/api/recurring/series/{series.pk}/materialize-date/",
        {"start": target["start"]},
        format="json",
    )
    again = api.post(
        f"/api/recurring/series/{series.pk}/materialize-date/",
        {"start": target["start"]},
        format="json",
    )

    assert (made.status_code, again.status_code) == (201, 200)
    record = SeriesOperation.objects.get(kind="materialize")
    assert record.series_id == series.pk
    rows = OperationRow.objects.filter(operation=record)
    assert [(row.occurrence_pk, row.change) for row in rows] == [
        (str(made.json()["occurrence"]["id"]), "created")
    ]


def test_listing_the_dates_beyond_takes_as_many_queries_for_five_as_for_fifty(
    api: APIClient, settings: Any
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    series = _series(auto_publish=True)
    url = f"/api/recurring/series/{series.pk}/occurrences/"
    api.get(url)  # the user's permissions, read once per client
    counts = []
    for cap in (5, 50):
        settings.REVEL_RECURRING_BEYOND_WINDOW_DATES = cap
        with CaptureQueriesContext(connection) as queries:
            answer = api.get(url, {"beyond_window": "true", "page_size": "100"})
        assert answer.status_code == 200
        assert len([row for row in answer.json()["results"] if not row["materialized"]]) == cap
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 9


def _holiday_series(policy: str) -> Any:
    """The Monday series with Austria's public holidays, ``policy`` for those on a Monday."""
    from revel_recurring.models import EventSeries

    series = _series(auto_publish=True)
    EventSeries.objects.filter(pk=series.pk).update(holiday_country="AT", holiday_policy=policy)
    series.refresh_from_db()
    return series


def _monday_holiday_beyond(series: Any) -> dt.datetime:
    """The slot of the first Monday holiday in Austria after the series' cursor."""
    import holidays

    cursor = series.last_generated_until
    year = cursor.astimezone(VIENNA).year
    days = holidays.country_holidays("AT", years=[year, year + 1])
    day = min(d for d in days if d.weekday() == 0 and d > cursor.astimezone(VIENNA).date())
    return dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA).astimezone(dt.UTC)


def test_a_holiday_skipped_beyond_the_window_is_neither_listed_nor_materialized(
    api: APIClient, settings: Any
) -> None:
    settings.REVEL_RECURRING_BEYOND_WINDOW_DATES = 60
    series = _holiday_series("skip")
    slot = _monday_holiday_beyond(series)
    url = f"/api/recurring/series/{series.pk}/"

    later = api.get(url + "occurrences/", {"beyond_window": "true", "page_size": "500"}).json()
    listed = {dt.datetime.fromisoformat(row["start"]) for row in later["results"]}
    assert slot not in listed
    assert slot - dt.timedelta(weeks=1) in listed or slot + dt.timedelta(weeks=1) in listed

    refused = api.post(url + "materialize-date/", {"start": slot.isoformat()}, format="json")
    assert refused.status_code == 400, refused.json()
    assert list(refused.json()) == ["start"]
    assert "holiday" in refused.json()["start"][0]


def test_a_date_a_holiday_moves_is_listed_and_materialized_where_it_takes_place(
    api: APIClient, settings: Any
) -> None:
    settings.REVEL_RECURRING_BEYOND_WINDOW_DATES = 60
    series = _holiday_series("shift")
    slot = _monday_holiday_beyond(series)
    url = f"/api/recurring/series/{series.pk}/"

    later = api.get(url + "occurrences/", {"beyond_window": "true", "page_size": "500"}).json()
    moved = [row for row in later["results"] if row["shifted_from"] is not None]
    assert moved
    assert dt.datetime.fromisoformat(moved[0]["recurrence_id"]) == slot
    start = dt.datetime.fromisoformat(moved[0]["start"])
    assert start != slot
    assert moved[0]["holiday"]

    by_slot = api.post(url + "materialize-date/", {"start": slot.isoformat()}, format="json")
    by_start = api.post(url + "materialize-date/", {"start": moved[0]["start"]}, format="json")
    assert (by_slot.status_code, by_start.status_code) == (201, 200), by_slot.json()
    row = by_slot.json()["occurrence"]
    assert by_start.json()["occurrence"]["id"] == row["id"]
    assert dt.datetime.fromisoformat(row["start"]) == start
    assert dt.datetime.fromisoformat(row["recurrence_id"]) == slot
