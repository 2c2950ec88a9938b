"""OccurrenceChange: cancellations, restorations and deletions, recorded with the change."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import transaction

from revel_recurring.changelog import changed_pks, deleted_since
from revel_recurring.models import OccurrenceChange
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.lifecycle import delete_series
from tests.hosts.testapp.models import Event
from tests.support.drift import drift_without_partners
from tests.support.factories import NOW, VIENNA, occurrences, weekly_series

pytestmark = pytest.mark.django_db


def kinds(series_id: int) -> list[tuple[str, str]]:
    return list(
        OccurrenceChange.objects.filter(series_id=series_id).values_list("kind", "occurrence_pk")
    )


def test_cancel_and_restore_are_recorded_with_the_original_slot() -> None:
    series = weekly_series()
    first = occurrences(series)[0]
    cancel_occurrence(series, first.starts_at, now=NOW)
    restore_occurrence(series, first.starts_at, now=NOW)
    assert kinds(series.pk) == [("cancelled", str(first.pk)), ("restored", str(first.pk))]
    change = OccurrenceChange.objects.filter(series=series).first()
    assert change is not None
    assert (change.recurrence_id, change.occurrence_index) == (first.recurrence_id, 1)
    assert changed_pks(series.pk, NOW) == [first.pk]


def test_a_slot_not_materialized_and_a_second_cancel_record_nothing() -> None:
    series = weekly_series(window_weeks=1)
    later = dt.datetime(2026, 3, 30, 10, 0, tzinfo=VIENNA)  # beyond the one-week window
    cancel_occurrence(series, later, now=NOW)
    first = occurrences(series)[0]
    cancel_occurrence(series, first.starts_at, now=NOW)
    cancel_occurrence(series, first.starts_at, now=NOW)
    assert kinds(series.pk) == [("cancelled", str(first.pk))]


def test_stale_cancellation_is_recorded_per_row() -> None:
    series = weekly_series()
    drift_without_partners(series, now=NOW)
    cancelled = cancel_stale_occurrences(series, now=NOW).cancelled
    assert len(cancelled) == 7
    assert sorted(pk for kind, pk in kinds(series.pk)) == sorted(map(str, cancelled))


def test_a_deleted_occurrence_leaves_a_tombstone_and_a_failed_delete_none() -> None:
    series = weekly_series()
    first, second = occurrences(series)[:2]
    Event.objects.get(pk=first.pk).delete()

    def failing_delete() -> None:
        with transaction.atomic():
            Event.objects.get(pk=second.pk).delete()
            raise RuntimeError("the host's delete fails after the row went")

    with pytest.raises(RuntimeError):
        failing_delete()
    assert Event.objects.filter(pk=second.pk).exists()
    assert kinds(series.pk) == [("deleted", str(first.pk))]
    [tombstone] = deleted_since(series.pk, NOW)
    assert tombstone.recurrence_id == first.recurrence_id


def test_deleting_the_series_records_nothing_and_removes_its_log() -> None:
    series = weekly_series()
    cancel_occurrence(series, occurrences(series)[0].starts_at, now=NOW)
    delete_series(series)
    assert not OccurrenceChange.objects.exists()
