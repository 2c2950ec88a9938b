"""The slot preview of a series with a holiday calendar: skipped and moved dates named in
the active language (upcoming_slots, which the API's preview/ shows)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from revel_recurring.exclusions import ExclusionReason
from revel_recurring.slots import upcoming_slots
from tests.support.factories import VIENNA, weekly_series

pytestmark = pytest.mark.django_db

#: Tuesday 1 December 2026; Tuesday 8 December is the Immaculate Conception in Austria.
DECEMBER = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
IMMACULATE = dt.datetime(2026, 12, 8, 10, 0, tzinfo=VIENNA)


@pytest.mark.parametrize(
    ("language", "name"), [("de", "Mariä Empfängnis"), ("en", "Immaculate Conception")]
)
def test_a_skipped_holiday_is_named_in_the_active_language(language: str, name: str) -> None:
    series = weekly_series(
        weekdays=[1], holidays={"country": "AT", "policy": "skip"}, generate=False, now=DECEMBER
    )

    with translation.override(language):
        slots = upcoming_slots(series, count=3, now=DECEMBER)

    assert [slot.start for slot in slots] == [
        IMMACULATE + dt.timedelta(weeks=w) for w in (-1, 0, 1)
    ]
    skipped = slots[1]
    assert (skipped.state, skipped.excluded_because) == ("excluded", ExclusionReason.HOLIDAY)
    assert (skipped.holiday, skipped.starts_at) == (name, None)
    assert [(slot.holiday, slot.starts_at) for slot in (slots[0], slots[2])] == [
        ("", slots[0].start),
        ("", slots[2].start),
    ]


def test_a_moved_holiday_date_says_where_it_takes_place_without_a_query_more() -> None:
    shifting = weekly_series(
        weekdays=[1], holidays={"country": "AT", "policy": "shift"}, generate=False, now=DECEMBER
    )
    plain = weekly_series(weekdays=[1], generate=False, now=DECEMBER)

    with translation.override("de"), CaptureQueriesContext(connection) as named:
        slots = upcoming_slots(shifting, count=3, now=DECEMBER)
    with CaptureQueriesContext(connection) as unnamed:
        upcoming_slots(plain, count=3, now=DECEMBER)

    moved = slots[1]
    assert (moved.start, moved.state, moved.excluded_because) == (IMMACULATE, "pending", None)
    assert moved.holiday == "Mariä Empfängnis"
    assert moved.starts_at == IMMACULATE + dt.timedelta(days=1)
    assert len(named.captured_queries) == len(unnamed.captured_queries)
