"""The split flow on the dojo host (text keys, integer status, a duration, German): the new
name on the trainings and in the feed, holiday settings over the API, the halves' pages and
the original's last date pointing to the continuation's own feed."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.services.splits import split_series
from tests.dojo.conftest import API, MakeSeries, trainings
from tests.support.split_flow import feed_summaries, page_links, parsed_last_date, titles

pytestmark = pytest.mark.django_db


def split(make_series: MakeSeries, **options: object) -> tuple[EventSeries, EventSeries]:
    series = make_series()
    at = rules.to_utc(trainings(series)[3].begins_at)
    return series, split_series(series, at=at, **options).continuation  # type: ignore[arg-type]


def own_feed(series: EventSeries) -> str:
    return "https://dojo.example" + reverse("revel_recurring:series-ical", args=[series.pk])


def test_a_split_changing_only_the_name_gives_the_trainings_and_feed_the_new_name(
    make_series: MakeSeries,
) -> None:
    series, continuation = split(make_series, name="Karate Fortgeschrittene")

    assert len(titles(continuation)) > 3
    assert set(titles(continuation)) == {"Karate Fortgeschrittene"}
    assert set(titles(series)) == {"Karate Anfänger"}
    assert feed_summaries(continuation) == {"Karate Fortgeschrittene"}


def test_the_originals_last_date_points_to_the_continuations_feed(
    make_series: MakeSeries,
) -> None:
    series, continuation = split(make_series, name="Karate Fortgeschrittene")

    last = parsed_last_date(series)

    assert str(last["SUMMARY"]) == "Karate Anfänger"
    assert "Karate Fortgeschrittene" in str(last["DESCRIPTION"])
    assert str(last["URL"]) == own_feed(continuation)


def test_holiday_settings_in_a_split_body_reach_the_continuation(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    body = {
        "at": rules.format_instant(rules.to_utc(trainings(series)[3].begins_at)),
        "holidays": {"country": "DE", "subdivision": "BY"},
    }

    wrong = api.post(
        f"{API}{series.pk}/split/", {**body, "holidays": {"policy": "later"}}, format="json"
    )
    response = api.post(f"{API}{series.pk}/split/", body, format="json")

    assert wrong.status_code == 400
    assert "policy" in wrong.json()["holidays"]
    assert response.status_code == 201, response.json()
    holidays = response.json()["continuation"]["holidays"]
    assert (holidays["country"], holidays["subdivision"], holidays["policy"]) == (
        "DE",
        "BY",
        "skip",
    )
    # No new name: the trainings keep their title.
    continuation = EventSeries.objects.get(pk=response.json()["continuation"]["id"])
    assert set(titles(continuation)) == {"Karate Anfänger"}


def test_the_public_pages_of_the_two_halves_link_each_other(make_series: MakeSeries) -> None:
    series, continuation = split(make_series, name="Karate Fortgeschrittene")
    client = Client()

    assert page_links(client, series) == {
        "continued-by": (f"/series/{continuation.slug}/", "Karate Fortgeschrittene")
    }
    assert page_links(client, continuation) == {
        "continues": (f"/series/{series.slug}/", "Karate Anfänger")
    }
