"""Splits racing generation, cancellation and each other on a real PostgreSQL server."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from revel_recurring import rules
from revel_recurring.exceptions import NotAnOccurrenceError, PlanOutdatedError
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.splits import plan_split, split_series
from tests.default.postgres.test_lifecycle_postgres import run_concurrently
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, fresh, monday, weekly_series

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED


def chain(series: EventSeries) -> list[EventSeries]:
    """The series and every continuation after it, in link order."""
    found = [fresh(series)]
    while (nxt := EventSeries.objects.filter(split_from=found[-1]).first()) is not None:
        found.append(nxt)
    return found


def check_chain(series: EventSeries, *, weekly_mondays: bool = True) -> list[Any]:
    """No slot doubled or lost along the chain; each cancelled row's slot is its series' exdate."""
    halves = chain(series)
    rows = list(Event.objects.filter(series__in=halves, is_template=False))
    slots = sorted(row.recurrence_id for row in rows)
    assert len(slots) == len(set(slots)), "a slot was materialized twice"
    by_id = {half.pk: fresh(half) for half in halves}
    # Every date up to the last one is a row or an exdate (a date cancelled before
    # it was generated has no row): nothing fell between the halves.
    excluded = set().union(*(half.exdate_instants for half in by_id.values()))
    known = sorted(set(slots) | {instant for instant in excluded if instant <= slots[-1]})
    assert not weekly_mondays or known == [monday(week) for week in range(len(known))], (
        "a date was lost"
    )
    for row in rows:
        exdates = by_id[row.series_id].exdate_instants
        assert (row.occurrence_status == CALLED_OFF) == (rules.to_utc(row.recurrence_id) in exdates)
    return slots


@pytest.mark.parametrize("round_", range(3))
def test_a_split_racing_generation_and_a_cancel_of_a_moved_date(round_: int) -> None:
    series = weekly_series(window_weeks=2, name=f"Split race {round_}")

    def split() -> Any:
        return split_series(EventSeries.objects.get(pk=series.pk), at=monday(3), now=NOW)

    def generate() -> Any:
        return generate_series_events(
            EventSeries.objects.get(pk=series.pk), until=monday(9), now=NOW
        )

    def cancel() -> Any:
        # Slot 5 moves with the split; cancelling it through the original either
        # lands before the split (and the exdate moves along) or finds the date gone.
        try:
            cancel_occurrence(EventSeries.objects.get(pk=series.pk), monday(5), now=NOW)
        except NotAnOccurrenceError:
            return False
        return True

    results, errors = run_concurrently([split, generate, cancel])
    assert errors == []
    slots = check_chain(series)
    assert monday(2) in slots
    assert len(chain(series)) == 2
    # The cancel either reached the date (a row cancelled, or an exdate before it
    # was generated) or found it gone with the split.
    exdates = set().union(*(half.exdate_instants for half in chain(series)))
    assert (monday(5) in exdates) == results[2]
    cancelled = Event.objects.filter(
        recurrence_id=monday(5), **{Event.RECURRING_STATUS_FIELD: CALLED_OFF}
    )
    if cancelled.exists():
        assert results[2]


@pytest.mark.parametrize("round_", range(3))
def test_two_planned_splits_of_one_state_one_wins_the_other_is_outdated(round_: int) -> None:
    series = weekly_series(window_weeks=8, name=f"Two splits {round_}")
    early = plan_split(series, at=monday(3), now=NOW)
    late = plan_split(series, at=monday(5), recurrence={"weekdays": [2]}, now=NOW)

    def first() -> Any:
        return split_series(
            EventSeries.objects.get(pk=series.pk), at=monday(3), plan_hash=early.hash, now=NOW
        )

    def second() -> Any:
        return split_series(
            EventSeries.objects.get(pk=series.pk),
            at=monday(5),
            recurrence={"weekdays": [2]},
            plan_hash=late.hash,
            now=NOW,
        )

    results, errors = run_concurrently([first, second])
    assert len(errors) == 1
    assert isinstance(errors[0], PlanOutdatedError)
    # The loser hears why: a fresh plan, or the reason its split no longer applies.
    assert errors[0].plan is not None or "no longer applies" in str(errors[0])
    assert len([result for result in results if result is not None]) == 1
    assert len(chain(series)) == 2
    check_chain(series, weekly_mondays=False)


def test_a_split_racing_generation_of_its_continuation_doubles_nothing() -> None:
    series = weekly_series(window_weeks=2, name="Continuation race")
    continuation = split_series(series, at=monday(1), now=NOW).continuation

    def generate() -> Any:
        return generate_series_events(
            EventSeries.objects.get(pk=continuation.pk), until=monday(10), now=NOW
        )

    def split_again() -> Any:
        return split_series(EventSeries.objects.get(pk=continuation.pk), at=monday(4), now=NOW)

    _, errors = run_concurrently([generate, split_again])
    assert errors == []
    assert len(chain(series)) == 3
    check_chain(series)
