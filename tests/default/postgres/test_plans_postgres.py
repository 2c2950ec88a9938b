"""Two clients applying change plans at once on a real PostgreSQL server.

Both planned from the same state; both apply at once, each in its own thread
with its own connection. The first to take the series lock holds it (its
booking hook, called under the lock, waits until the test sees the other
client waiting for a lock), so the other provably arrives while the change is under
way: it must recompute its plan after the winner committed, find another hash,
raise ``PlanOutdatedError`` and write nothing.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from django.db import connection

from revel_recurring.exceptions import PlanOutdatedError
from revel_recurring.models import EventSeries
from revel_recurring.services.plans import (
    EXTRA_DATES_KEY,
    apply_recurrence_plan,
    plan_recurrence_change,
)
from tests.hosts.testapp.models import Event, Seat
from tests.support.concurrency import Background, race, wait_until_blocked
from tests.support.factories import NOW, fresh, monday, occurrences, weekly_series

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED
TUESDAYS = {"weekdays": [1]}


class HeldLock:
    """Once armed, the first booking count (under the winner's lock) waits to be released."""

    def __init__(self) -> None:
        self.armed, self.inside, self.released = (threading.Event() for _ in range(3))

    def race(self, workers: list[Callable[[], None]]) -> list[BaseException]:
        """Race ``workers``; release the lock holder once another client waits for it.

        The waiting is seen from this thread's connection: it runs each statement
        in a transaction of its own, so each one reads pg_stat_activity afresh
        (a transaction reads it once, so the holder itself could not poll it).
        """
        self.armed.set()
        running = Background(lambda: race(workers))
        try:
            assert self.inside.wait(10), "no client reached the booking count"
            wait_until_blocked(1)
        finally:
            self.released.set()
        errors: list[BaseException] = running.result()
        return errors


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> HeldLock:
    count = Event.count_bookings_among.__func__  # type: ignore[attr-defined]
    lock = HeldLock()

    def count_slowly(cls: type[Event], events: Sequence[Event]) -> dict[Any, int]:
        if lock.armed.is_set() and not lock.inside.is_set():
            lock.inside.set()
            assert lock.released.wait(15), "never released"
        return dict(count(cls, events))

    monkeypatch.setattr(Event, "count_bookings_among", classmethod(count_slowly))
    return lock


def _client(
    series: EventSeries, plan_hash: str, changes: dict[str, Any], outcomes: list[Any]
) -> Callable[[], None]:
    def apply() -> None:
        mine = EventSeries.objects.get(pk=series.pk)
        outcomes.append(
            apply_recurrence_plan(mine, plan_hash, changes, cancel_drift="all", now=NOW)
        )

    return apply


def _no_duplicates(series: EventSeries) -> Counter[Any]:
    slots = Counter(
        Event.objects.filter(series=series, is_template=False).values_list(
            "recurrence_id", flat=True
        )
    )
    assert max(slots.values()) == 1, slots
    return slots


def test_the_same_plan_applied_twice_at_once_is_applied_once(held: HeldLock) -> None:
    series = weekly_series()
    change = {"weekdays": [1]}
    plan = plan_recurrence_change(series, change, now=NOW)  # both clients were shown this
    outcomes: list[Any] = []

    errors = held.race([_client(series, plan.hash, change, outcomes) for _ in range(2)])

    (applied,) = outcomes
    (error,) = errors
    assert isinstance(error, PlanOutdatedError), repr(error)
    assert error.plan.changed == frozenset()  # the fresh plan sees the Tuesdays
    assert error.plan.new == ()
    assert error.plan.drift == ()
    # Each Monday moved once, to its week's Tuesday: nothing created or cancelled.
    assert len(applied.moved) == 8
    assert (applied.created, applied.cancelled) == ([], [])
    slots = _no_duplicates(series)
    assert set(slots) == {monday(week) + dt.timedelta(days=1) for week in range(8)}
    assert CALLED_OFF not in [e.state for e in occurrences(series)]
    assert fresh(series).exdate_instants == set()


def test_two_different_changes_planned_together_only_one_is_applied(
    held: HeldLock,
) -> None:
    series = weekly_series()
    rows = occurrences(series)
    tuesdays, wednesdays = {"weekdays": [1]}, {"weekdays": [2]}
    plans = [plan_recurrence_change(series, change, now=NOW) for change in (tuesdays, wednesdays)]
    outcomes: list[Any] = []

    errors = held.race(
        [
            _client(series, plan.hash, change, outcomes)
            for plan, change in zip(plans, (tuesdays, wednesdays), strict=True)
        ]
    )

    (applied,) = outcomes
    (error,) = errors
    assert isinstance(error, PlanOutdatedError), repr(error)
    won = applied.plan.rrule_string
    lost = next(plan for plan in plans if plan.rrule_string != won)
    rule = fresh(series).recurrence_rule
    assert rule is not None
    assert rule.rrule_string == won
    # The loser's fresh plan starts from the winner's rule: the same rows, moved by the
    # winner, would move again.
    assert error.plan.rrule_string == lost.rrule_string
    assert len(applied.moved) == 8
    assert {row.id for row in error.plan.drift} == {row.pk for row in rows}
    assert all(row.moves_to is not None for row in error.plan.drift)
    slots = _no_duplicates(series)
    assert len(slots) == 8


def test_two_sets_of_extra_dates_planned_together_only_one_is_applied(held: HeldLock) -> None:
    series = weekly_series()
    # A Wednesday evening in summer time each, inside the window.
    wednesdays = [monday(week) + dt.timedelta(days=2, hours=8) for week in (5, 6)]
    changes = [{EXTRA_DATES_KEY: [instant]} for instant in wednesdays]
    plans = [plan_recurrence_change(series, change, now=NOW) for change in changes]
    outcomes: list[Any] = []

    errors = held.race(
        [
            _client(series, plan.hash, change, outcomes)
            for plan, change in zip(plans, changes, strict=True)
        ]
    )

    (applied,) = outcomes
    (error,) = errors
    assert isinstance(error, PlanOutdatedError), repr(error)
    (won,) = [date.start for date in applied.plan.new]
    (lost,) = [instant for instant in wednesdays if instant != won]
    assert fresh(series).extra_date_instants == {won}
    # The loser's fresh plan starts from the winner's extra dates: its row is drift now.
    assert [date.start for date in error.plan.new] == [lost]
    assert [row.start for row in error.plan.drift] == [won]
    slots = _no_duplicates(series)
    assert lost not in slots
    assert len(slots) == 9


def test_a_date_booked_after_the_hash_was_checked_is_kept_by_apply_all(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    # Nobody told: a booked date moves only when ticked (the case this test is about).
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    # The apply counts the bookings under the series lock (the hash matches: none
    # yet), then a booking is committed by another connection before the apply
    # locks the rows it moves. Asked again under those locks, the date is kept.
    series = weekly_series()
    rows = occurrences(series)
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    counted, booked = threading.Event(), threading.Event()
    count = Event.count_bookings_among.__func__  # type: ignore[attr-defined]

    def count_then_wait(cls: type[Event], events: Sequence[Event]) -> dict[Any, int]:
        found = dict(count(cls, events))
        if not counted.is_set():
            counted.set()
            assert booked.wait(15), "the booking never came"
        return found

    monkeypatch.setattr(Event, "count_bookings_among", classmethod(count_then_wait))
    applying = Background(
        lambda: apply_recurrence_plan(
            EventSeries.objects.get(pk=series.pk),
            plan.hash,
            TUESDAYS,
            cancel_drift="all",
            now=NOW,
        )
    )
    try:
        assert counted.wait(10), "the apply never counted the bookings"
        Seat.objects.create(event=rows[6], label="Late", quantity=5, booked=1)
    finally:
        booked.set()
    applied = applying.result()

    # Every Monday has its Tuesday: all move but the one booked since the plan.
    assert [date.id for date in applied.kept_booked] == [rows[6].pk]
    assert rows[6].pk not in applied.moved
    assert len(applied.moved) == 7
    kept = Event.objects.get(pk=rows[6].pk)
    assert kept.state != CALLED_OFF
    assert kept.starts_at == rows[6].starts_at
