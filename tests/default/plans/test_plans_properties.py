"""Plan equals effect: what a change plan says is what applying the change does.

For random rules, random materialized states (extra dates, rows moved by hand,
cancelled, deleted, slots excluded ahead, seats booked) and random changes of
weekdays, interval, dtstart, until, count, window, time zone and extra dates
(some kept, some left out, some added, across Vienna's switch to summer time),
the plan computed at ``now`` is compared with what :func:`apply_recurrence_plan`
then does at the same ``now``:

- ``stay`` and ``drift`` partition the live future rows read before the change;
- each row's ``bookings`` is the host's count (testapp: the sum of ``Seat.booked``);
- the drifted rows with somewhere to go (``moves_to``: a partner, or a holiday's
  day) and without bookings move there, keeping their ids, under every mode;
- with ``cancel_drift="none"`` the rows created start exactly at the plan's
  ``new`` dates, the booked rows that would move stay (``kept_booked``), and the
  drifted rows not modified nor moved are exactly what
  :func:`detect_cadence_drift` finds afterwards;
- with ``cancel_drift="all"`` the booked rows move too and exactly the other
  drifted rows not modified are cancelled, and with a list of some of their ids
  exactly those move or are cancelled, booked or not.

Every plan and apply here is for nobody told (``notify="none"``): with the people
told, booked rows move like free ones (tests/default/moves and test_plans.py).

Each example runs in a savepoint that is rolled back (as in test_rule_fuzz.py),
and each of the three applies in a savepoint of its own, so all see one state.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Sum
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from revel_recurring import rules
from revel_recurring.exceptions import RecurrenceError
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.plans import (
    EXTRA_DATES_KEY,
    RecurrencePlan,
    apply_recurrence_plan,
    plan_recurrence_change,
)
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NOW, fresh, occurrences

pytestmark = pytest.mark.django_db

PROPERTIES = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
CALLED_OFF = Event.RECURRING_STATUS_CANCELLED
VIENNA = "Europe/Vienna"
ZONES = (VIENNA, "America/New_York", "Asia/Kolkata", "UTC")
# Vienna switches to summer time on Sunday 29 March 2026 (02:00 -> 03:00): the
# Sundays at 02:30 fall into the gap, and every window below spans the switch.
HOURS = (2, 10, 23)
# Extra dates: days after the rule's first date, and the minute past one of HOURS
# (:30 may be a date of the rule, and is then refused as an added one).
EXTRA_DAYS = st.integers(1, 50)
EXTRA_MINUTES = st.sampled_from((45, 45, 45, 30))


@dataclass(frozen=True)
class Materialized:
    """What is done to the first generated rows, by their position in start order."""

    moved: dict[int, dt.timedelta]
    retitled: frozenset[int]
    cancelled: frozenset[int]
    deleted: frozenset[int]
    booked: dict[int, tuple[int, int]]
    excluded_ahead: tuple[int, ...]
    #: Extra dates added before anything else, as (days after dtstart, hour, minute).
    extra: tuple[tuple[int, int, int], ...]


@st.composite
def base_rules(draw: st.DrawFn) -> dict[str, Any]:
    day = draw(st.integers(0, 6))
    hour = draw(st.sampled_from(HOURS))
    wall = dt.datetime(2026, 3, 2 + day, hour, 30)
    dtstart = wall.replace(tzinfo=ZoneInfo(VIENNA))
    if draw(st.booleans()):
        return {
            "frequency": "DAILY",
            "interval": draw(st.integers(1, 3)),
            "dtstart": dtstart,
            "timezone": VIENNA,
        }
    return {
        "frequency": "WEEKLY",
        "interval": draw(st.integers(1, 2)),
        "weekdays": draw(st.lists(st.integers(0, 6), unique=True, min_size=1, max_size=3)),
        "dtstart": dtstart,
        "timezone": VIENNA,
    }


@st.composite
def materialized_states(draw: st.DrawFn) -> Materialized:
    positions = st.integers(0, 11)
    shift = st.sampled_from(
        (dt.timedelta(hours=1), dt.timedelta(days=1), dt.timedelta(days=-1), dt.timedelta(hours=-3))
    )
    return Materialized(
        moved=draw(st.dictionaries(positions, shift, max_size=3)),
        retitled=frozenset(draw(st.lists(positions, max_size=2))),
        cancelled=frozenset(draw(st.lists(positions, max_size=3))),
        deleted=frozenset(draw(st.lists(positions, max_size=2))),
        booked=draw(
            st.dictionaries(positions, st.tuples(st.integers(0, 3), st.integers(0, 4)), max_size=5)
        ),
        excluded_ahead=tuple(draw(st.lists(st.integers(1, 4), max_size=2, unique=True))),
        extra=tuple(
            draw(
                st.lists(
                    st.tuples(EXTRA_DAYS, st.sampled_from(HOURS), EXTRA_MINUTES),
                    max_size=3,
                    unique=True,
                )
            )
        ),
    )


def _extra_instant(rule: dict[str, Any], days: int, hour: int, minute: int) -> dt.datetime:
    """The wall clock ``hour:minute`` in Vienna, ``days`` after the rule's first day."""
    day = rule["dtstart"].date() + dt.timedelta(days=days)
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=ZoneInfo(VIENNA))


