"""Holiday data updates (services.holiday_data): what a newer ``holidays`` release changes.

Every series here is generated with the real Austrian calendar, then a release
knowing other holidays is simulated (tests/support/holidays.py). The system check
W002 is in test_checks.py, the command in test_holidays_command.py, the studio
host (UUID keys, Booking rows) in tests/studio/holidays/test_holiday_data.py.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.holiday_rules import data_version
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.holiday_data import (
    apply_holiday_data,
    series_changed_by_holiday_data,
)
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NOW, VIENNA, fresh, monday, occurrences, weekly_series
from tests.support.holidays import OLD_RELEASE, TEST_DAY, generated_with, newer_holiday_data

pytestmark = pytest.mark.django_db

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED
# The window of the factories' series (from NOW, 8 weeks): Mondays 2 March to
# 20 April 2026; Easter Monday, 6 April, is an Austrian holiday.
EASTER_MONDAY = dt.date(2026, 4, 6)
APRIL_13 = dt.date(2026, 4, 13)
APRIL_20 = dt.date(2026, 4, 20)


def holiday_series(policy: str = "skip", **options: Any) -> EventSeries:
    return weekly_series(
        holidays={"country": "AT", "subdivision": "", "categories": [], "policy": policy},
        **options,
    )


def on(day: dt.date, series: EventSeries) -> Event:
    return next(e for e in occurrences(series) if e.starts_at.astimezone(VIENNA).date() == day)


def book(event: Event, places: int = 2) -> None:
    Seat.objects.create(event=event, label="Row 1", quantity=10, booked=places)


def test_generation_records_the_installed_release() -> None:
    series = holiday_series()

    assert fresh(series).holidays_version == data_version()
    assert EASTER_MONDAY not in {e.starts_at.astimezone(VIENNA).date() for e in occurrences(series)}


def test_new_holiday_drifts_the_generated_dates_on_it_and_apply_keeps_the_booked_one() -> None:
    series = holiday_series()
    unbooked, booked = on(APRIL_13, series), on(APRIL_20, series)
    book(booked)
    generated_with(series)

    with newer_holiday_data([APRIL_13, APRIL_20]):
        [change] = series_changed_by_holiday_data(now=NOW)

        assert change.series == series
        assert (change.stored_version, change.installed_version) == (OLD_RELEASE, data_version())
        assert [(d.occurrence.id, d.holiday, d.occurrence.bookings) for d in change.drift] == [
            (unbooked.pk, TEST_DAY, 0),
            (booked.pk, TEST_DAY, 2),
        ]
        assert all(d.skipped for d in change.drift)
        assert change.appearing == ()
        assert change.cancellable == (unbooked.pk, booked.pk)

        done = apply_holiday_data(series, now=NOW)

        assert done is not None
        assert done.applied.cancelled == [unbooked.pk]
        assert [date.id for date in done.applied.kept_booked] == [booked.pk]
        assert Event.objects.get(pk=unbooked.pk).state == CALLED_OFF
        assert Event.objects.get(pk=booked.pk).state != CALLED_OFF
        assert fresh(series).holidays_version == data_version()
        assert series_changed_by_holiday_data(now=NOW) == []


def test_removed_holiday_makes_its_date_appear_and_apply_creates_it() -> None:
    series = holiday_series()
    generated_with(series)
    easter = monday(5)
    assert easter.astimezone(VIENNA).date() == EASTER_MONDAY

    with newer_holiday_data(removed=[EASTER_MONDAY]):
        [change] = series_changed_by_holiday_data(now=NOW)

        assert change.drift == ()
        assert [date.start for date in change.appearing] == [easter]
        done = apply_holiday_data(series, now=NOW)

    assert done is not None
    assert [event.starts_at for event in done.applied.created] == [easter]
    assert on(EASTER_MONDAY, series).recurrence_id == easter


def test_shifted_series_lists_the_date_that_moves_and_leaves_it_where_it_is() -> None:
    series = holiday_series("shift")
    row = on(APRIL_13, series)
    generated_with(series)

    with newer_holiday_data([APRIL_13]):
        [change] = series_changed_by_holiday_data(now=NOW)

        [moving] = change.drift
        assert moving.occurrence.id == row.pk
        assert moving.holiday == TEST_DAY
        assert moving.moves_to == monday(6) + dt.timedelta(days=1)
        assert moving.moves_to_display == "Tue 14 Apr 2026 10:00 (Europe/Vienna)"
        assert change.cancellable == ()
        done = apply_holiday_data(series, now=NOW)

    assert done is not None
    assert done.applied.cancelled == []
    assert Event.objects.get(pk=row.pk).state != CALLED_OFF
    assert fresh(series).holidays_version == data_version()


def test_series_generated_with_the_installed_release_are_not_listed() -> None:
    series = holiday_series()

    with newer_holiday_data([APRIL_13]):
        assert series_changed_by_holiday_data(now=NOW) == []
        assert apply_holiday_data(series, now=NOW) is None


def test_older_release_without_date_changes_is_listed_and_apply_records_the_installed_one() -> None:
    series = holiday_series()
    rows = occurrences(series)
    generated_with(series)

    [change] = series_changed_by_holiday_data(now=NOW)

    assert not change.changes_dates
    done = apply_holiday_data(series, now=NOW)
    assert done is not None
    assert done.applied.cancelled == []
    assert done.applied.created == []
    assert occurrences(series) == rows
    assert fresh(series).holidays_version == data_version()


def test_the_difference_is_the_plan_of_no_change() -> None:
    series = holiday_series()
    generated_with(series)

    with newer_holiday_data([APRIL_13], removed=[EASTER_MONDAY]):
        [change] = series_changed_by_holiday_data(now=NOW)
        plan = plan_recurrence_change(series, {}, now=NOW)

        assert plan == change.plan
        assert plan.changed == frozenset()
        assert plan.cursor_reset
        assert [row.id for row in plan.drift] == [on(APRIL_13, series).pk]
        assert [date.start for date in plan.new] == [monday(5)]
        applied = apply_recurrence_plan(series, plan.hash, {}, cancel_drift="unbooked", now=NOW)

    assert applied.cursor_reset
    assert applied.cancelled == [on(APRIL_13, series).pk]
    assert [event.starts_at for event in applied.created] == [monday(5)]
    assert fresh(series).holidays_version == data_version()


def test_drift_of_a_cadence_change_is_neither_listed_nor_cancelled() -> None:
    series = holiday_series()
    # Tuesdays from now on, the Monday dates kept (drift the organiser left).
    plan = plan_recurrence_change(series, {"weekdays": [1]}, now=NOW)
    apply_recurrence_plan(series, plan.hash, {"weekdays": [1]}, now=NOW)
    mondays = [e.pk for e in occurrences(series) if e.starts_at.astimezone(VIENNA).weekday() == 0]
    generated_with(series)

    with newer_holiday_data([APRIL_13 + dt.timedelta(days=1)]):
        [change] = series_changed_by_holiday_data(now=NOW)
        assert {row.id for row in change.plan.drift} >= set(mondays)
        assert [d.occurrence.local.date() for d in change.drift] == [dt.date(2026, 4, 14)]
        done = apply_holiday_data(series, now=NOW)

    assert done is not None
    assert len(done.applied.cancelled) == 1
    assert all(Event.objects.get(pk=pk).state != CALLED_OFF for pk in mondays)


def test_a_run_that_adds_dates_keeps_the_release_the_earlier_dates_were_placed_with() -> None:
    series = holiday_series()
    generated_with(series)

    generate_series_events(series, now=NOW + dt.timedelta(weeks=2))

    assert fresh(series).last_generated_until > NOW + dt.timedelta(weeks=9)
    assert fresh(series).holidays_version == OLD_RELEASE


def test_queries_do_not_grow_with_the_number_of_series() -> None:
    def queries(count: int) -> int:
        for number in range(count):
            series = holiday_series(name=f"Class {number}")
            book(on(APRIL_20, series))
            generated_with(series)
        with (
            newer_holiday_data([APRIL_13, APRIL_20]),
            CaptureQueriesContext(connection) as captured,
        ):
            changes = series_changed_by_holiday_data(now=NOW)
        assert all(len(change.drift) == 2 for change in changes)
        return len(captured)

    few = queries(1)
    many = queries(3)

    assert few == many == 4  # series, rows and templates, pending exdates, bookings
