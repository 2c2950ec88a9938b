"""The iCalendar export of lesson series, parsed back: dates, exdates and UUID-based UIDs."""

from __future__ import annotations

import datetime as dt
from typing import Any

import icalendar
import pytest
import recurring_ical_events
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from revel_recurring.ical import calendar_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from tests.hosts.studio.models import Hall, Lesson
from tests.studio.conftest import API, MakeSeries, fridays_from_the_third_week, lessons
from tests.support.http_dates import (
    after_this_second,
    restore_for_another_attempt,
    within_one_second,
)

pytestmark = pytest.mark.django_db


def expanded(body: bytes, *series: EventSeries) -> dict[dt.datetime, str]:
    """The instances the calendar describes up to the series' cursors: start (UTC) -> summary.

    An open series' rule goes on for ever; only the materialized window is compared.
    """
    calendar = icalendar.Calendar.from_ical(body)
    start = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    end = min(EventSeries.objects.get(pk=s.pk).last_generated_until for s in series)
    return {
        event["DTSTART"].dt.astimezone(dt.UTC): str(event["SUMMARY"])
        for event in recurring_ical_events.of(calendar).between(start, end)
    }


def shown(series: EventSeries) -> dict[dt.datetime, str]:
    """What the feed must show: the series' lessons that are neither drafts nor scrapped."""
    rows = Lesson.objects.filter(series=series, is_template=False, state=Lesson.State.BOOKABLE)
    return {lesson.begins.astimezone(dt.UTC): lesson.title for lesson in rows}


def uids(body: bytes) -> list[str]:
    calendar = icalendar.Calendar.from_ical(body)
    return [str(component["UID"]) for component in calendar.walk("VEVENT")]


def test_series_feed_reads_back_as_the_bookable_lessons(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    first, second = lessons(series)[:2]
    cancel_occurrence(series, first.begins)
    second.title = "Salsa (guest teacher)"
    second.save()

    response = api.get(f"{API}{series.pk}/ical/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    body = b"".join(response)
    assert expanded(body, series) == shown(series)
    assert expanded(body, series)[second.begins.astimezone(dt.UTC)] == "Salsa (guest teacher)"
    assert first.begins.astimezone(dt.UTC) not in expanded(body, series)
    assert set(uids(body)) == {f"revel-recurring-series-{series.pk}@studio.example"}


def test_drifted_lessons_are_exported_on_their_own_under_their_uuid(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    thursdays = fridays_from_the_third_week(series)
    generate_series_events(series)

    body = b"".join(api.get(f"{API}{series.pk}/ical/"))

    standalone = {uid for uid in uids(body) if uid.startswith("revel-recurring-event-")}
    assert standalone == {f"revel-recurring-event-{t.pk}@studio.example" for t in thursdays}
    assert {lesson.begins.weekday() for lesson in lessons(series)} == {3, 4}
    assert expanded(body, series) == shown(series)


def test_school_feed_holds_every_series_of_the_school(client: Any, make_series: MakeSeries) -> None:
    salsa = make_series()
    tango = make_series(name="Tango", weekdays=(1,))

    response = client.get("/schools/salsa/calendar.ics")

    assert response.status_code == 200
    body = b"".join(response)
    assert expanded(body, salsa, tango) == {**shown(salsa), **shown(tango)}
    assert client.get("/schools/nowhere/calendar.ics").status_code == 404


def test_api_feed_of_a_deleted_series_empties_the_calendar(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    url = f"{API}{series.pk}/ical/"
    before = api.get(url)
    assert expanded(before.content, series)

    assert api.delete(f"{API}{series.pk}/").status_code == 204
    after = api.get(url)

    assert after.status_code == 200
    assert icalendar.Calendar.from_ical(after.content).walk("VEVENT") == []
    assert api.get(url, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 200
    assert api.get(url, HTTP_IF_NONE_MATCH=after["ETag"]).status_code == 304


def _feed_queries(series: EventSeries) -> tuple[int, bytes]:
    with CaptureQueriesContext(connection) as queries:
        body = calendar_feed([EventSeries.objects.get(pk=series.pk)], name="Studio").body
    return len(queries.captured_queries), body


def test_locations_from_a_related_table_are_loaded_once_per_feed(
    make_series: MakeSeries,
) -> None:
    hall = Hall.objects.create(name="Big Hall", street="Main Street 1")
    short = make_series(name="Short", generation_window_weeks=2)
    long = make_series(name="Long", generation_window_weeks=30)
    Lesson.objects.filter(series__in=[short, long]).update(hall=hall)
    # Each lesson its own location, so that each is exported on its own.
    for lesson in Lesson.objects.filter(series__in=[short, long], is_template=False):
        lesson.room = f"Room {lesson.begins:%d%m}"
        lesson.save()
    assert len(lessons(long)) > 10 * len(lessons(short)) // 2

    short_queries, _ = _feed_queries(short)
    long_queries, body = _feed_queries(long)

    assert long_queries == short_queries
    locations = {
        str(event["LOCATION"]) for event in icalendar.Calendar.from_ical(body).walk("VEVENT")
    }
    assert {f"Room {lesson.begins:%d%m} / Big Hall, Main Street 1" for lesson in lessons(long)} <= (
        locations
    )


def test_a_school_feed_changed_within_the_second_of_a_poll_is_seen_by_date(
    make_series: MakeSeries,
) -> None:
    """Cancelled, polled and cancelled again within one second: the date-only poll gets 200."""
    series = make_series(name="Salsa")
    first, second = lessons(series)[:2]
    client = APIClient()

    def poll_between_two_changes() -> str:
        restore_for_another_attempt(series, first.begins, second.begins)
        cancel_occurrence(series, first.begins)
        polled = client.get("/schools/salsa/calendar.ics")["Last-Modified"]
        cancel_occurrence(series, second.begins)
        return str(polled)

    polled = within_one_second(poll_between_two_changes)
    again = client.get("/schools/salsa/calendar.ics", HTTP_IF_MODIFIED_SINCE=polled)

    assert again.status_code == 200
    assert second.begins.astimezone(dt.UTC) not in expanded(again.content, series)
    after_this_second()
    settled = client.get("/schools/salsa/calendar.ics")["Last-Modified"]
    assert (
        client.get("/schools/salsa/calendar.ics", HTTP_IF_MODIFIED_SINCE=settled).status_code == 304
    )
