"""The smallest host (its own field names, default adapter hooks) read by the three consumers.

A reduced set of the scenarios in example_project/tests/test_feed_consumers.py,
so that the shared harness (tests/support/feed_consumers.py) is proven on this host too.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import icalendar
import pytest
from django.test import override_settings

from revel_recurring.ical import calendar_feed, series_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.splits import split_series
from tests.support.factories import VIENNA, make_series, occurrences
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window
from tests.support.split_flow import (
    SITE_ADAPTER,
    consumer_notes,
    consumer_summaries,
    last_start,
)

pytestmark = pytest.mark.django_db

# Years ahead of the wall clock; eight weeks from here cross Vienna's switch of 31 March.
NOW = dt.datetime(2030, 3, 1, 12, 0, tzinfo=VIENNA)
MONDAY = dt.datetime(2030, 3, 4, 10, 0, tzinfo=VIENNA)


def _generated(series: EventSeries) -> EventSeries:
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    return series


def _edited() -> EventSeries:
    """A moved, a renamed and a cancelled Monday."""
    series = _generated(make_series(name="Monday yoga", auto_publish=True, dtstart=MONDAY))
    moved, renamed = occurrences(series)[1:3]
    moved.starts_at += dt.timedelta(hours=2)
    moved.ends_at += dt.timedelta(hours=2)
    moved.save()
    renamed.title = "Monday yoga (outdoors)"
    renamed.save()
    cancel_occurrence(series, occurrences(series)[4].starts_at, now=NOW)
    return series


def _off_slot() -> EventSeries:
    # From a Tuesday on a Monday/Wednesday rule: the Tuesday is no date.
    return _generated(
        make_series(
            name="Pilates",
            auto_publish=True,
            dtstart=MONDAY + dt.timedelta(days=1),
            weekdays=[0, 2],
        )
    )


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_feeds_expand_to_the_shown_rows(consumer: str) -> None:
    edited, off_slot = _edited(), _off_slot()
    (start, end), (other_start, other_end) = window(edited), window(off_slot)
    both = (min(start, other_start), min(end, other_end))
    expected = [
        shown_instances(edited),
        shown_instances(off_slot),
        sorted(shown_instances(edited) + shown_instances(off_slot)),
    ]
    assert all(expected)
    assert all(both[0] <= instant < both[1] for instant, _ in expected[2])

    read = expand_many(
        consumer,
        [
            (series_feed(edited).body, start, end),
            (series_feed(off_slot).body, other_start, other_end),
            (calendar_feed([edited, off_slot], name="Studio 2").body, *both),
        ],
    )

    assert read == expected


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("recurrence", [{}, {"weekdays": [3]}], ids=["same-rule", "to-thursday"])
def test_the_halves_of_a_split_expand_to_their_rows_none_lost_or_doubled(
    consumer: str, recurrence: dict[str, list[int]]
) -> None:
    series = _generated(make_series(name="Monday yoga", auto_publish=True, dtstart=MONDAY))
    before = {event.starts_at for event in occurrences(series)}
    # 1 April 2030, the first Monday after Vienna's switch to summer time.
    at = MONDAY + dt.timedelta(weeks=4)
    result = split_series(series, at=at, recurrence=recurrence, now=NOW)
    continuation = result.continuation
    # The original's VEVENT ends with its new UNTIL (the last date before `at`),
    # and `at` is not merely hidden from it by an EXDATE.
    master = next(
        event
        for event in icalendar.Calendar.from_ical(series_feed(series).body).walk("VEVENT")
        if "RRULE" in event
    )
    assert master["RRULE"]["UNTIL"] == [result.last_before]  # type: ignore[index]
    exdates = master.get("EXDATE", [])
    hidden = {
        d.dt for line in (exdates if isinstance(exdates, list) else [exdates]) for d in line.dts
    }
    assert at not in hidden
    halves = [series, continuation]
    spans = [window(half) for half in halves]
    both = (min(span[0] for span in spans), min(span[1] for span in spans))
    expected = [shown_instances(half) for half in halves]
    union = sorted(expected[0] + expected[1])
    # Every date of the original is still shown once: the Mondays from `at` on
    # moved (drift of a Thursday continuation, never cancelled).
    assert before <= {instant for instant, _ in union}
    assert len({instant for instant, _ in union}) == len(union)

    read = expand_many(
        consumer,
        [
            (series_feed(series).body, *spans[0]),
            (series_feed(continuation).body, *spans[1]),
            (calendar_feed(halves, name="Studio 2").body, *both),
        ],
    )

    assert read == [*expected, [item for item in union if both[0] <= item[0] < both[1]]]
    assert b"RELATED-TO;RELTYPE=SIBLING:revel-recurring-series-" in series_feed(continuation).body


def _extra_dates() -> EventSeries:
    """A COUNT rule with extra dates on top: one before its first date, one on each side
    of Vienna's switch to summer time (31 March), one cancelled, one moved by hand."""
    series = _generated(
        make_series(
            name="Monday yoga",
            auto_publish=True,
            dtstart=MONDAY + dt.timedelta(days=1),
            weekdays=[0],
            count=4,
        )
    )
    wednesday = dt.datetime(2030, 3, 6, 18, 30, tzinfo=VIENNA)
    for week in (0, 3, 4, 5, 6, 7):
        add_extra_date(series, wednesday + dt.timedelta(weeks=week), now=NOW)
    cancel_occurrence(series, wednesday + dt.timedelta(weeks=5), now=NOW)
    moved = next(
        e for e in occurrences(series) if e.recurrence_id == wednesday + dt.timedelta(weeks=6)
    )
    moved.starts_at += dt.timedelta(hours=1)
    moved.ends_at += dt.timedelta(hours=1)
    moved.save()
    series.refresh_from_db()
    return series


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_extra_dates_expand_to_their_rows_counted_on_top_of_count(consumer: str) -> None:
    series = _extra_dates()
    shown = shown_instances(series)
    # Four Mondays (COUNT=4) and five of the six extra dates (one is cancelled).
    assert len(shown) == 9
    assert {instant.astimezone(VIENNA).hour for instant, _ in shown} == {10, 18, 19}
    body = series_feed(series).body
    assert b"RDATE;TZID=Europe/Vienna:20300306T183000" in body
    start, end = window(series)

    assert expand_many(consumer, [(body, start, end + dt.timedelta(days=365))]) == [shown]


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_extra_dates_left_after_the_rules_last_shown_date_are_single_events(
    consumer: str, settings: Any
) -> None:
    series = _generated(make_series(name="Monday yoga", auto_publish=True, dtstart=MONDAY, count=1))
    for day in (20, 27):
        add_extra_date(series, dt.datetime(2030, 3, day, 18, 30, tzinfo=VIENNA), now=NOW)
    # The rule's one date (4 March) is older than the feed shows.
    settings.REVEL_RECURRING_FEED_PAST_DAYS = 1
    now = dt.datetime(2030, 3, 15, 12, 0, tzinfo=VIENNA)
    body = series_feed(series, now=now).body
    assert b"RRULE" not in body
    assert body.count(b"BEGIN:VEVENT") == 2
    shown = [item for item in shown_instances(series) if item[0] >= now - dt.timedelta(days=1)]
    assert len(shown) == 2
    start, end = window(series)

    assert expand_many(consumer, [(body, start, end + dt.timedelta(days=365))]) == [shown]


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_a_continuation_renamed_alone_shows_its_dates_under_the_new_name(consumer: str) -> None:
    series = _generated(make_series(name="Monday yoga", auto_publish=True, dtstart=MONDAY))

    continuation = split_series(
        series, at=MONDAY + dt.timedelta(weeks=4), name="Evening yoga", now=NOW
    ).continuation

    assert consumer_summaries(consumer, continuation) == {"Evening yoga"}


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_the_originals_last_date_shows_where_the_series_continues(consumer: str) -> None:
    series = _generated(make_series(name="Monday yoga", auto_publish=True, dtstart=MONDAY))
    at = MONDAY + dt.timedelta(weeks=4)
    continuation = split_series(series, at=at, name="Evening yoga", now=NOW).continuation
    page = f"https://yoga.example/series/{continuation.slug}/"

    with override_settings(REVEL_RECURRING_ADAPTER=SITE_ADAPTER):
        read = consumer_notes(consumer, series)

    assert read[-1][0] == last_start(series) == at - dt.timedelta(weeks=1)
    assert read[-1][1] == "Monday yoga"
    assert read[-1][2].startswith("This series continues as Evening yoga from Mon 1 Apr 2030")
    assert read[-1][2].endswith(f"{page}calendar.ics")
    assert read[-1][3] == page
    own = ("", f"https://yoga.example/series/{series.slug}/")
    assert [note[2:] for note in read[:-1]] == [own] * (len(read) - 1)
