"""The API's iCalendar action and rule import on create."""

from __future__ import annotations

from typing import Any

import icalendar
import pytest

from example_project.events.models import Event
from example_project.tests.api.conftest import (
    API,
    ClientFor,
    World,
    create_body,
    tomorrow_evening,
    url,
)
from revel_recurring.models import EventSeries, RecurrenceRule
from tests.support.http_dates import after_this_second

pytestmark = pytest.mark.django_db


def _counts() -> tuple[int, int, int]:
    return RecurrenceRule.objects.count(), EventSeries.objects.count(), Event.objects.count()


def test_ical_action_answers_text_calendar_with_validators(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.member)
    after_this_second()  # a date is a validator once its second has ended

    response = client.get(url(world.a.series, "ical"))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    calendar = icalendar.Calendar.from_ical(response.content)
    master = next(e for e in calendar.walk("VEVENT") if "RRULE" in e)
    assert str(master["SUMMARY"]) == world.a.series.get_template().name
    again = client.get(url(world.a.series, "ical"), HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304
    assert again.content == b""
    since = client.get(
        url(world.a.series, "ical"), HTTP_IF_MODIFIED_SINCE=response["Last-Modified"]
    )
    assert since.status_code == 304


def test_ical_action_follows_the_api_visibility(world: World, client_for: ClientFor) -> None:
    assert client_for(world.stranger).get(url(world.a.series, "ical")).status_code == 404
    assert client_for(world.a.member).get(url(world.b.series, "ical")).status_code == 404
    anonymous = client_for(None).get(url(world.a.series, "ical"))
    assert anonymous.status_code in (401, 403)


def test_ical_action_accepts_a_text_calendar_accept_header_and_errors_stay_json(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.member)

    found = client.get(url(world.a.series, "ical"), HTTP_ACCEPT="text/calendar")
    missing = client.get(url(world.b.series, "ical"), HTTP_ACCEPT="text/calendar")

    assert found.status_code == 200
    assert found.content.startswith(b"BEGIN:VCALENDAR\r\n")
    assert missing.status_code == 404
    assert missing["Content-Type"] == "application/json"
    assert "detail" in missing.json()


def test_create_accepts_a_rule_as_ical(world: World, client_for: ClientFor) -> None:
    start = tomorrow_evening()
    ical = (
        f"DTSTART;TZID=Europe/Vienna:{start:%Y%m%dT%H%M%S}\nRRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=6"
    )
    body = create_body(world.a.organization)
    body["recurrence"] = {"ical": ical}

    response = client_for(world.a.owner).post(API, body, format="json")

    assert response.status_code == 201, response.json()
    rule = EventSeries.objects.get(pk=response.json()["id"]).recurrence_rule
    assert rule is not None
    assert (rule.frequency, rule.monthly_type, rule.nth_weekday, rule.weekday, rule.count) == (
        "MONTHLY",
        "NTH_WEEKDAY",
        -1,
        4,
        6,
    )
    assert rule.timezone == "Europe/Vienna"


@pytest.mark.parametrize(
    ("recurrence", "expected"),
    [
        (
            {
                "ical": "DTSTART;TZID=Europe/Vienna:20300104T183000\n"
                "RRULE:FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=-1"
            },
            {"ical": {"BYSETPOS", "BYDAY"}},
        ),
        ({"ical": "DTSTART:20300104T183000Z\nRRULE:FREQ=HOURLY"}, {"ical": {"FREQ"}}),
        ({"ical": "DTSTART:20300104T183000Z\nRRULE:FREQ=DAILY;COUNT=20000"}, {"ical": {"count"}}),
        ({"ical": 7}, {"ical": None}),
        (
            {"ical": "DTSTART:20300104T183000Z\nRRULE:FREQ=DAILY", "frequency": "DAILY"},
            {"frequency": None},
        ),
        ({"weekdays": [1]}, {"frequency": None, "dtstart": None, "timezone": None}),
    ],
)
def test_create_with_what_ical_cannot_express_is_a_400_under_recurrence_ical(
    world: World, client_for: ClientFor, recurrence: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = _counts()
    body = create_body(world.a.organization)
    body["recurrence"] = recurrence

    response = client_for(world.a.owner).post(API, body, format="json")

    assert response.status_code == 400
    errors = response.json()["recurrence"]
    assert set(errors) == set(expected)
    for key, parts in expected.items():
        if parts is not None:
            assert set(errors[key]) == parts
    assert _counts() == before