@st.composite
def changes(draw: st.DrawFn, rule: dict[str, Any], state: Materialized) -> dict[str, Any]:
    """A change of some of the rule's fields, the window and the extra dates (possibly none)."""
    found: dict[str, Any] = {}
    if draw(st.booleans()):
        found["frequency"] = draw(st.sampled_from(("DAILY", "WEEKLY")))
    frequency = found.get("frequency", rule["frequency"])
    if frequency == "WEEKLY" and draw(st.booleans()):
        found["weekdays"] = draw(st.lists(st.integers(0, 6), unique=True, max_size=3))
    if draw(st.booleans()):
        found["interval"] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        # Moved by whole days and hours: across the DST switch, or onto another time.
        found["dtstart"] = rule["dtstart"] + dt.timedelta(
            days=draw(st.integers(-3, 30)), hours=draw(st.sampled_from((0, 0, 1, -2, 5)))
        )
    end = draw(st.sampled_from((None, None, "until", "count")))
    if end == "until":
        found["until"] = rule["dtstart"] + dt.timedelta(days=draw(st.integers(5, 60)))
    elif end == "count":
        found["count"] = draw(st.integers(1, 40))
    if draw(st.booleans()):
        found["timezone"] = draw(st.sampled_from(ZONES))
    if draw(st.booleans()):
        found["generation_window_weeks"] = draw(st.integers(1, 8))
    if draw(st.booleans()):
        # The whole new set: some of those the series has, and some more. Those
        # left out whose occurrence takes place become drift.
        kept = [extra for extra in state.extra if draw(st.booleans())]
        more = draw(
            st.lists(st.tuples(EXTRA_DAYS, st.sampled_from(HOURS), EXTRA_MINUTES), max_size=3)
        )
        found[EXTRA_DATES_KEY] = [_extra_instant(rule, *extra) for extra in (*kept, *more)]
    return found


def _in_savepoint(work: Callable[[], Any]) -> Any:
    with transaction.atomic():
        result = work()
        transaction.set_rollback(True)
    return result


