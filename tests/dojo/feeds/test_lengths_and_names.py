"""The dojo's lengths and names: a ``DurationField`` and no end field; one-line titles.

Each training lasts its ``duration`` (``RECURRING_DURATION_FIELD``): the feeds'
DTEND, read with its end by the three consumers, the API's ``end`` and its
``is_future`` filter all come from it. Names and titles with a control character
are refused in German, naming the field, and a line feed stored before that still
exports. An extra date on the clock time of another date (a fall-back night's
repeated hour) is refused in German too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from tests.dojo.conftest import API, MakeSeries, template_of, trainings, utc_text
from tests.hosts.dojo.models import Training
from tests.support.feed_consumers import (
    CONSUMERS,
    expand_many,
    expand_spans_many,
    shown_instances,
    shown_spans,
    window,
)

pytestmark = pytest.mark.django_db
MINUTES_90 = dt.timedelta(minutes=90)


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_every_training_ends_after_its_own_duration_in_every_consumer(
    consumer: str, api: APIClient, client: Any, make_series: MakeSeries
) -> None:
    karate = make_series()
    longer = trainings(karate)[1]
    longer.duration = dt.timedelta(hours=2)
    longer.save()
    expected = shown_spans(karate)
    assert {end - start for start, end, _ in expected} == {MINUTES_90, dt.timedelta(hours=2)}
    start, end = window(karate)

    read = expand_spans_many(
        consumer,
        [
            (b"".join(api.get(f"{API}{karate.pk}/ical/")), start, end),
            (b"".join(client.get("/kalender.ics")), start, end),
        ],
    )

    assert read == [expected, expected]


def test_the_api_shows_each_trainings_end_from_its_duration(
    api: APIClient, make_series: MakeSeries
) -> None:
    karate = make_series()
    longer = trainings(karate)[0]
    longer.duration = dt.timedelta(hours=2)
    longer.save()
    rows = api.get(f"{API}{karate.pk}/occurrences/").json()["results"]
    lengths = {
        row["id"]: dt.datetime.fromisoformat(row["end"]) - dt.datetime.fromisoformat(row["start"])
        for row in rows
    }
    assert lengths.pop(longer.pk) == dt.timedelta(hours=2)
    assert set(lengths.values()) == {MINUTES_90}
    summary = api.get(f"{API}{karate.pk}/").json()["template"]
    assert summary["end"] == utc_text(template_of(karate).begins_at + MINUTES_90)


def test_is_future_keeps_a_training_until_its_duration_is_over(
    api: APIClient, make_series: MakeSeries
) -> None:
    karate = make_series()
    first = trainings(karate)[0]
    url = f"{API}{karate.pk}/occurrences/?is_future=true"
    now = timezone.now()

    def future() -> set[str]:
        response = api.get(url)
        assert response.status_code == 200, response.json()
        return {row["id"] for row in response.json()["results"]}

    Training.objects.filter(pk=first.pk).update(begins_at=now - dt.timedelta(minutes=30))
    assert first.pk in future()
    Training.objects.filter(pk=first.pk).update(begins_at=now - dt.timedelta(minutes=100))
    assert first.pk not in future()


def test_a_negative_duration_is_refused_in_german_naming_the_field(api: APIClient) -> None:
    start = timezone.now() + dt.timedelta(days=2)
    body = {
        "name": "Karate",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": utc_text(start),
            "timezone": "Europe/Berlin",
        },
        "template": {"title": "Karate", "duration": "-01:00:00"},
    }
    response = api.post(API, body, format="json")
    assert response.status_code == 400, response.json()
    assert list(response.json()) == ["template"]
    assert "negativ" in response.json()["template"]["duration"][0]
    assert not EventSeries.objects.exists()


def test_control_characters_in_names_and_titles_are_refused_in_german(
    api: APIClient, make_series: MakeSeries
) -> None:
    karate = make_series()
    url = f"{API}{karate.pk}/"
    at = utc_text(trainings(karate)[2].begins_at)
    for path, sent, keys in (
        ("", {"name": "Karate\nX-INJECTED:1"}, ["name"]),
        ("template/", {"title": "Kar\r\nate"}, ["title"]),
        ("split/", {"at": at, "name": "Karate\tneu"}, ["name"]),
        ("split-plan/", {"at": at, "template": {"title": "Kara\u2028te"}}, ["template", "title"]),
    ):
        call = api.patch if path in ("", "template/") else api.post
        response = call(url + path, sent, format="json")
        assert response.status_code == 400, (path, response.json())
        found: Any = response.json()
        for key in keys:
            assert list(found) == [key], (path, response.json())
            found = found[key]
        assert "Steuerzeichen" in found[0], found
    assert EventSeries.objects.get().name == "Karate Anfänger"
    assert {t.title for t in Training.objects.all()} == {"Karate Anfänger"}


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_a_stored_line_feed_still_exports_to_every_consumer(
    consumer: str, api: APIClient, client: Any, make_series: MakeSeries
) -> None:
    karate = make_series()
    EventSeries.objects.filter(pk=karate.pk).update(name="Karate\nX-INJECTED:1")
    Training.objects.filter(series=karate).update(title="Karate\nX-INJECTED:1")
    karate.refresh_from_db()
    expected = shown_instances(karate)
    assert {summary for _, summary in expected} == {"Karate\nX-INJECTED:1"}
    series_feed = api.get(f"{API}{karate.pk}/ical/")
    dojo_feed = client.get("/kalender.ics")
    assert (series_feed.status_code, dojo_feed.status_code) == (200, 200)
    start, end = window(karate)

    read = expand_many(
        consumer, [(b"".join(series_feed), start, end), (b"".join(dojo_feed), start, end)]
    )

    assert read == [expected, expected]


def test_an_extra_date_on_its_fold_twins_clock_is_refused_in_german(
    api: APIClient, make_series: MakeSeries
) -> None:
    # 02:30 on Berlin's fall-back night happens at 00:30 and at 01:30 UTC.
    karate = make_series()
    url = f"{API}{karate.pk}/add-date/"
    first = api.post(url, {"instant": "2027-10-31T02:30:00+02:00"}, format="json")
    assert first.status_code in (200, 201), first.json()

    twin = api.post(url, {"instant": "2027-10-31T02:30:00+01:00"}, format="json")

    assert twin.status_code == 400, twin.json()
    assert list(twin.json()) == ["instant"]
    assert "dieselbe Uhrzeit" in twin.json()["instant"][0]
    assert EventSeries.objects.get(pk=karate.pk).extra_dates == ["2027-10-31T00:30:00Z"]
