"""A holiday policy change between ``keep`` and ``shift`` moves the rows it concerns.

The weekly Vienna Monday class of tests.support.factories (from 2 March 2026, a 14-week
window from 1 March): Easter Monday (6 April) and Whit Monday (25 May) are
Austrian public holidays. Under ``shift`` their dates take place on the Tuesdays.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from revel_recurring import rules
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from tests.hosts.testapp.models import Seat
from tests.support.factories import NOW, VIENNA, occurrences, weekly_series

pytestmark = pytest.mark.django_db

EASTER_MONDAY = dt.datetime(2026, 4, 6, 10, 0, tzinfo=VIENNA)
WHIT_MONDAY = dt.datetime(2026, 5, 25, 10, 0, tzinfo=VIENNA)
DAY = dt.timedelta(days=1)


def _placed(series) -> dict[dt.datetime, dt.datetime]:
    return {
        rules.to_utc(row.recurrence_id): rules.to_utc(row.starts_at)
        for row in occurrences(series)
        if row.occurrence_status != row.RECURRING_STATUS_CANCELLED
    }


def _switch(series, policy: str, **kwargs):
    changes = {"holidays": {"policy": policy}}
    plan = plan_recurrence_change(series, changes, now=NOW)
    return plan, apply_recurrence_plan(series, plan.hash, changes, now=NOW, **kwargs)


def test_keep_to_shift_moves_the_holiday_rows_to_the_next_day_and_back() -> None:
    series = weekly_series(holidays={"country": "AT", "policy": "keep"}, window_weeks=14)
    before = _placed(series)
    row_ids = {rules.to_utc(r.recurrence_id): r.pk for r in occurrences(series)}

    plan, applied = _switch(series, "shift", cancel_drift="unbooked")

    assert [(row.slot, row.moves_to) for row in plan.drift] == [
        (rules.to_utc(EASTER_MONDAY), rules.to_utc(EASTER_MONDAY + DAY)),
        (rules.to_utc(WHIT_MONDAY), rules.to_utc(WHIT_MONDAY + DAY)),
    ]
    assert plan.new == ()
    assert applied.cancelled == []
    assert applied.created == []
    assert applied.moved == [
        row_ids[rules.to_utc(EASTER_MONDAY)],
        row_ids[rules.to_utc(WHIT_MONDAY)],
    ]
    after = _placed(series)
    assert after == {
        **before,
        rules.to_utc(EASTER_MONDAY): rules.to_utc(EASTER_MONDAY + DAY),
        rules.to_utc(WHIT_MONDAY): rules.to_utc(WHIT_MONDAY + DAY),
    }
    moved = {r.pk: r for r in occurrences(series)}[row_ids[rules.to_utc(EASTER_MONDAY)]]
    assert not moved.is_modified
    assert moved.ends_at - moved.starts_at == dt.timedelta(hours=1, minutes=30)
    assert moved.starts_at - moved.doors_open_at == dt.timedelta(minutes=30)

    _, applied = _switch(series, "keep", cancel_drift="unbooked")

    assert len(applied.moved) == 2
    assert _placed(series) == before


def test_with_the_people_told_a_booked_holiday_row_moves_with_the_shift() -> None:
    """The people told (the default): the booked Easter Monday moves to the Tuesday
    like the free Whit Monday, under ``unbooked``, with its seat."""
    series = weekly_series(holidays={"country": "AT", "policy": "keep"}, window_weeks=14)
    rows = {rules.to_utc(r.recurrence_id): r for r in occurrences(series)}
    booked = rows[rules.to_utc(EASTER_MONDAY)]
    Seat.objects.create(event=booked, label="Mat 1", quantity=1, booked=1)

    plan, applied = _switch(series, "shift", cancel_drift="unbooked")

    assert [row.booked for row in plan.drift] == [True, False]
    assert sorted(applied.moved) == sorted([booked.pk, rows[rules.to_utc(WHIT_MONDAY)].pk])
    assert applied.kept_booked == []
    assert _placed(series)[rules.to_utc(EASTER_MONDAY)] == rules.to_utc(EASTER_MONDAY + DAY)
    assert Seat.objects.filter(event=booked, booked=1).exists(), "the seat moved with its date"


def test_with_nobody_told_a_booked_holiday_row_stays_where_it_is_unless_named(
    settings: Any,
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = weekly_series(holidays={"country": "AT", "policy": "keep"}, window_weeks=14)
    rows = {rules.to_utc(r.recurrence_id): r for r in occurrences(series)}
    booked = rows[rules.to_utc(EASTER_MONDAY)]
    Seat.objects.create(event=booked, label="Mat 1", quantity=1, booked=1)

    plan, applied = _switch(series, "shift", cancel_drift="unbooked")

    assert [row.booked for row in plan.drift] == [True, False]
    assert applied.moved == [rows[rules.to_utc(WHIT_MONDAY)].pk]
    assert [date.start for date in applied.kept_booked] == [rules.to_utc(EASTER_MONDAY)]
    assert _placed(series)[rules.to_utc(EASTER_MONDAY)] == rules.to_utc(EASTER_MONDAY)

    # Named, it moves: the organiser asked for exactly that date.
    plan = plan_recurrence_change(series, {}, now=NOW)
    assert [row.moves_to for row in plan.drift] == [rules.to_utc(EASTER_MONDAY + DAY)]
    applied = apply_recurrence_plan(series, plan.hash, {}, cancel_drift=[booked.pk], now=NOW)
    assert applied.moved == [booked.pk]
    assert applied.kept_booked == []
    assert _placed(series)[rules.to_utc(EASTER_MONDAY)] == rules.to_utc(EASTER_MONDAY + DAY)


def test_a_split_hands_the_holiday_calendar_and_the_kept_holidays_on() -> None:
    from revel_recurring.services.cancellation import restore_occurrence
    from revel_recurring.services.splits import split_series

    series = weekly_series(holidays={"country": "AT", "policy": "skip"}, window_weeks=14)
    restore_occurrence(series, WHIT_MONDAY, now=NOW)
    at = rules.to_utc(dt.datetime(2026, 5, 4, 10, 0, tzinfo=VIENNA))

    result = split_series(series, at=at, recurrence={"weekdays": [0, 3]}, now=NOW)

    continuation = result.continuation
    assert (continuation.holiday_country, continuation.holiday_policy) == ("AT", "skip")
    assert continuation.holidays_kept == ["2026-05-25T08:00:00Z"]
    series.refresh_from_db()
    assert series.holidays_kept == []
    starts = {rules.to_utc(row.starts_at) for row in occurrences(continuation)}
    # Ascension (Thursday 14 May) is skipped on the continuation; Whit Monday kept.
    assert rules.to_utc(dt.datetime(2026, 5, 14, 10, 0, tzinfo=VIENNA)) not in starts
    assert rules.to_utc(WHIT_MONDAY) in starts
    assert rules.to_utc(dt.datetime(2026, 5, 7, 10, 0, tzinfo=VIENNA)) in starts