def _build(rule: dict[str, Any], state: Materialized, window: int) -> EventSeries:
    series = create_recurring_series(
        rule_data=rule,
        template_data={"title": "Class", "venue": "Studio 2", "capacity": 20},
        name="Class",
        generation_window_weeks=window,
        now=NOW,
    )
    for extra in state.extra:
        # Refused when it is a date of the rule already.
        with contextlib.suppress(ValidationError):
            add_extra_date(series, _extra_instant(rule, *extra), now=NOW)
    # A second seat on the template: counts are sums over seats, not one seat's.
    template = Event.objects.get(series=series, is_template=True)
    Seat.objects.create(event=template, label="Balcony", quantity=5)
    rows = occurrences(series)
    Seat.objects.bulk_create(
        [
            Seat(event=row, label=label, quantity=10)
            for row in rows
            for label in ("Row 1", "Balcony")
        ]
    )
    for position, (first, second) in state.booked.items():
        if position < len(rows):
            seats = list(Seat.objects.filter(event=rows[position]).order_by("label"))
            seats[0].booked, seats[1].booked = first, second
            Seat.objects.bulk_update(seats, ["booked"])
    for position, delta in state.moved.items():
        if position < len(rows):
            row = rows[position]
            row.starts_at += delta
            row.save()
    for position in state.retitled - set(state.moved):
        if position < len(rows):
            rows[position].title = "Special class"
            rows[position].save()
    for position in sorted(state.cancelled):
        if position < len(rows) and position not in state.deleted:
            slot = rows[position].recurrence_id
            assert slot is not None
            cancel_occurrence(series, slot, include_booked=True, now=NOW)
    for position in state.deleted:
        if position < len(rows):
            Event.objects.filter(pk=rows[position].pk).delete()
    # Slots of the rule beyond the generated window, excluded before they exist: after
    # the last slot held (a moved row may stand last in start order with an earlier slot).
    last = max((row.recurrence_id for row in rows if row.recurrence_id), default=None)
    if last is not None:
        upcoming = series.recurrence_rule
        assert upcoming is not None
        ahead = list(
            rules.occurrences_between(
                upcoming.to_spec(), last + dt.timedelta(seconds=1), last + dt.timedelta(weeks=4)
            )
        )
        for index in state.excluded_ahead:
            if index - 1 < len(ahead):
                cancel_occurrence(series, ahead[index - 1], now=NOW)
    return fresh(series)


def _host_counts() -> dict[Any, int]:
    return {
        pk: int(total)
        for pk, total in Seat.objects.filter(event__is_template=False)
        .values("event_id")
        .annotate(total=Sum("booked"))
        .values_list("event_id", "total")
    }


def _check_plan_against_state(series: EventSeries, plan: RecurrencePlan, now: dt.datetime) -> None:
    live = set(
        Event.objects.filter(series=series, is_template=False, starts_at__gte=now)
        .exclude(state=CALLED_OFF)
        .values_list("pk", flat=True)
    )
    stay = {row.id for row in plan.stay}
    drift = {row.id for row in plan.drift}
    assert not stay & drift
    assert stay | drift == live
    counts = _host_counts()
    for row in (*plan.stay, *plan.drift):
        assert row.bookings == counts.get(row.id, 0), row
        assert row.booked is (row.bookings > 0)
    assert {row.id for row in plan.booked_drift} == {pk for pk in drift if counts.get(pk, 0)}
    modified = set(Event.objects.filter(pk__in=live, is_modified=True).values_list("pk", flat=True))
    assert {row.id for row in (*plan.stay, *plan.drift) if row.is_modified} == modified


def _movers(plan: RecurrencePlan) -> list[Any]:
    """The drifted dates the plan moves (to a partner or a holiday's day): never one
    edited by hand."""
    return [row for row in plan.drift if row.moves_to is not None and not row.is_modified]


def _check_moved(applied: Any, plan: RecurrencePlan, moving: set[Any]) -> None:
    """Exactly ``moving`` (and the cancelled dates the plan moves) moved, each to its
    ``moves_to``, keeping its id."""
    cancelled_moves = {row.id for row in plan.cancelled_moves}
    assert set(applied.moved) == moving | cancelled_moves
    targets = {row.id: row.moves_to for row in (*plan.drift, *plan.cancelled_moves)}
    starts = dict(Event.objects.filter(pk__in=applied.moved).values_list("pk", "starts_at"))
    assert starts == {pk: targets[pk] for pk in applied.moved}


def _apply_none(
    series: EventSeries, plan: RecurrencePlan, change: dict[str, Any], now: dt.datetime
) -> None:
    applied = apply_recurrence_plan(
        series, plan.hash, change, cancel_drift="none", notify="none", now=now
    )
    movers = _movers(plan)
    # Dates without bookings move under every mode; booked ones stay, named.
    _check_moved(applied, plan, {row.id for row in movers if not row.booked})
    assert {date.id for date in applied.kept_booked} == {row.id for row in movers if row.booked}
    assert [row.starts_at for row in applied.created] == [date.start for date in plan.new]
    assert applied.cancelled == []
    unmodified_drift = {row.id for row in plan.drift if not row.is_modified}
    assert set(detect_cadence_drift(fresh(series), now=now)) == unmodified_drift - set(
        applied.moved
    )
    assert {row.id for row in applied.kept_modified} == {
        row.id for row in plan.drift if row.is_modified
    }
    # The change is done: planning "no change" now finds the drift left (nothing
    # moved is drift any more) and nothing left to create.
    after = plan_recurrence_change(series, {}, notify="none", now=now)
    assert [row.id for row in after.drift] == [
        row.id for row in plan.drift if row.id not in set(applied.moved)
    ]
    assert after.new == ()


