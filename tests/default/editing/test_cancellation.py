"""Cancelling one occurrence slot, and restoring it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from revel_recurring.exceptions import NotAnOccurrenceError, NotCancelledError
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.signals import occurrence_cancelled, occurrence_restored
from tests.hosts.testapp.models import Event
from tests.support.factories import (
    NEW_YORK,
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


def test_cancelling_a_materialized_occurrence(django_capture_on_commit_callbacks: Any) -> None:
    series = weekly_series()
    with (
        captured(occurrence_cancelled) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        event = cancel_occurrence(series, monday(2).astimezone(VIENNA), now=NOW)
    assert event is not None
    stored = Event.objects.get(pk=event.pk)
    assert stored.recurrence_id == monday(2)
    assert stored.state == CALLED_OFF
    assert stored.is_modified is False
    assert fresh(series).exdates == ["2026-03-16T09:00:00Z"]
    assert series.exdates == ["2026-03-16T09:00:00Z"]
    assert len(calls) == 1
    assert calls[0]["instant"] == monday(2)
    assert calls[0]["occurrence"].pk == event.pk
    assert calls[0]["series"].pk == series.pk


def test_signal_waits_for_commit(django_capture_on_commit_callbacks: Any) -> None:
    series = weekly_series()
    with captured(occurrence_cancelled) as calls:
        with django_capture_on_commit_callbacks() as callbacks:
            cancel_occurrence(series, monday(2), now=NOW)
        assert calls == []
        for callback in callbacks:
            callback()
    assert len(calls) == 1


def test_cancelling_a_future_slot_before_it_is_materialized() -> None:
    series = weekly_series(window_weeks=2)
    assert cancel_occurrence(series, monday(3), now=NOW) is None
    assert monday(3) in fresh(series).exdate_instants
    generate_series_events(fresh(series), until=monday(4), now=NOW)
    slots = [e.recurrence_id for e in occurrences(series)]
    assert slots == [monday(0), monday(1), monday(2), monday(4)]


def test_same_instant_in_two_zones_is_stored_once() -> None:
    series = weekly_series()
    cancel_occurrence(series, monday(3).astimezone(VIENNA), now=NOW)
    cancel_occurrence(series, monday(3).astimezone(NEW_YORK), now=NOW)
    cancel_occurrence(series, monday(3), now=NOW)
    assert fresh(series).exdates == ["2026-03-23T09:00:00Z"]


def test_cancelling_twice_sends_one_signal(django_capture_on_commit_callbacks: Any) -> None:
    series = weekly_series()
    with (
        captured(occurrence_cancelled) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        cancel_occurrence(series, monday(3), now=NOW)
        cancel_occurrence(series, monday(3).astimezone(NEW_YORK), now=NOW)
    assert len(calls) == 1


def test_a_non_occurrence_is_rejected_and_nothing_changes() -> None:
    series = weekly_series()
    tuesday = monday(2) + dt.timedelta(days=1)
    # Named on the rule's clock, as every message names a date (09:00Z is 10:00 CET).
    with pytest.raises(NotAnOccurrenceError, match=r"Tue 17 Mar 2026 10:00 \(Europe/Vienna\)"):
        cancel_occurrence(series, tuesday, now=NOW)
    with pytest.raises(NotAnOccurrenceError):
        cancel_occurrence(series, monday(2) + dt.timedelta(minutes=1), now=NOW)
    assert fresh(series).exdates == []
    assert CALLED_OFF not in {e.state for e in occurrences(series)}


def test_a_naive_datetime_is_rejected() -> None:
    series = weekly_series()
    with pytest.raises(NotAnOccurrenceError, match="time zone"):
        cancel_occurrence(series, dt.datetime(2026, 3, 16, 10, 0), now=NOW)


def test_a_moved_occurrence_is_found_by_its_current_start() -> None:
    series = weekly_series()
    moved = occurrences(series)[4]
    new_start = moved.starts_at + dt.timedelta(days=2, hours=3)
    moved.starts_at = new_start
    moved.save()
    event = cancel_occurrence(series, new_start, now=NOW)
    assert event is not None
    assert event.pk == moved.pk
    assert Event.objects.get(pk=moved.pk).state == CALLED_OFF
    # both the instant asked for and the original slot are excluded
    assert fresh(series).exdate_instants == {new_start.astimezone(UTC), monday(4)}


def test_cancelling_a_past_occurrence_is_allowed() -> None:
    series = weekly_series()
    later = NOW + dt.timedelta(weeks=3)
    event = cancel_occurrence(series, monday(0), now=later)
    assert event is not None
    assert Event.objects.get(pk=event.pk).state == CALLED_OFF


def test_cancelling_updates_next_due_at() -> None:
    series = weekly_series(window_weeks=2)
    due_before = fresh(series).next_due_at
    assert due_before == monday(2) - dt.timedelta(weeks=2)
    cancel_occurrence(series, monday(2), now=NOW)
    assert fresh(series).next_due_at == monday(3) - dt.timedelta(weeks=2)


def test_restore_puts_a_materialized_occurrence_back(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series()
    event = cancel_occurrence(series, monday(2), now=NOW)
    with (
        captured(occurrence_restored) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        restored = restore_occurrence(series, monday(2).astimezone(NEW_YORK), now=NOW)
    assert restored is not None
    assert restored.pk == event.pk
    stored = Event.objects.get(pk=event.pk)
    assert stored.state == Event.RECURRING_STATUS_DRAFT
    assert stored.is_modified is False
    assert fresh(series).exdates == []
    assert calls[0]["instant"] == monday(2)
    assert calls[0]["occurrence"].pk == event.pk


def test_restore_in_an_auto_publishing_series_reopens_sales() -> None:
    series = weekly_series(auto_publish=True)
    event = cancel_occurrence(series, monday(2), now=NOW)
    restore_occurrence(series, monday(2), now=NOW)
    assert Event.objects.get(pk=event.pk).state == Event.RECURRING_STATUS_OPEN


@pytest.mark.parametrize(
    ("auto_publish", "status_before"),
    [(False, "on_sale"), (True, "planned"), (False, "sold_out")],
    ids=["published-by-hand", "kept-as-draft", "host-specific-status"],
)
def test_restore_puts_back_the_status_the_occurrence_had(
    auto_publish: bool, status_before: str
) -> None:
    series = weekly_series(auto_publish=auto_publish)
    target = next(e for e in occurrences(series) if e.recurrence_id == monday(2))
    Event.objects.filter(pk=target.pk).update(state=status_before)
    cancel_occurrence(series, monday(2), now=NOW)
    cancelled = Event.objects.get(pk=target.pk)
    assert (cancelled.state, cancelled.status_before_cancellation) == (CALLED_OFF, status_before)
    cancel_occurrence(series, monday(2), now=NOW)  # twice: the remembered status stays
    assert Event.objects.get(pk=target.pk).status_before_cancellation == status_before
    restore_occurrence(series, monday(2), now=NOW)
    restored = Event.objects.get(pk=target.pk)
    assert (restored.state, restored.status_before_cancellation) == (status_before, "")


def test_restore_without_a_remembered_status_uses_the_series_default() -> None:
    series = weekly_series(auto_publish=True)
    target = next(e for e in occurrences(series) if e.recurrence_id == monday(2))
    # Cancelled by the host's own code: status written directly, slot excluded.
    Event.objects.filter(pk=target.pk).update(state=CALLED_OFF)
    restore_occurrence(series, monday(2), now=NOW)
    assert Event.objects.get(pk=target.pk).state == Event.RECURRING_STATUS_OPEN


def test_restoring_an_unmaterialized_slot_inside_the_window_generates_it_next_run() -> None:
    series = weekly_series(window_weeks=2)
    cancel_occurrence(series, monday(1), now=NOW)
    Event.objects.filter(series=series, recurrence_id=monday(1)).delete()
    later = NOW + dt.timedelta(days=3)
    generate_series_events(fresh(series), now=later)
    assert monday(1) not in [e.recurrence_id for e in occurrences(series)]
    # the cursor has passed the slot; restoring must make the next run take it
    assert restore_occurrence(series, monday(1), now=later) is None
    assert fresh(series).next_due_at is not None
    assert fresh(series).next_due_at <= later
    created = generate_series_events(fresh(series), now=later)
    assert [e.recurrence_id for e in created] == [monday(1)]
    assert generate_series_events(fresh(series), now=later) == []


def test_restore_of_a_slot_that_is_not_cancelled_is_refused() -> None:
    series = weekly_series()
    with pytest.raises(NotCancelledError):
        restore_occurrence(series, monday(2), now=NOW)
    with pytest.raises(NotCancelledError):
        restore_occurrence(series, monday(12), now=NOW)


def test_restore_of_a_non_occurrence_is_refused() -> None:
    series = weekly_series()
    with pytest.raises(NotAnOccurrenceError):
        restore_occurrence(series, monday(2) + dt.timedelta(hours=5), now=NOW)


def test_restore_a_moved_occurrence_by_either_instant() -> None:
    series = weekly_series()
    moved = occurrences(series)[4]
    new_start = moved.starts_at + dt.timedelta(hours=3)
    moved.starts_at = new_start
    moved.save()
    cancel_occurrence(series, new_start, now=NOW)
    restore_occurrence(series, monday(4), now=NOW)
    assert fresh(series).exdates == []
    assert Event.objects.get(pk=moved.pk).state == Event.RECURRING_STATUS_DRAFT


def test_restoring_a_past_unmaterialized_slot_leaves_the_cursor() -> None:
    series = weekly_series(window_weeks=2)
    cancel_occurrence(series, monday(1), now=NOW)
    Event.objects.filter(series=series, recurrence_id=monday(1)).delete()
    cursor = fresh(series).last_generated_until
    later = NOW + dt.timedelta(weeks=1, days=2)
    restore_occurrence(series, monday(1), now=later)
    assert fresh(series).last_generated_until == cursor
    assert fresh(series).exdates == []


# A postponed occurrence and the slot it was moved onto


def test_cancelling_a_postponed_occurrence_keeps_the_slot_it_was_moved_onto() -> None:
    # The last occurrence of the window (week 7) is postponed by one week, onto the
    # week-8 slot, which is not materialized yet; then it is called off by its
    # current start. Only the postponed event is cancelled: week 8 still comes.
    series = weekly_series()
    last = occurrences(series)[-1]
    assert last.recurrence_id == monday(7)
    last.starts_at = monday(8)
    last.ends_at = None
    last.save()
    cancel_occurrence(series, monday(8), now=NOW)
    assert Event.objects.get(pk=last.pk).state == Event.RECURRING_STATUS_CANCELLED
    created = generate_series_events(fresh(series), now=NOW + dt.timedelta(weeks=1))
    assert [e.recurrence_id for e in created] == [monday(8)]


def test_restoring_a_postponed_occurrence_keeps_the_slot_it_sits_on_cancelled() -> None:
    # Week 8 is called off ahead of time; week 7 is then postponed onto week 8's
    # time, cancelled and restored by its own slot. Week 8 must stay cancelled.
    series = weekly_series()
    cancel_occurrence(series, monday(8), now=NOW)
    last = occurrences(series)[-1]
    last.starts_at = monday(8)
    last.ends_at = None
    last.save()
    cancel_occurrence(series, monday(7), now=NOW)
    restore_occurrence(series, monday(7), now=NOW)
    assert Event.objects.get(pk=last.pk).state == Event.RECURRING_STATUS_DRAFT
    assert monday(8) in fresh(series).exdate_instants
    assert generate_series_events(fresh(series), now=NOW + dt.timedelta(weeks=1)) == []


def test_a_cancelled_slot_under_a_postponed_occurrence_can_still_be_restored() -> None:
    series = weekly_series()
    cancel_occurrence(series, monday(8), now=NOW)
    last = occurrences(series)[-1]
    last.starts_at = monday(8)
    last.ends_at = None
    last.save()
    assert restore_occurrence(series, monday(8), now=NOW) is None
    assert fresh(series).exdates == []
    assert Event.objects.get(pk=last.pk).state == Event.RECURRING_STATUS_DRAFT
    created = generate_series_events(fresh(series), now=NOW + dt.timedelta(weeks=1))
    assert [e.recurrence_id for e in created] == [monday(8)]
