"""Slots of deleted occurrences still pending: who folds them into the series' exdates.

A host deleting an occurrence records its slot as a ``PendingExdate`` and the slot
is folded in after commit. In these tests that callback never runs (the test's
transaction never commits), so the slot stays pending: the state a service meets
when the fold after commit lost a race or failed. Locking a series only locks;
each service whose work depends on the excluded dates folds them itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from revel_recurring.models import EventSeries, PendingExdate
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.lifecycle import delete_series, pause_series, resume_series
from revel_recurring.services.recurrence import update_series_recurrence
from revel_recurring.services.templates import replace_template
from revel_recurring.services.toolbox.locking import lock_series, lock_several_series
from tests.support.factories import NOW, fresh, monday, occurrences, weekly_series

pytestmark = pytest.mark.django_db


def _series_with_a_pending_slot() -> tuple[EventSeries, dt.datetime]:
    series = weekly_series()
    victim = occurrences(series)[2]
    slot = victim.recurrence_id
    assert slot is not None
    victim.delete()
    assert list(PendingExdate.objects.values_list("instant", flat=True)) == [slot]
    assert slot not in fresh(series).exdate_instants
    return series, slot


def _resume(series: EventSeries) -> None:
    pause_series(series, now=NOW)
    resume_series(series, now=NOW)


def _replace_template_of_disarmed(series: EventSeries) -> None:
    EventSeries.objects.filter(pk=series.pk).update(next_due_at=None)
    replace_template(fresh(series), {"title": "Evening yoga", "ends_at": monday(0)}, now=NOW)


FOLDING_SERVICES: dict[str, Callable[[EventSeries], Any]] = {
    "cancel_occurrence": lambda series: cancel_occurrence(series, monday(4), now=NOW),
    "cancel_stale_occurrences": lambda series: cancel_stale_occurrences(series, now=NOW),
    "resume_series": _resume,
    "update_series_recurrence": lambda series: update_series_recurrence(
        series, generation_window_weeks=10, now=NOW
    ),
    "replace_template (disarmed series)": _replace_template_of_disarmed,
}


@pytest.mark.parametrize("service", FOLDING_SERVICES.values(), ids=FOLDING_SERVICES.keys())
def test_services_that_read_the_exdates_fold_pending_slots_first(
    service: Callable[[EventSeries], Any],
) -> None:
    series, slot = _series_with_a_pending_slot()
    service(series)
    assert slot in fresh(series).exdate_instants
    assert not PendingExdate.objects.exists()


def test_restoring_a_deleted_occurrences_slot_sees_it_while_still_pending() -> None:
    series, slot = _series_with_a_pending_slot()
    restore_occurrence(series, slot, now=NOW)
    assert slot not in fresh(series).exdate_instants
    assert not PendingExdate.objects.exists()


def test_locking_a_series_only_locks() -> None:
    series, slot = _series_with_a_pending_slot()
    with transaction.atomic():
        locked = lock_series(series.pk)
        (several,) = lock_several_series([series.pk])
    assert slot not in locked.exdate_instants | several.exdate_instants
    assert slot not in fresh(series).exdate_instants
    assert PendingExdate.objects.count() == 1


def test_deleting_a_series_removes_its_pending_slots_with_it() -> None:
    series, _ = _series_with_a_pending_slot()
    delete_series(series)
    assert not PendingExdate.objects.exists()
