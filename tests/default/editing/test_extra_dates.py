"""Extra dates (RFC 5545 RDATE): dates of a series besides its rule's.

The weekly Vienna series of tests.support.factories: Mondays 10:00 from 2 March 2026,
generated on 1 March for eight weeks (to 26 April), across the switch to summer
time on 29 March.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from revel_recurring import rules
from revel_recurring.exceptions import OccurrenceHasBookingsError
from revel_recurring.ical import rule_from_ical, series_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.extra_dates import add_extra_date, remove_extra_date
from revel_recurring.services.generation import generate_series_events, preview_series_events
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.generation.dispatch import dispatch_due_chunks
from revel_recurring.services.lifecycle import update_series_recurrence
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.splits import split_series
from revel_recurring.signals import extra_date_changed
from revel_recurring.slots import upcoming_slots
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import (
    NOW,
    UTC,
    VIENNA,
    captured,
    fresh,
    monday,
    occurrences,
    weekly_series,
)

pytestmark = pytest.mark.django_db

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED
# A Wednesday evening before Vienna's switch to summer time, and one after.
WEDNESDAY_CET = dt.datetime(2026, 3, 11, 18, 30, tzinfo=VIENNA)
WEDNESDAY_CEST = dt.datetime(2026, 4, 8, 18, 30, tzinfo=VIENNA)
# Beyond the window generated on NOW (26 April).
JUNE = dt.datetime(2026, 6, 17, 18, 30, tzinfo=VIENNA)


def starts(series: EventSeries) -> list[dt.datetime]:
    return [rules.to_utc(event.recurrence_id) for event in occurrences(series)]


def test_an_extra_date_in_the_window_is_generated_at_once_and_only_once(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series()
    with (
        captured(extra_date_changed) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        event = add_extra_date(series, WEDNESDAY_CET, now=NOW)
    assert event is not None
    assert event.recurrence_id == WEDNESDAY_CET
    assert event.starts_at == WEDNESDAY_CET
    assert series.extra_dates == ["2026-03-11T17:30:00Z"]
    assert fresh(series).extra_dates == ["2026-03-11T17:30:00Z"]
    assert [(c["instant"], c["added"], c["occurrence"].pk) for c in calls] == [
        (WEDNESDAY_CET, True, event.pk)
    ]
    # The cursor did not move back: the later Mondays were not created again.
    assert fresh(series).last_generated_until == NOW + dt.timedelta(weeks=8)
    assert starts(series) == sorted([*(monday(week) for week in range(8)), WEDNESDAY_CET])

    generate_series_events(series, now=NOW + dt.timedelta(days=1))
    assert starts(series).count(WEDNESDAY_CET) == 1
    assert preview_series_events(fresh(series), now=NOW) == []


def test_an_extra_date_beyond_the_window_is_due_and_generated_once_in_time() -> None:
    series = weekly_series()
    assert add_extra_date(series, JUNE, now=NOW) is None
    assert JUNE not in starts(series)
    assert JUNE in [slot.start for slot in upcoming_slots(fresh(series), count=20, now=NOW)]
    later = JUNE - dt.timedelta(weeks=7)
    assert JUNE in preview_series_events(fresh(series), now=later)
    generate_series_events(fresh(series), now=later)
    generate_series_events(fresh(series), now=later + dt.timedelta(weeks=1))
    assert starts(series).count(JUNE) == 1


def test_across_dst_an_extra_date_is_an_instant_stored_in_utc_shown_in_the_rule_zone() -> None:
    series = weekly_series()
    add_extra_date(series, WEDNESDAY_CET, now=NOW)
    # Given in another zone: the same instant, stored once in UTC.
    add_extra_date(series, WEDNESDAY_CEST.astimezone(dt.timezone(dt.timedelta(hours=-4))), now=NOW)
    assert fresh(series).extra_dates == ["2026-03-11T17:30:00Z", "2026-04-08T16:30:00Z"]
    rows = [event for event in occurrences(series) if event.starts_at.weekday() == 2]
    assert [event.starts_at.astimezone(VIENNA).time() for event in rows] == [dt.time(18, 30)] * 2
    slots = upcoming_slots(fresh(series), count=12, now=NOW)
    local = {slot.start: slot.local_start for slot in slots}
    assert local[WEDNESDAY_CEST].strftime("%H:%M %Z") == "18:30 CEST"
    assert local[WEDNESDAY_CET].strftime("%H:%M %Z") == "18:30 CET"


def test_count_bounds_the_rules_own_dates_and_extra_dates_come_on_top() -> None:
    series = weekly_series(count=3)
    assert fresh(series).next_due_at is None  # the rule's three dates are generated
    add_extra_date(series, WEDNESDAY_CET, now=NOW)
    add_extra_date(series, JUNE, now=NOW)
    # The dispatcher's due moment: the extra date entering the window.
    assert fresh(series).next_due_at == JUNE - dt.timedelta(weeks=8)
    generate_series_events(fresh(series), now=JUNE - dt.timedelta(weeks=1))
    assert starts(series) == [monday(0), monday(1), WEDNESDAY_CET, monday(2), JUNE]


def test_refused_extra_dates_are_keyed_by_instant() -> None:
    series = weekly_series()
    cases = [
        (dt.datetime(2026, 2, 28, 18, 30, tzinfo=VIENNA), "in the past"),
        (dt.datetime(2026, 3, 1, 12, 0, tzinfo=VIENNA), "before the series' first date"),
        (monday(3), "a date of the series' rule already"),
        (dt.datetime(2026, 3, 11, 18, 30), "aware"),
    ]
    add_extra_date(series, WEDNESDAY_CET, now=NOW)
    cases.append((WEDNESDAY_CET, "an extra date of this series already"))
    for instant, message in cases:
        with pytest.raises(ValidationError) as caught:
            add_extra_date(series, instant, now=NOW)
        assert message in caught.value.message_dict["instant"][0]
    assert fresh(series).extra_dates == ["2026-03-11T17:30:00Z"]


def test_an_extra_date_is_cancelled_and_restored_like_a_rule_date() -> None:
    series = weekly_series()
    event = add_extra_date(series, WEDNESDAY_CEST, now=NOW)
    assert event is not None
    cancelled = cancel_occurrence(series, WEDNESDAY_CEST, now=NOW)
    assert cancelled is not None
    assert cancelled.pk == event.pk
    assert Event.objects.get(pk=event.pk).state == CALLED_OFF
    assert fresh(series).exdates == ["2026-04-08T16:30:00Z"]
    assert fresh(series).extra_dates == ["2026-04-08T16:30:00Z"]

    restored = restore_occurrence(series, WEDNESDAY_CEST, now=NOW)
    assert restored is not None
    assert restored.pk == event.pk
    assert Event.objects.get(pk=event.pk).state != CALLED_OFF
    assert fresh(series).exdates == []


def test_an_extra_date_not_generated_yet_is_cancelled_skipped_and_restored() -> None:
    series = weekly_series()
    add_extra_date(series, JUNE, now=NOW)
    assert cancel_occurrence(series, JUNE, now=NOW) is None
    later = JUNE - dt.timedelta(weeks=7)
    generate_series_events(fresh(series), now=later)
    assert JUNE not in starts(series)
    restore_occurrence(series, JUNE, now=later)
    generate_series_events(fresh(series), now=later)
    assert starts(series).count(JUNE) == 1


def test_an_extra_date_survives_a_cadence_change_and_is_never_drift() -> None:
    series = weekly_series()
    kept = add_extra_date(series, WEDNESDAY_CET, now=NOW)
    add_extra_date(series, WEDNESDAY_CEST, now=NOW)
    plan = plan_recurrence_change(series, {"weekdays": [1]}, now=NOW)
    assert kept is not None
    assert kept.pk in {row.id for row in plan.stay}
    assert kept.pk not in {row.id for row in plan.drift}
    assert len(plan.drift) == 8  # the Mondays

    # The plan's hash reads the extra dates: one added since (beyond the window,
    # so no row and no new date of the plan) is a change all the same.
    add_extra_date(series, JUNE, now=NOW)
    fresh_plan = plan_recurrence_change(series, {"weekdays": [1]}, now=NOW)
    assert fresh_plan.hash != plan.hash

    apply_recurrence_plan(series, fresh_plan.hash, {"weekdays": [1]}, now=NOW)
    series = fresh(series)
    assert series.extra_date_instants == {WEDNESDAY_CET, WEDNESDAY_CEST, JUNE}
    assert kept.pk not in detect_cadence_drift(series, now=NOW)
    assert Event.objects.get(pk=kept.pk).state != CALLED_OFF

    update_series_recurrence(series, rule_changes={"weekdays": [3]}, now=NOW)
    assert kept.pk not in detect_cadence_drift(fresh(series), now=NOW)
    generate_series_events(fresh(series), now=JUNE - dt.timedelta(weeks=7))
    assert starts(series).count(JUNE) == 1


def test_a_new_extra_date_is_planned_as_new_after_a_change() -> None:
    series = weekly_series(generate=False)
    series.extra_dates = [rules.format_instant(WEDNESDAY_CET)]
    series.save(update_fields=["extra_dates"])
    plan = plan_recurrence_change(series, {"weekdays": [1]}, now=NOW)
    assert WEDNESDAY_CET in [date.start for date in plan.new]


def test_removing_an_extra_date_never_withdraws_an_occurrence_that_takes_place() -> None:
    series = weekly_series()
    event = add_extra_date(series, WEDNESDAY_CET, now=NOW)
    add_extra_date(series, JUNE, now=NOW)
    assert event is not None
    seat = Seat.objects.create(event=event, label="Row 1", quantity=10, booked=2)
    with pytest.raises(OccurrenceHasBookingsError) as booked:
        remove_extra_date(series, WEDNESDAY_CET, now=NOW)
    assert "Wed 11 Mar 2026 18:30" in str(booked.value)
    assert [date.id for date in booked.value.booked] == [event.pk]

    Seat.objects.filter(pk=seat.pk).update(booked=0)
    with pytest.raises(ValidationError) as live:
        remove_extra_date(series, WEDNESDAY_CET, now=NOW)
    assert "cancel or delete it" in live.value.message_dict["instant"][0]
    assert fresh(series).extra_dates == ["2026-03-11T17:30:00Z", "2026-06-17T16:30:00Z"]

    # Cancelled first: the extra date goes, the cancelled row and its exdate stay.
    cancel_occurrence(series, WEDNESDAY_CET, now=NOW)
    remove_extra_date(series, WEDNESDAY_CET, now=NOW)
    # Never materialized (and cancelled): both its extra date and its exdate go.
    cancel_occurrence(series, JUNE, now=NOW)
    remove_extra_date(series, JUNE, now=NOW)
    series = fresh(series)
    assert series.extra_dates == []
    assert series.exdates == ["2026-03-11T17:30:00Z"]
    assert Event.objects.get(pk=event.pk).state == CALLED_OFF
    generate_series_events(series, now=JUNE - dt.timedelta(weeks=7))
    assert JUNE not in starts(series)
    with pytest.raises(ValidationError):
        remove_extra_date(series, JUNE, now=NOW)


def test_a_split_carries_the_extra_dates_from_its_date_on() -> None:
    series = weekly_series()
    add_extra_date(series, WEDNESDAY_CET, now=NOW)
    moved = add_extra_date(series, WEDNESDAY_CEST, now=NOW)
    add_extra_date(series, JUNE, now=NOW)
    continuation = split_series(series, at=monday(4), now=NOW).continuation
    assert fresh(series).extra_dates == ["2026-03-11T17:30:00Z"]
    assert continuation.extra_dates == ["2026-04-08T16:30:00Z", "2026-06-17T16:30:00Z"]
    assert moved is not None
    assert Event.objects.get(pk=moved.pk).series_id == continuation.pk
    assert detect_cadence_drift(continuation, now=NOW) == []
    generate_series_events(fresh(continuation), now=JUNE - dt.timedelta(weeks=7))
    assert starts(continuation).count(JUNE) == 1
    with pytest.raises(ValidationError) as caught:
        split_series(continuation, at=JUNE, now=NOW)
    assert "is an extra date" in caught.value.message_dict["at"][0]


def test_extra_dates_are_exported_as_rdate_and_reimported_to_the_same_dates() -> None:
    series = weekly_series(auto_publish=True)
    for instant in (WEDNESDAY_CET, WEDNESDAY_CEST, JUNE):
        add_extra_date(series, instant, now=NOW)
    body = series_feed(fresh(series), now=NOW).body.decode()
    assert "RDATE;TZID=Europe/Vienna:20260311T183000\r\n" in body
    assert "RDATE;TZID=Europe/Vienna:20260408T183000\r\n" in body
    assert "RDATE;TZID=Europe/Vienna:20260617T183000\r\n" in body

    data = rule_from_ical(body)
    extra = data.pop("extra_dates")
    assert extra == [WEDNESDAY_CET, WEDNESDAY_CEST, JUNE]
    assert all(value.tzinfo is UTC for value in extra)
    copy = weekly_series(name="Copy", generate=False, **{"dtstart": data["dtstart"]})
    for instant in extra:
        add_extra_date(copy, instant, now=NOW)
    assert fresh(copy).extra_dates == fresh(series).extra_dates


def test_the_dates_of_a_spec_are_the_rules_and_the_extra_dates_each_once() -> None:
    spec = rules.RuleSpec.from_fields(
        {
            "frequency": "WEEKLY",
            "dtstart": monday(0),
            "timezone": "Europe/Vienna",
            "until": monday(2),
        }
    )
    # One extra date the rule has too (a cadence change can make it so), one
    # between its dates, one after UNTIL: UNTIL bounds the rule's own dates only.
    extra = rules.with_extra_dates(spec, [monday(1), WEDNESDAY_CET, JUNE])
    assert rules.occurrences_between(extra, NOW, JUNE, inclusive=True) == [
        monday(0),
        monday(1),
        WEDNESDAY_CET,
        monday(2),
        JUNE,
    ]
    assert list(rules.iter_occurrences(extra)) == [
        monday(0),
        monday(1),
        WEDNESDAY_CET,
        monday(2),
        JUNE,
    ]
    assert rules.first_occurrence_after(extra, monday(2)) == JUNE
    assert rules.is_occurrence(extra, JUNE)
    assert not rules.is_occurrence(spec, JUNE)
    assert rules.rule_only(extra) == spec


def test_the_daily_pass_creates_an_extra_date_when_it_is_due_and_then_rests() -> None:
    series = weekly_series(count=3)
    add_extra_date(series, JUNE, now=NOW)
    due = fresh(series).next_due_at
    assert due is not None
    ran: list[list[int]] = []

    def daily_pass(moment: dt.datetime) -> None:
        def enqueue(ids: list[int]) -> None:
            ran.append(ids)
            generate_series_chunk_events(ids, now=moment)

        dispatch_due_chunks(enqueue, now=moment)

    daily_pass(due - dt.timedelta(days=1))
    assert ran == []
    daily_pass(due)
    assert ran == [[series.pk]]
    assert starts(series).count(JUNE) == 1
    assert fresh(series).next_due_at is None  # the rule and its extra dates are done
    daily_pass(due + dt.timedelta(days=1))
    assert ran == [[series.pk]]
