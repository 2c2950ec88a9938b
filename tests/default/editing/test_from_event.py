"""Starting a series from an existing one-off event: the event is adopted, never doubled."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from revel_recurring.services.from_event import create_series_from_event
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import FIRST_MONDAY, NOW, UTC, fresh, monday, occurrences

pytestmark = pytest.mark.django_db

RULE = {"frequency": "WEEKLY", "dtstart": FIRST_MONDAY, "timezone": "Europe/Vienna"}


def one_off(starts_at: dt.datetime, **fields: Any) -> Event:
    event = Event.objects.create(
        title="Salsa",
        venue="Hall",
        capacity=20,
        starts_at=starts_at,
        ends_at=starts_at + dt.timedelta(hours=1),
        state=Event.RECURRING_STATUS_OPEN,
        **fields,
    )
    Seat.objects.create(event=event, label="Floor", quantity=20, booked=3)
    return event


def test_an_event_on_a_slot_of_the_rule_becomes_its_first_occurrence() -> None:
    source = one_off(monday(0))
    result = create_series_from_event(source, rule_data=RULE, name="Salsa", now=NOW)
    assert result.adopted is not None
    assert result.adopted.pk == source.pk
    rows = occurrences(result.series)
    # Eight Mondays in the window, one of them the event itself: no two on one date.
    assert [e.starts_at for e in rows] == [monday(week) for week in range(8)]
    assert len({e.starts_at for e in rows}) == len(rows)
    first = rows[0]
    assert first.pk == source.pk
    assert (first.recurrence_id, first.occurrence_index, first.is_modified) == (
        monday(0),
        1,
        False,
    )
    assert first.state == Event.RECURRING_STATUS_OPEN  # its own status, not a draft
    assert list(first.seats.values_list("label", "booked")) == [("Floor", 3)]
    assert [e.occurrence_index for e in rows] == list(range(1, 9))
    assert result.created == rows[1:]
    series = fresh(result.series)
    assert series.last_occurrence_index == 8
    # The next run neither re-creates the slot nor reuses an index.
    created = generate_series_events(series, now=NOW + dt.timedelta(weeks=1))
    assert [(e.starts_at, e.occurrence_index) for e in created] == [(monday(8), 9)]


def test_an_event_off_the_rule_is_left_alone() -> None:
    source = one_off(monday(0) + dt.timedelta(hours=2))
    result = create_series_from_event(source, rule_data=RULE, name="Salsa", now=NOW)
    assert result.adopted is None
    source.refresh_from_db()
    assert (source.series_id, source.recurrence_id) == (None, None)
    assert len(occurrences(result.series)) == 8


def test_a_cancelled_event_is_not_adopted() -> None:
    source = one_off(monday(0))
    Event.objects.filter(pk=source.pk).update(state=Event.RECURRING_STATUS_CANCELLED)
    source.refresh_from_db()
    result = create_series_from_event(source, rule_data=RULE, name="Salsa", now=NOW)
    assert result.adopted is None
    assert Event.objects.get(pk=source.pk).series_id is None


def test_an_event_in_a_series_already_is_not_taken_from_it() -> None:
    source = one_off(monday(0))
    first = create_series_from_event(source, rule_data=RULE, name="First", now=NOW)
    stale = Event.objects.get(pk=source.pk)
    stale.series_id = None  # a form that read the event before the first series took it
    second = create_series_from_event(stale, rule_data=RULE, name="Second", now=NOW)
    assert second.adopted is None
    assert Event.objects.get(pk=source.pk).series_id == first.series.pk
    assert occurrences(second.series)[0].starts_at == monday(0)


def test_a_paused_series_still_adopts_its_event() -> None:
    source = one_off(dt.datetime(2026, 3, 2, 9, tzinfo=UTC))  # 10:00 Vienna
    result = create_series_from_event(
        source, rule_data=RULE, name="Salsa", is_active=False, now=NOW
    )
    assert result.adopted is not None
    assert result.created == []
    assert [e.pk for e in occurrences(result.series)] == [source.pk]
