"""Names and titles are one line: control characters are refused everywhere they come in.

A line feed in a series' name once made every feed of the series a 500 (icalendar
refused the unescaped line). Every name-like input refuses control characters,
keyed by the field (services: ``ValidationError``; API: 400; admin: a form error),
and a feed still answers for whatever is stored already, read by the three
calendar consumers.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import icalendar
import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.adapter import DefaultRecurringAdapter
from revel_recurring.ical import calendar_feed, series_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.editing import update_series
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.propagation import update_template
from revel_recurring.services.splits import split_series
from revel_recurring.validators import validate_single_line
from tests.hosts.testapp.models import Event
from tests.support.admin import change_url
from tests.support.api import client, next_tuesday, user_with
from tests.support.factories import VIENNA, make_series, occurrences
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window
from tests.support.forms import form_data, form_errors, split_data, split_url

pytestmark = pytest.mark.django_db
API = "/api/recurring/series/"
# Years ahead of the wall clock, so the generated dates are all to come.
NOW = dt.datetime(2030, 3, 1, 12, 0, tzinfo=VIENNA)
MONDAY = dt.datetime(2030, 3, 4, 10, 0, tzinfo=VIENNA)

# A line feed (the header injection of the report), a carriage return, a tab, a
# NUL, DEL, a C1 control and the Unicode line separator.
CONTROLS = ["\n", "\r", "\t", "\x00", "\x7f", "\x85", "\u2028"]


def named(char: str) -> str:
    return f"Evening Run{char}X-INJECTED:1"


@pytest.mark.parametrize("char", CONTROLS)
def test_the_validator_refuses_each_control_character(char: str) -> None:
    with pytest.raises(ValidationError) as caught:
        validate_single_line(named(char))
    assert f"U+{ord(char):04X}" in caught.value.messages[0]


def test_the_validator_accepts_any_printable_name() -> None:
    for name in ("Yoga", "Yoga für Anfänger · Level 2", "ヨガ", "Tanz 💃", "A  B"):
        validate_single_line(name)


def _create(**options: Any) -> EventSeries:
    values: dict[str, Any] = {
        "name": "Yoga",
        "rule_data": {"frequency": "WEEKLY", "dtstart": MONDAY, "timezone": "Europe/Vienna"},
        "template_data": {"title": "Yoga", "ends_at": MONDAY + dt.timedelta(hours=1)},
        "generate": False,
    }
    return create_recurring_series(**{**values, **options})


@pytest.mark.parametrize("char", ["\n", "\x85"])
def test_services_refuse_control_characters_in_names_and_titles_keyed_by_field(
    char: str,
) -> None:
    with pytest.raises(ValidationError) as caught:
        _create(name=named(char))
    assert list(caught.value.message_dict) == ["name"]
    with pytest.raises(ValidationError) as caught:
        _create(template_data={"title": named(char)})
    assert list(caught.value.message_dict) == ["title"]
    assert not EventSeries.objects.exists()

    series = make_series(dtstart=MONDAY)
    generate_series_events(series, now=NOW)
    with pytest.raises(ValidationError) as caught:
        update_series(series, name=named(char))
    assert list(caught.value.message_dict) == ["name"]
    with pytest.raises(ValidationError) as caught:
        update_template(series, {"venue": named(char)}, propagate="all_future", now=NOW)
    assert list(caught.value.message_dict) == ["venue"]
    at = occurrences(series)[2].starts_at
    for options, key in (
        ({"name": named(char)}, "name"),
        ({"template": {"title": "A\nB"}}, "title"),
    ):
        with pytest.raises(ValidationError) as caught:
            split_series(series, at=at, now=NOW, **options)
        assert list(caught.value.message_dict) == [key]
    assert EventSeries.objects.count() == 1
    assert EventSeries.objects.get().name == "Monday yoga"
    assert {event.title for event in Event.objects.all()} == {"Monday yoga"}
    assert {event.venue for event in Event.objects.all()} == {"Studio 2"}


def test_a_description_may_keep_its_line_breaks() -> None:
    series = _create(description="Bring a mat.\nWater is provided.")
    assert EventSeries.objects.get(pk=series.pk).description == "Bring a mat.\nWater is provided."


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    return client(
        user_with(
            django_user_model,
            "editor",
            "view_eventseries",
            "add_eventseries",
            "change_eventseries",
        )
    )


@pytest.mark.urls("tests.api_urls")
def test_the_api_answers_400_naming_the_field_for_every_name_like_input(editor: APIClient) -> None:
    start = next_tuesday()
    body = {
        "name": "Yoga",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": start.isoformat(),
            "timezone": "Europe/Vienna",
        },
        "template": {"title": "Yoga", "ends_at": (start + dt.timedelta(hours=1)).isoformat()},
    }
    refused = editor.post(API, {**body, "name": named("\n")}, format="json")
    assert refused.status_code == 400, refused.json()
    assert list(refused.json()) == ["name"], refused.json()
    assert "U+000A" in refused.json()["name"][0]
    refused = editor.post(
        API,
        {**body, "template": {**body["template"], "title": named("\r")}},  # type: ignore[dict-item]
        format="json",
    )
    assert refused.status_code == 400, refused.json()
    assert list(refused.json()) == ["template"]
    assert list(refused.json()["template"]) == ["title"]
    assert not EventSeries.objects.exists()

    created = editor.post(API, body, format="json")
    assert created.status_code == 201, created.json()
    series = EventSeries.objects.get()
    generate_series_events(series)
    url = f"{API}{series.pk}/"
    for path, sent, key in (
        ("", {"name": named("\n")}, "name"),
        ("template/", {"title": named("\t")}, "title"),
    ):
        response = editor.patch(url + path, sent, format="json")
        assert response.status_code == 400, (path, response.json())
        assert list(response.json()) == [key], response.json()
    at = occurrences(series)[2].starts_at.astimezone(dt.UTC).isoformat()
    for action in ("split-plan", "split"):
        response = editor.post(url + f"{action}/", {"at": at, "name": named("\n")}, format="json")
        assert response.status_code == 400, response.json()
        assert list(response.json()) == ["name"], response.json()
        response = editor.post(
            url + f"{action}/", {"at": at, "template": {"title": "A\nB"}}, format="json"
        )
        assert response.status_code == 400, response.json()
        assert list(response.json()) == ["template"], response.json()
        assert list(response.json()["template"]) == ["title"], response.json()
    assert EventSeries.objects.count() == 1
    assert EventSeries.objects.get().name == "Yoga"
    assert {event.title for event in Event.objects.all()} == {"Yoga"}


@pytest.mark.urls("tests.urls")
def test_the_admin_shows_a_form_error_under_the_name(admin_client: Any) -> None:
    series = make_series(dtstart=next_tuesday())
    generate_series_events(series, now=timezone.now())
    series.refresh_from_db()
    shown = admin_client.post(change_url(series), form_data(series, name=named("\n")))
    assert shown.status_code == 200
    assert list(form_errors(shown)) == ["name"]
    assert "U+000A" in form_errors(shown)["name"][0]

    at = occurrences(series)[2].starts_at
    shown = admin_client.post(split_url(series), split_data(series, at, name=named("\n")))
    assert shown.status_code == 200
    assert "U+000A" in shown.content.decode()
    assert EventSeries.objects.get().name == "Monday yoga"
    assert EventSeries.objects.count() == 1


def _stored_with_line_breaks() -> EventSeries:
    """A series whose name and titles got line breaks before they were refused."""
    series = make_series(name="Run", auto_publish=True, dtstart=MONDAY)
    generate_series_events(series, now=NOW)
    EventSeries.objects.filter(pk=series.pk).update(name=named("\n"))
    Event.objects.filter(series=series).update(title=named("\n"))
    renamed = occurrences(series)[2]
    Event.objects.filter(pk=renamed.pk).update(title="Run\r\nin the park\x01")
    series.refresh_from_db()
    return series


def test_a_stored_line_break_is_escaped_and_other_controls_dropped_in_the_feed() -> None:
    series = _stored_with_line_breaks()
    body = series_feed(series, now=NOW).body
    calendar = icalendar.Calendar.from_ical(body)
    # icalendar does not unescape an X- property it reads: the escaped line is the proof.
    assert b"\r\nX-WR-CALNAME:Evening Run\\nX-INJECTED:1\r\n" in body
    summaries = {str(event["SUMMARY"]) for event in calendar.walk("VEVENT")}
    assert summaries == {named("\n"), "Run\nin the park"}
    assert b"\nX-INJECTED" not in body
    assert b"\x01" not in body


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_a_stored_line_break_in_a_name_is_read_by_every_consumer(consumer: str) -> None:
    series = _stored_with_line_breaks()
    start, end = window(series)
    renamed = occurrences(series)[2]
    expected = [
        (instant, "Run\nin the park" if instant == renamed.starts_at else summary)
        for instant, summary in shown_instances(series)
    ]
    assert len(expected) == 8
    read = expand_many(
        consumer,
        [
            (series_feed(series, now=NOW).body, start, end),
            (calendar_feed([series], name=named("\r\n"), now=NOW).body, start, end),
        ],
    )
    assert read == [expected, expected]


@pytest.mark.urls("tests.api_urls")
def test_the_api_feed_of_a_stored_line_break_answers_200(editor: APIClient) -> None:
    series = make_series(name="Run", auto_publish=True, dtstart=next_tuesday())
    generate_series_events(series)
    EventSeries.objects.filter(pk=series.pk).update(name=named("\n"))
    response = editor.get(f"{API}{series.pk}/ical/")
    assert response.status_code == 200
    assert b"X-WR-CALNAME:Evening Run\\nX-INJECTED:1" in response.content


class EmptyDetailsAdapter(DefaultRecurringAdapter):
    """A host whose hooks answer None for an event without a description or a place."""

    def get_ical_description(self, event: Any, series: Any) -> Any:
        return None

    def get_ical_location(self, event: Any, series: Any) -> Any:
        return None


def test_a_hook_answering_none_for_a_description_or_location_leaves_the_property_out(
    settings: Any,
) -> None:
    settings.REVEL_RECURRING_ADAPTER = (
        "tests.default.editing.test_control_characters.EmptyDetailsAdapter"
    )
    series = _stored_with_line_breaks()
    calendar = icalendar.Calendar.from_ical(series_feed(series, now=NOW).body)
    events = calendar.walk("VEVENT")

    assert events
    assert all("DESCRIPTION" not in e and "LOCATION" not in e for e in events)
