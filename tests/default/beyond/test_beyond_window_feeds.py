"""What the feeds say of dates beyond the window (decision 0063), read by three consumers.

A series whose feed runs on (auto-publish, no holiday that moves or skips dates)
shows every later date through its RRULE, and a row materialized ahead stands once
among them. A series whose RRULE ends at the cursor (holidays that skip dates here)
shows no later date of the rule, but the row materialized ahead, alone.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from rest_framework.test import APIClient

from revel_recurring.beyond_window import dates_beyond_window
from revel_recurring.models import EventSeries
from revel_recurring.services.beyond_window import materialize_date
from tests.default.beyond.test_beyond_window import _series
from tests.support.api import client, user_with
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"


@pytest.fixture
def api(django_user_model: Any) -> APIClient:
    return client(
        user_with(django_user_model, "organiser", "change_eventseries", "view_eventseries")
    )


def _ahead(series: EventSeries) -> tuple[Any, list[dt.datetime]]:
    """A date 20 weeks on materialized; the later dates before it (none of them rows)."""
    later = dates_beyond_window(series, limit=20)
    target = later[-1]
    row = materialize_date(series, target.start).occurrence
    return row, [date.start for date in later[:-1]]


def _expanded(api: APIClient, series: EventSeries, until: dt.datetime) -> list[list[Any]]:
    start, _ = window(series)
    body = b"".join(api.get(f"{API}{series.pk}/ical/"))
    return [
        [instant for instant, _ in found]
        for found in (
            expand_many(consumer, [(body, start, until + dt.timedelta(seconds=1))])[0]
            for consumer in CONSUMERS
        )
    ]


def test_a_running_feed_shows_the_later_dates_and_the_row_ahead_once(api: APIClient) -> None:
    series = _series(auto_publish=True)
    row, between = _ahead(series)

    expected = sorted(
        [instant for instant, _ in shown_instances(series)]
        + [instant.astimezone(dt.UTC) for instant in between]
    )
    for found in _expanded(api, series, row.occurrence_start):
        assert found == expected
        assert found.count(row.occurrence_start) == 1


def test_a_feed_ending_at_the_cursor_shows_the_row_ahead_alone(api: APIClient) -> None:
    series = _series(auto_publish=True)
    series.holiday_country, series.holiday_policy = "AT", "skip"
    series.save(update_fields=["holiday_country", "holiday_policy"])
    row, between = _ahead(EventSeries.objects.get(pk=series.pk))

    expected = [instant for instant, _ in shown_instances(series)]
    assert row.occurrence_start in expected
    for found in _expanded(api, series, row.occurrence_start):
        assert found == expected
        assert not set(found) & {instant.astimezone(dt.UTC) for instant in between}
