"""Template edits and their propagation onto future occurrences."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db.models.signals import post_save

from revel_recurring.exceptions import InvalidPropagationError, SeriesNotReadyError
from revel_recurring.instants import describe_instant
from revel_recurring.models import EventSeries
from revel_recurring.notifications import event_notifications_suppressed
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.propagation import update_template
from revel_recurring.signals import template_propagated
from tests.hosts.testapp.models import Event
from tests.support.factories import (
    NOW,
    captured,
    fresh,
    monday,
    occurrences,
    template_of,
    weekly_series,
)

pytestmark = pytest.mark.django_db

# After the third occurrence: rows 0..2 are past.
LATER = monday(2) + dt.timedelta(hours=3)


@pytest.fixture
def series() -> EventSeries:
    series = weekly_series()
    rows = occurrences(series)
    # row 4 edited by an organiser, row 5 cancelled
    rows[4].venue = "Garden"
    rows[4].save()
    cancel_occurrence(series, monday(5), now=NOW)
    return fresh(series)


def titles(series: EventSeries) -> list[str]:
    return [e.title for e in occurrences(series)]


def test_scope_none_changes_the_template_only(series: EventSeries) -> None:
    assert update_template(series, {"title": "Vinyasa"}, now=LATER) == 0
    assert template_of(series).title == "Vinyasa"
    assert set(titles(series)) == {"Monday yoga"}


def test_future_unmodified_skips_past_cancelled_and_modified(series: EventSeries) -> None:
    updated = update_template(
        series, {"title": "Vinyasa"}, propagate="future_unmodified", now=LATER
    )
    assert updated == 3  # rows 3, 6, 7
    assert (
        titles(series) == ["Monday yoga"] * 3 + ["Vinyasa"] + ["Monday yoga"] * 2 + ["Vinyasa"] * 2
    )


def test_all_future_includes_modified_but_never_past_or_cancelled(series: EventSeries) -> None:
    updated = update_template(series, {"title": "Vinyasa"}, propagate="all_future", now=LATER)
    assert updated == 4  # rows 3, 4, 6, 7
    assert (
        titles(series) == ["Monday yoga"] * 3 + ["Vinyasa"] * 2 + ["Monday yoga"] + ["Vinyasa"] * 2
    )
    rows = occurrences(series)
    assert rows[4].venue == "Garden"  # only the changed field travels
    assert rows[4].is_modified is True


def test_propagation_never_marks_occurrences_modified(series: EventSeries) -> None:
    update_template(series, {"capacity": 12, "venue": "Hall"}, propagate="all_future", now=LATER)
    rows = occurrences(series)
    assert [e.is_modified for e in rows] == [False] * 4 + [True] + [False] * 3
    assert [e.capacity for e in rows] == [20] * 3 + [12] * 2 + [20] + [12] * 2


def test_per_occurrence_state_is_never_propagated(series: EventSeries) -> None:
    before = [(e.starts_at, e.ends_at, e.state, e.recurrence_id) for e in occurrences(series)]
    update_template(series, {"title": "Vinyasa"}, propagate="all_future", now=LATER)
    after = [(e.starts_at, e.ends_at, e.state, e.recurrence_id) for e in occurrences(series)]
    assert after == before


def test_rows_already_holding_the_values_are_not_counted(series: EventSeries) -> None:
    assert update_template(series, {"venue": "Studio 2"}, propagate="all_future", now=LATER) == 1


def test_later_generation_copies_the_updated_template(series: EventSeries) -> None:
    update_template(series, {"title": "Vinyasa"}, propagate="future_unmodified", now=LATER)
    created = generate_series_events(fresh(series), now=LATER)
    assert created
    assert {e.title for e in created} == {"Vinyasa"}


def test_one_invalid_occurrence_rolls_back_template_and_batch(series: EventSeries) -> None:
    broken = occurrences(series)[7]
    Event.objects.filter(pk=broken.pk).update(title="")  # a row the host's clean() rejects
    with pytest.raises(ValidationError) as excinfo:
        update_template(series, {"venue": "Hall"}, propagate="future_unmodified", now=LATER)
    when = describe_instant(broken.starts_at, "Europe/Vienna")
    assert excinfo.value.message_dict["title"][0].startswith(f"occurrence {broken.pk} on {when}: ")
    assert template_of(series).venue == "Studio 2"
    assert [e.venue for e in occurrences(series)].count("Hall") == 0


def test_invalid_template_value_changes_nothing(series: EventSeries) -> None:
    with pytest.raises(ValidationError) as excinfo:
        update_template(series, {"capacity": -3}, propagate="all_future", now=LATER)
    assert "capacity" in excinfo.value.message_dict
    assert template_of(series).capacity == 20


def test_unknown_scope_is_refused(series: EventSeries) -> None:
    with pytest.raises(InvalidPropagationError, match="everything"):
        update_template(series, {"title": "x"}, propagate="everything", now=LATER)


def test_unknown_field_is_refused(series: EventSeries) -> None:
    with pytest.raises(InvalidPropagationError, match="colour"):
        update_template(series, {"colour": "red"}, now=LATER)


@pytest.mark.parametrize("name", ["state", "series", "recurrence_id", "is_modified", "id"])
def test_managed_fields_are_refused(series: EventSeries, name: str) -> None:
    with pytest.raises(InvalidPropagationError, match=name):
        update_template(series, {name: None}, now=LATER)


def test_non_propagatable_field_is_refused_with_a_scope(series: EventSeries) -> None:
    shifted = template_of(series).doors_open_at + dt.timedelta(minutes=15)
    with pytest.raises(InvalidPropagationError, match="doors_open_at"):
        update_template(
            series,
            {"title": "x", "doors_open_at": shifted},
            propagate="all_future",
            now=LATER,
        )
    assert template_of(series).title == "Monday yoga"


def test_non_propagatable_field_may_change_on_the_template_alone(series: EventSeries) -> None:
    shifted = template_of(series).doors_open_at + dt.timedelta(minutes=15)
    update_template(series, {"doors_open_at": shifted}, now=LATER)
    assert template_of(series).doors_open_at == shifted


def test_series_without_template(series: EventSeries) -> None:
    bare = EventSeries.objects.create(name="No template")
    with pytest.raises(SeriesNotReadyError):
        update_template(bare, {"title": "x"}, now=LATER)


@pytest.fixture
def venue_and_capacity_coupled() -> Iterator[None]:
    original = Event.PROPAGATION_COUPLED_FIELDS
    Event.PROPAGATION_COUPLED_FIELDS = (("venue", "capacity"),)
    try:
        yield
    finally:
        Event.PROPAGATION_COUPLED_FIELDS = original


@pytest.mark.usefixtures("venue_and_capacity_coupled")
def test_coupled_fields_move_together(
    series: EventSeries, django_capture_on_commit_callbacks: Any
) -> None:
    row = occurrences(series)[6]
    Event.objects.filter(pk=row.pk).update(capacity=99)
    with (
        captured(template_propagated) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        update_template(series, {"venue": "Hall"}, propagate="future_unmodified", now=LATER)
    stored = Event.objects.get(pk=row.pk)
    assert (stored.venue, stored.capacity) == ("Hall", 20)
    assert calls[0]["fields"] == ["capacity", "venue"]
    assert calls[0]["scope"] == "future_unmodified"
    assert calls[0]["updated"] == 3
    assert calls[0]["series"].pk == series.pk


@pytest.fixture
def saves_each_row(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """The host on the per-instance switch, with a save() that records each call."""
    calls: list[tuple[Any, Any]] = []
    original = Event.save

    def save(self: Event, *args: Any, **kwargs: Any) -> None:
        calls.append((self.pk, kwargs.get("update_fields")))
        original(self, *args, **kwargs)

    monkeypatch.setattr(Event, "RECURRING_PROPAGATE_WITH_SAVE", True)
    monkeypatch.setattr(Event, "save", save)
    return calls


@pytest.fixture
def post_saves() -> Iterator[list[tuple[Any, bool]]]:
    """(pk, notifications suppressed?) of each occurrence's post_save inside the block."""
    seen: list[tuple[Any, bool]] = []

    def receiver(sender: Any, instance: Event, **kwargs: Any) -> None:
        if not instance.is_template:
            seen.append((instance.pk, event_notifications_suppressed()))

    post_save.connect(receiver, sender=Event, weak=False)
    try:
        yield seen
    finally:
        post_save.disconnect(receiver, sender=Event)


