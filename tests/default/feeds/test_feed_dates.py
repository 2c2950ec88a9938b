"""A feed's Last-Modified is a whole second that has ended: a date-only poll never misses a change.

An HTTP date counts seconds. A feed sent within the second of its last change
could change again in that second without its date moving; answered 304 by that
date, a calendar app would keep the stale copy for good.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import icalendar
import pytest
import recurring_ical_events
from rest_framework.test import APIClient

from revel_recurring.ical.responses import last_modified_header
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from tests.support.api import client, next_tuesday, user_with
from tests.support.factories import make_series, occurrences
from tests.support.http_dates import (
    after_this_second,
    restore_for_another_attempt,
    within_one_second,
)


def shown(body: bytes, *, around: dt.datetime) -> set[dt.datetime]:
    """The starts a calendar app expands from ``body`` within three weeks of ``around``."""
    calendar = icalendar.Calendar.from_ical(body)
    window = (around - dt.timedelta(days=8), around + dt.timedelta(days=8))
    return {event["DTSTART"].dt for event in recurring_ical_events.of(calendar).between(*window)}


TEN = dt.datetime(2027, 3, 1, 10, 0, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("changed", "now", "sent"),
    [
        # The second of the change has ended: its own date.
        (TEN + dt.timedelta(milliseconds=400), TEN + dt.timedelta(seconds=1), "10:00:00"),
        (TEN + dt.timedelta(milliseconds=400), TEN + dt.timedelta(hours=1), "10:00:00"),
        # Still within it: the second before, which any later change passes.
        (TEN + dt.timedelta(milliseconds=400), TEN + dt.timedelta(milliseconds=600), "09:59:59"),
        (TEN, TEN, "09:59:59"),
        # Later than the response (another server's clock): never a date in the future.
        (TEN + dt.timedelta(minutes=5), TEN + dt.timedelta(milliseconds=600), "09:59:59"),
    ],
)
def test_the_date_sent_is_a_second_that_has_ended(
    changed: dt.datetime, now: dt.datetime, sent: str
) -> None:
    assert last_modified_header(changed, now=now) == f"Mon, 01 Mar 2027 {sent} GMT"


def test_a_feed_without_a_change_sends_no_date() -> None:
    assert last_modified_header(None, now=TEN) is None


@pytest.mark.django_db
@pytest.mark.urls("tests.api_urls")
def test_the_series_feed_changed_within_the_second_of_a_poll_is_seen_by_date(
    django_user_model: Any,
) -> None:
    series = make_series(dtstart=next_tuesday(), window_weeks=4, auto_publish=True)
    generate_series_events(series)
    first, second, third = (event.starts_at for event in occurrences(series)[:3])
    api: APIClient = client(user_with(django_user_model, "viewer", "view_eventseries"))
    feed = f"/api/recurring/series/{series.pk}/ical/"

    def poll_between_two_changes() -> str:
        restore_for_another_attempt(series, first, second)
        cancel_occurrence(series, first)
        polled = api.get(feed)["Last-Modified"]
        cancel_occurrence(series, second)
        return str(polled)

    polled = within_one_second(poll_between_two_changes)
    again = api.get(feed, HTTP_IF_MODIFIED_SINCE=polled)

    assert again.status_code == 200
    assert shown(again.content, around=second) == {third}
    after_this_second()
    settled = api.get(feed)["Last-Modified"]
    assert api.get(feed, HTTP_IF_MODIFIED_SINCE=settled).status_code == 304


def test_a_feed_file_name_of_any_characters_is_a_plain_ascii_header() -> None:
    """A host's unicode slug names the file through RFC 6266's ``filename*``."""
    from django.test import RequestFactory

    from revel_recurring.ical import CalendarFeed
    from revel_recurring.ical.responses import calendar_response

    feed = CalendarFeed(body=b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", last_modified=TEN, etag='"x"')

    response = calendar_response(RequestFactory().get("/"), feed, filename='lauf-über-"8".ics')

    header = response["Content-Disposition"]
    assert header == "inline; filename*=utf-8''lauf-%C3%BCber-%228%22.ics"
    assert header.isascii()
