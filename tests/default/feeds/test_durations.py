"""An event's length: ``occurrence_duration()``, read by the feeds (DTEND) and the API (``end``).

The testapp host has an end field; set to ``RECURRING_END_FIELD = None`` here (a
host without an end) it is given a length by ``RECURRING_DEFAULT_DURATION``, or
none at all. The dojo host (tests/dojo) stores a ``DurationField`` instead.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core import checks
from django.utils import timezone

from revel_recurring.ical import series_feed
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event
from tests.support.api import client, user_with
from tests.support.factories import VIENNA, make_series, occurrences
from tests.support.feed_consumers import CONSUMERS, expand_spans_many, shown_spans, window

pytestmark = pytest.mark.django_db
API = "/api/recurring/series/"
NOW = dt.datetime(2030, 3, 1, 12, 0, tzinfo=VIENNA)
MONDAY = dt.datetime(2030, 3, 4, 10, 0, tzinfo=VIENNA)
HOUR = dt.timedelta(hours=1)


@pytest.fixture
def without_an_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """The testapp host configured as a host without an end field."""
    monkeypatch.setattr(Event, "RECURRING_END_FIELD", None)


def _generated(**options: Any) -> Any:
    now = options.pop("now", NOW)
    series = make_series(auto_publish=True, dtstart=options.pop("dtstart", MONDAY), **options)
    generate_series_events(series, now=now)
    series.refresh_from_db()
    return series


def test_the_length_is_the_end_minus_the_start_else_the_default() -> None:
    event = Event(starts_at=MONDAY, ends_at=MONDAY + 2 * HOUR)
    assert event.occurrence_duration() == 2 * HOUR
    assert event.occurrence_end == MONDAY + 2 * HOUR
    event.ends_at = None
    assert event.occurrence_duration() is None
    assert event.occurrence_end is None


def test_a_host_without_an_end_takes_the_default_length(
    without_an_end: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = Event(starts_at=MONDAY, ends_at=MONDAY + 2 * HOUR)
    assert event.occurrence_duration() is None
    monkeypatch.setattr(Event, "RECURRING_DEFAULT_DURATION", 45 * dt.timedelta(minutes=1))
    assert event.occurrence_duration() == dt.timedelta(minutes=45)
    assert event.occurrence_end == MONDAY + dt.timedelta(minutes=45)


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_every_consumer_reads_each_dates_end(consumer: str) -> None:
    series = _generated()
    longer = occurrences(series)[2]
    longer.ends_at += HOUR
    longer.save()
    expected = shown_spans(series)
    assert {end - start for start, end, _ in expected} == {
        dt.timedelta(minutes=90),
        150 * dt.timedelta(minutes=1),
    }
    (read,) = expand_spans_many(consumer, [(series_feed(series, now=NOW).body, *window(series))])
    assert read == expected


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_a_host_without_an_end_exports_its_default_length(
    consumer: str, without_an_end: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Event, "RECURRING_DEFAULT_DURATION", dt.timedelta(minutes=45))
    series = _generated()
    expected = shown_spans(series)
    assert len(expected) == 8
    assert {end - start for start, end, _ in expected} == {dt.timedelta(minutes=45)}
    body = series_feed(series, now=NOW).body
    assert b"DTEND;TZID=Europe/Vienna:20300304T104500" in body
    (read,) = expand_spans_many(consumer, [(body, *window(series))])
    assert read == expected


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_a_host_with_no_length_at_all_exports_moments(consumer: str, without_an_end: None) -> None:
    series = _generated()
    body = series_feed(series, now=NOW).body
    assert b"DTEND" not in body
    (read,) = expand_spans_many(consumer, [(body, *window(series))])
    assert read == shown_spans(series)
    assert all(start == end for start, end, _ in read)


@pytest.mark.urls("tests.api_urls")
def test_the_api_shows_the_end_from_the_length(
    django_user_model: Any, without_an_end: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = client(user_with(django_user_model, "editor", "view_eventseries"))
    start = (timezone.now() + dt.timedelta(days=1)).astimezone(VIENNA)
    series = _generated(
        dtstart=start.replace(hour=10, minute=0, second=0, microsecond=0),
        now=timezone.now(),
    )
    rows = editor.get(f"{API}{series.pk}/occurrences/").json()["results"]
    assert rows
    assert {row["end"] for row in rows} == {None}
    monkeypatch.setattr(Event, "RECURRING_DEFAULT_DURATION", dt.timedelta(minutes=45))
    rows = editor.get(f"{API}{series.pk}/occurrences/").json()["results"]
    for row in rows:
        begins = dt.datetime.fromisoformat(row["start"])
        assert dt.datetime.fromisoformat(row["end"]) - begins == dt.timedelta(minutes=45)
    template = editor.get(f"{API}{series.pk}/").json()["template"]
    begins = dt.datetime.fromisoformat(template["start"])
    assert dt.datetime.fromisoformat(template["end"]) - begins == dt.timedelta(minutes=45)


def test_a_duration_field_that_is_no_duration_field_is_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from revel_recurring.checks import check_event_model

    monkeypatch.setattr(Event, "RECURRING_DURATION_FIELD", "venue")
    found = [m for m in check_event_model(None) if m.id == "revel_recurring.E011"]
    assert len(found) == 1
    assert "RECURRING_DURATION_FIELD names 'venue'" in found[0].msg
    assert found[0].level == checks.ERROR
    monkeypatch.setattr(Event, "RECURRING_DURATION_FIELD", "length")
    assert [m.id for m in check_event_model(None)] == ["revel_recurring.E004"]


@pytest.mark.urls("tests.api_urls")
def test_is_future_keeps_a_date_going_on_for_its_default_length(
    django_user_model: Any, without_an_end: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    editor = client(user_with(django_user_model, "editor", "view_eventseries"))
    now = timezone.now()
    series = _generated(dtstart=(now + dt.timedelta(days=1)).astimezone(VIENNA), now=now)
    going_on = occurrences(series)[0]
    Event.objects.filter(pk=going_on.pk).update(starts_at=now - dt.timedelta(minutes=30))
    url = f"{API}{series.pk}/occurrences/?is_future=true"

    def future_ids() -> set[Any]:
        response = editor.get(url)
        assert response.status_code == 200, response.json()
        return {row["id"] for row in response.json()["results"]}

    assert going_on.pk not in future_ids()  # a moment, 30 minutes ago
    monkeypatch.setattr(Event, "RECURRING_DEFAULT_DURATION", dt.timedelta(minutes=45))
    assert going_on.pk in future_ids()
    assert len(future_ids()) == len(occurrences(series))