def _apply_all(
    series: EventSeries, plan: RecurrencePlan, change: dict[str, Any], now: dt.datetime
) -> None:
    applied = apply_recurrence_plan(
        series, plan.hash, change, cancel_drift="all", notify="none", now=now
    )
    movers = {row.id for row in _movers(plan)}
    _check_moved(applied, plan, movers)
    going = [row.id for row in plan.drift if not row.is_modified and row.id not in movers]
    assert set(applied.cancelled) == set(going)
    assert applied.kept_booked == []
    states = dict(Event.objects.filter(series=series).values_list("pk", "state"))
    assert all(states[pk] == CALLED_OFF for pk in going)
    assert all(states[pk] != CALLED_OFF for pk in movers)
    assert all(states[row.id] != CALLED_OFF for row in plan.drift if row.is_modified)
    assert all(states[row.id] != CALLED_OFF for row in plan.stay)
    # The booked dates moved too: the new dates the plan showed beside them are theirs.
    assert [row.starts_at for row in applied.created] == [
        date.start for date in plan.new if date.beside is None
    ]
    assert detect_cadence_drift(fresh(series), now=now) == []


def _few(found: tuple[Any, ...]) -> str:
    return "3+" if len(found) >= 3 else str(len(found))


def _apply_named(
    series: EventSeries,
    plan: RecurrencePlan,
    change: dict[str, Any],
    now: dt.datetime,
    picks: list[bool],
) -> None:
    candidates = [row.id for row in plan.drift if not row.is_modified]
    named = [pk for pk, pick in zip(candidates, picks, strict=False) if pick]
    applied = apply_recurrence_plan(
        series, plan.hash, change, cancel_drift=named, notify="none", now=now
    )
    movers = {row.id for row in _movers(plan)}
    # Exactly the named dates move or go, booked or not: these were ticked.
    _check_moved(applied, plan, {pk for pk in named if pk in movers})
    going = [pk for pk in named if pk not in movers]
    assert applied.cancelled == going
    states = dict(Event.objects.filter(series=series).values_list("pk", "state"))
    live_before = {row.id for row in (*plan.stay, *plan.drift)}
    assert {pk for pk in live_before if states[pk] == CALLED_OFF} == set(going)


@PROPERTIES
@given(data=st.data())
def test_the_plan_is_what_applying_the_change_does(data: st.DataObject) -> None:
    rule = data.draw(base_rules(), label="rule")
    state = data.draw(materialized_states(), label="state")
    window = data.draw(st.integers(2, 6), label="window")
    change = data.draw(changes(rule, state), label="change")
    later = data.draw(st.sampled_from((0, 0, 3, 9, 20)), label="days later")
    picks = data.draw(st.lists(st.booleans(), max_size=12), label="ticked")
    now = NOW + dt.timedelta(days=later, hours=7)

    def work() -> None:
        series = _build(rule, state, window)
        try:
            plan = plan_recurrence_change(series, change, notify="none", now=now)
        except (ValidationError, RecurrenceError) as exc:
            event(f"refused: {type(exc).__name__}")
            return
        event(f"drift {_few(plan.drift)}, new {_few(plan.new)}")
        if EXTRA_DATES_KEY in plan.changed:
            event("extra dates changed")
        _check_plan_against_state(series, plan, now)
        _in_savepoint(lambda: _apply_none(series, plan, change, now))
        _in_savepoint(lambda: _apply_all(series, plan, change, now))
        _in_savepoint(lambda: _apply_named(series, plan, change, now, picks))

    _in_savepoint(work)