def test_the_per_instance_switch_saves_each_row_with_notifications_suppressed(
    series: EventSeries,
    saves_each_row: list[tuple[Any, Any]],
    post_saves: list[tuple[Any, bool]],
) -> None:
    update_template(series, {"title": "Vinyasa"}, propagate="all_future", now=LATER)
    changed = [event.pk for event in occurrences(series) if event.title == "Vinyasa"]
    assert len(changed) == 4
    # The host's save() once per changed row, naming only what propagates (the
    # test host has no change stamp), and its receivers told to stay quiet.
    assert [call for call in saves_each_row if call[0] in changed] == [
        (pk, ["title"]) for pk in changed
    ]
    assert post_saves == [(pk, True) for pk in changed]
    assert event_notifications_suppressed() is False


def test_a_bulk_propagation_saves_no_row_and_names_them_in_its_signal(
    series: EventSeries,
    post_saves: list[tuple[Any, bool]],
    django_capture_on_commit_callbacks: Any,
) -> None:
    with (
        captured(template_propagated) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        update_template(series, {"title": "Vinyasa"}, propagate="all_future", now=LATER)
    changed = [event.pk for event in occurrences(series) if event.title == "Vinyasa"]
    assert post_saves == []
    assert len(calls) == 1
    assert calls[0]["occurrence_ids"] == changed
    assert calls[0]["updated"] == 4


def test_no_signal_without_a_scope(
    series: EventSeries, django_capture_on_commit_callbacks: Any
) -> None:
    with (
        captured(template_propagated) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        update_template(series, {"title": "Vinyasa"}, now=LATER)
    assert calls == []


def test_a_restored_occurrence_gets_the_template_edits_it_missed(series: EventSeries) -> None:
    # Row 5 was cancelled in the fixture; both edits skip it.
    update_template(series, {"title": "Vinyasa"}, propagate="future_unmodified", now=LATER)
    update_template(series, {"capacity": 9}, propagate="all_future", now=LATER)
    assert occurrences(series)[5].title == "Monday yoga"
    restored = restore_occurrence(series, monday(5), now=LATER)
    assert restored is not None
    stored = Event.objects.get(pk=restored.pk)
    assert (stored.title, stored.capacity, stored.venue) == ("Vinyasa", 9, "Studio 2")
    assert stored.state == Event.RECURRING_STATUS_DRAFT
    assert stored.is_modified is False
    # It now matches its never-cancelled neighbours.
    neighbour = occurrences(series)[6]
    assert (neighbour.title, neighbour.capacity) == (stored.title, stored.capacity)


def test_a_restored_occurrence_edited_by_hand_keeps_its_own_values(series: EventSeries) -> None:
    cancel_occurrence(series, monday(4), now=LATER)  # row 4: venue "Garden", is_modified
    update_template(
        series, {"title": "Vinyasa", "venue": "Hall"}, propagate="all_future", now=LATER
    )
    restore_occurrence(series, monday(4), now=LATER)
    stored = occurrences(series)[4]
    assert (stored.title, stored.venue, stored.is_modified) == ("Monday yoga", "Garden", True)


def test_a_restored_past_occurrence_keeps_its_values(series: EventSeries) -> None:
    cancel_occurrence(series, monday(1), now=NOW)
    update_template(series, {"title": "Vinyasa"}, propagate="all_future", now=LATER)
    restore_occurrence(series, monday(1), now=LATER)
    assert occurrences(series)[1].title == "Monday yoga"
    assert occurrences(series)[1].state != Event.RECURRING_STATUS_CANCELLED


def test_a_restore_the_host_refuses_after_the_catch_up_writes_nothing(
    series: EventSeries,
) -> None:
    broken = occurrences(series)[5]
    # A template written around its clean(): the copy would be refused by the host.
    Event.objects.filter(pk=template_of(series).pk).update(title="")
    with pytest.raises(ValidationError) as excinfo:
        restore_occurrence(series, monday(5), now=LATER)
    assert f"occurrence {broken.pk}" in excinfo.value.message_dict["title"][0]
    assert Event.objects.get(pk=broken.pk).state == Event.RECURRING_STATUS_CANCELLED
    assert monday(5) in fresh(series).exdate_instants
