"""A generation that waited for the series lock uses the rule committed while it waited.

Each test holds the series lock in one thread (an update_series_recurrence inside
an open transaction), starts generation in another, waits until PostgreSQL
reports that backend blocked on the lock, then commits the change.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from django.db import connection

from revel_recurring import rules
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import update_series_recurrence
from tests.support.concurrency import Background, held_in_transaction, race, wait_until_blocked
from tests.support.factories import NOW, VIENNA, make_series, occurrences

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]


def _generate_while_rule_changes(series: EventSeries, **changes: Any) -> list[Any]:
    def change() -> None:
        update_series_recurrence(
            EventSeries.objects.get(pk=series.pk), rule_changes=changes, now=NOW
        )

    with held_in_transaction(change):
        generation = Background(lambda: generate_series_events(series.pk, now=NOW))
        wait_until_blocked()
    return list(generation.result())


def _wall_clocks(series: EventSeries) -> list[str]:
    return [f"{e.starts_at.astimezone(VIENNA):%a %d %H:%M}" for e in occurrences(series)]


def test_generation_after_a_lock_wait_uses_the_new_weekday() -> None:
    series = make_series(window_weeks=4)
    _generate_while_rule_changes(series, weekdays=[2])
    assert _wall_clocks(series) == ["Wed 04 10:00", "Wed 11 10:00", "Wed 18 10:00", "Wed 25 10:00"]


def test_generation_after_a_lock_wait_uses_the_new_frequency() -> None:
    series = make_series(window_weeks=1)
    _generate_while_rule_changes(series, frequency="DAILY")
    assert len(occurrences(series)) == 6  # Monday 2 to Saturday 7 March
    assert _wall_clocks(series)[:2] == ["Mon 02 10:00", "Tue 03 10:00"]


def test_generation_after_a_lock_wait_uses_the_new_count() -> None:
    series = make_series(window_weeks=4)
    _generate_while_rule_changes(series, count=2)
    series.refresh_from_db()
    assert _wall_clocks(series) == ["Mon 02 10:00", "Mon 09 10:00"]
    assert series.next_due_at is None


def _unmaterialized_below_cursor(series: EventSeries) -> list[dt.datetime]:
    series.refresh_from_db()
    rule = RecurrenceRule.objects.get(pk=series.recurrence_rule_id)
    if series.last_generated_until is None:
        return []
    expected = (
        set(
            rules.occurrences_between(
                rule.to_spec(), NOW, series.last_generated_until, inclusive=True
            )
        )
        - series.exdate_instants
    )
    taken = {e.recurrence_id for e in occurrences(series)}
    return sorted(expected - taken)


def test_free_race_of_generators_and_rule_changes_leaves_no_gap_below_the_cursor() -> None:
    weekday_sets = [[0], [2], [4], [1, 3], [0, 5]]
    for round_number in range(6):
        series = make_series(name=f"race {round_number}", window_weeks=3)
        picks = random.Random(round_number)

        def generate(series_id: int = series.pk) -> None:
            generate_series_events(series_id, now=NOW)

        def change(days: list[int], series_id: int = series.pk) -> Any:
            return lambda: update_series_recurrence(
                EventSeries.objects.get(pk=series_id), rule_changes={"weekdays": days}, now=NOW
            )

        first, second = picks.sample(weekday_sets, 2)
        errors = race([generate, change(first), generate, change(second), generate, generate])
        assert errors == []
        generate_series_events(series.pk, now=NOW)  # settles a change that committed last
        assert _unmaterialized_below_cursor(series) == []
