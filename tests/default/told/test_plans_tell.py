"""A plan says how many people applying it would tell (``people_told``), before anything
is saved: distinct people, one question to the host, never part of the hash."""

from __future__ import annotations

from typing import Any

import pytest

from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.splits import plan_split
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NOW, monday, occurrences, weekly_series
from tests.support.told import People, patch_people

pytestmark = pytest.mark.django_db

TUESDAYS = {"weekdays": [1]}


@pytest.fixture
def people(monkeypatch: pytest.MonkeyPatch) -> People:
    return patch_people(monkeypatch, Event)


def seat_taken(event: Any) -> None:
    """One place taken on ``event``: booked for the plan's own count."""
    Seat.objects.update_or_create(event=event, label="Main", defaults={"booked": 1, "quantity": 10})


def test_a_plan_counts_each_person_booked_on_its_moving_dates_once(people: People) -> None:
    series = weekly_series()
    rows = occurrences(series)
    for row in (rows[1], rows[3]):
        seat_taken(row)
    # Two dates, one shared person: three people, not four.
    people.book(rows[1], "Ada@example.com")
    people.book(rows[3], "ada@example.com")
    people.book(rows[3], "bo@example.com")
    people.book(rows[1], "cy@example.com")
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert plan.people_told == 3
    assert people.calls == 1


def test_people_on_dates_that_stay_are_not_counted(people: People) -> None:
    series = weekly_series()
    rows = occurrences(series)
    seat_taken(rows[2])
    people.book(rows[2], "ada@example.com")
    # Mondays and Tuesdays: every Monday stays.
    plan = plan_recurrence_change(series, {"weekdays": [0, 1]}, now=NOW)
    assert plan.drift == ()
    assert plan.people_told == 0
    assert people.calls == 0


def test_without_the_hook_nobody_is_counted() -> None:
    series = weekly_series()
    rows = occurrences(series)
    seat_taken(rows[1])
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert plan.booked_drift
    assert plan.people_told == 0


def test_the_count_is_not_hashed(monkeypatch: pytest.MonkeyPatch) -> None:
    series = weekly_series()
    rows = occurrences(series)
    seat_taken(rows[1])
    before = plan_recurrence_change(series, TUESDAYS, now=NOW)
    people = patch_people(monkeypatch, Event)
    people.book(rows[1], "ada@example.com")
    after = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert (before.people_told, after.people_told) == (0, 1)
    assert after.hash == before.hash
    applied = apply_recurrence_plan(series, before.hash, TUESDAYS, cancel_drift="all", now=NOW)
    assert rows[1].pk in applied.moved


def test_a_split_counts_the_people_on_every_booked_date_that_changes_series(
    people: People,
) -> None:
    series = weekly_series()
    rows = occurrences(series)
    for row in (rows[1], rows[5], rows[6]):
        seat_taken(row)
    people.book(rows[1], "before@example.com")  # before the split: stays with the original
    people.book(rows[5], "ada@example.com")  # stays on its Monday, in the continuation
    people.book(rows[6], "ada@example.com")
    people.book(rows[6], "bo@example.com")
    plan = plan_split(series, at=monday(4), name="Evening yoga", now=NOW)
    assert plan.drift == ()
    assert plan.people_told == 2
    assert people.calls == 1
