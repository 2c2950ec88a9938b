"""is_modified tracking: a real organiser edit marks an occurrence, nothing else does."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.models import EventSeries
from revel_recurring.receivers import suspend_modification_tracking
from revel_recurring.services.propagation import update_template
from tests.hosts.testapp.models import Event
from tests.support.factories import NEW_YORK, NOW, occurrences, template_of, weekly_series

pytestmark = pytest.mark.django_db


@pytest.fixture
def series() -> EventSeries:
    return weekly_series()


@pytest.fixture
def occurrence(series: EventSeries) -> Event:
    return occurrences(series)[3]


def stored(event: Event) -> Event:
    return Event.objects.get(pk=event.pk)


def test_materialized_occurrences_are_not_modified(series: EventSeries) -> None:
    assert [e.is_modified for e in occurrences(series)] == [False] * 8


def test_moving_the_start_marks_it_modified(occurrence: Event) -> None:
    occurrence.starts_at += dt.timedelta(hours=1)
    occurrence.save()
    assert occurrence.is_modified is True
    assert stored(occurrence).is_modified is True


@pytest.mark.parametrize(
    ("name", "value"),
    [("title", "Outdoor yoga"), ("capacity", 8), ("venue", "Park"), ("capacity", None)],
)
def test_editing_a_propagatable_field_marks_it_modified(
    occurrence: Event, name: str, value: object
) -> None:
    setattr(occurrence, name, value)
    occurrence.save()
    assert stored(occurrence).is_modified is True


def test_changing_the_end_marks_it_modified(occurrence: Event) -> None:
    occurrence.ends_at += dt.timedelta(minutes=30)
    occurrence.save()
    assert stored(occurrence).is_modified is True


def test_a_no_op_save_does_not(occurrence: Event) -> None:
    occurrence.save()
    occurrence.starts_at = occurrence.starts_at.astimezone(NEW_YORK)  # same instant
    occurrence.title = "Monday yoga"
    occurrence.save()
    assert stored(occurrence).is_modified is False


def test_untracked_fields_do_not(occurrence: Event) -> None:
    occurrence.state = Event.RECURRING_STATUS_OPEN
    occurrence.doors_open_at += dt.timedelta(minutes=5)
    occurrence.save()
    assert stored(occurrence).is_modified is False


def test_a_save_with_update_fields_still_records_the_edit(occurrence: Event) -> None:
    occurrence.title = "Yin yoga"
    occurrence.save(update_fields=["title"])
    assert stored(occurrence).is_modified is True
    assert stored(occurrence).title == "Yin yoga"


def test_update_fields_naming_no_tracked_field_is_not_an_edit(occurrence: Event) -> None:
    occurrence.title = "unsaved"
    with CaptureQueriesContext(connection) as queries:
        occurrence.save(update_fields=["state"])
    assert len(queries) == 1
    assert stored(occurrence).is_modified is False


def test_propagation_does_not(series: EventSeries) -> None:
    update_template(series, {"title": "Vinyasa"}, propagate="all_future", now=NOW)
    assert {(e.title, e.is_modified) for e in occurrences(series)} == {("Vinyasa", False)}


def test_suspended_tracking_does_not(occurrence: Event) -> None:
    with suspend_modification_tracking():
        occurrence.title = "Imported"
        occurrence.save()
    assert stored(occurrence).is_modified is False


def test_queryset_update_is_not_tracked(occurrence: Event) -> None:
    # Documented: a host editing through QuerySet.update sets is_modified itself.
    Event.objects.filter(pk=occurrence.pk).update(title="Bulk")
    assert stored(occurrence).is_modified is False
    Event.objects.filter(pk=occurrence.pk).update(title="Bulk", is_modified=True)
    assert stored(occurrence).is_modified is True


def save_queries(event: Event) -> int:
    with CaptureQueriesContext(connection) as queries:
        event.save()
    return len(queries)


def test_no_extra_query_for_a_template(series: EventSeries) -> None:
    template = template_of(series)
    template.title = "Renamed"
    assert save_queries(template) == 1
    assert stored(template).is_modified is False


def test_no_extra_query_for_a_one_off_event() -> None:
    event = Event.objects.create(title="Gala", starts_at=NOW)
    event.title = "Gala night"
    assert save_queries(event) == 1
    assert stored(event).is_modified is False


def test_no_extra_query_for_an_occurrence_already_modified(occurrence: Event) -> None:
    occurrence.title = "First edit"
    occurrence.save()
    occurrence.title = "Second edit"
    assert save_queries(occurrence) == 1


def test_one_query_reads_the_stored_row_of_an_unmodified_occurrence(occurrence: Event) -> None:
    occurrence.title = "Edit"
    assert save_queries(occurrence) == 2
    fresh = stored(occurrence)
    assert save_queries(fresh) == 1  # modified now: back to the plain UPDATE


def test_creating_an_occurrence_by_hand_is_not_an_edit(series: EventSeries) -> None:
    template = template_of(series)
    extra = template.prepare_occurrence(
        start=NOW + dt.timedelta(days=100), occurrence_index=99, status="planned"
    )
    extra.save()
    assert stored(extra).is_modified is False
