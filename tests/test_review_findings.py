"""Regression tests for defects found in review (one test per finding)."""

from __future__ import annotations

import datetime as dt

import pytest

from revel_recurring.exceptions import GenerationWindowError
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.generation import generate_series_events, preview_series_events
from tests.factories import make_series
from tests.lifecycle_fixtures import NOW, fresh, monday, occurrences, weekly_series
from tests.testapp.models import Event

pytestmark = pytest.mark.django_db


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


def test_naive_until_is_a_recurrence_error_not_a_raw_exception() -> None:
    series = make_series()
    with pytest.raises(GenerationWindowError, match="aware"):
        generate_series_events(series, until=dt.datetime(2026, 4, 1), now=NOW)
    with pytest.raises(GenerationWindowError, match="aware"):
        preview_series_events(series, until=dt.datetime(2026, 4, 1), now=NOW)


def test_saving_the_instance_generation_was_given_keeps_indices_monotonic() -> None:
    # create_recurring_series (and any caller of generate_series_events) keeps the
    # instance it passed in; a later save() of it must not rewind the counter.
    series = weekly_series(window_weeks=2)
    assert series.last_occurrence_index == 2
    series.description = "Bring a mat"
    series.save()
    generate_series_events(fresh(series), now=NOW + dt.timedelta(weeks=1))
    assert [e.occurrence_index for e in occurrences(series)] == [1, 2, 3]
