"""The split flow on the studio host (UUID keys, lessons in a school's feed): the new name on
the dates and in the feed, holiday settings over the API, the halves' pages and the
original's last date pointing to the school's feed."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.services.splits import split_series
from tests.studio.conftest import API, MakeSeries, lessons
from tests.support.split_flow import feed_summaries, page_links, parsed_last_date, titles

pytestmark = pytest.mark.django_db

FEED = "https://studio.example/schools/salsa/calendar.ics"


def split(make_series: MakeSeries, **options: object) -> tuple[EventSeries, EventSeries]:
    series = make_series(generation_window_weeks=6)
    at = rules.to_utc(lessons(series)[3].begins)
    return series, split_series(series, at=at, **options).continuation  # type: ignore[arg-type]


def test_a_split_changing_only_the_name_gives_the_lessons_and_feed_the_new_name(
    make_series: MakeSeries,
) -> None:
    series, continuation = split(make_series, name="Salsa (advanced)")

    assert len(titles(continuation)) > 3
    assert set(titles(continuation)) == {"Salsa (advanced)"}
    assert set(titles(series)) == {"Salsa"}
    assert feed_summaries(continuation) == {"Salsa (advanced)"}


def test_the_originals_last_date_points_to_the_schools_feed(make_series: MakeSeries) -> None:
    series, _ = split(make_series, name="Salsa (advanced)")

    last = parsed_last_date(series)

    assert str(last["SUMMARY"]) == "Salsa"
    assert "Salsa (advanced)" in str(last["DESCRIPTION"])
    assert FEED in str(last["DESCRIPTION"])
    assert str(last["URL"]) == FEED


def test_holiday_settings_in_a_split_body_reach_the_continuation(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(generation_window_weeks=6)
    body = {
        "at": rules.format_instant(rules.to_utc(lessons(series)[3].begins)),
        "name": "Salsa (Berlin)",
        "holidays": {"country": "de", "subdivision": "BE", "policy": "shift"},
    }

    wrong = api.post(
        f"{API}{series.pk}/split-plan/", {**body, "holidays": {"country": "XX"}}, format="json"
    )
    planned = api.post(f"{API}{series.pk}/split-plan/", body, format="json")
    response = api.post(f"{API}{series.pk}/split/", body, format="json")

    assert planned.status_code == 200, planned.json()
    assert response.status_code == 201, response.json()
    holidays = response.json()["continuation"]["holidays"]
    assert (holidays["country"], holidays["subdivision"], holidays["policy"]) == (
        "DE",
        "BE",
        "shift",
    )
    assert response.json()["original"]["holidays"]["country"] == ""
    assert wrong.status_code == 400
    assert "country" in wrong.json()["holidays"]


def test_the_public_pages_of_the_two_halves_link_each_other(make_series: MakeSeries) -> None:
    series, continuation = split(make_series, name="Salsa (advanced)")
    client = Client()

    assert page_links(client, series) == {
        "continued-by": (f"/series/{continuation.slug}/", "Salsa (advanced)")
    }
    assert page_links(client, continuation) == {"continues": (f"/series/{series.slug}/", "Salsa")}
