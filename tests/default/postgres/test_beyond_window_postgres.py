"""Dates beyond the window under concurrency, on PostgreSQL: one date, one row."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from revel_recurring.models import EventSeries
from revel_recurring.services.beyond_window import materialize_date
from revel_recurring.services.generation import generate_series_events
from tests.default.postgres.test_lifecycle_postgres import run_concurrently
from tests.support.factories import NOW, fresh, monday, occurrences, weekly_series

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]


def test_racing_materializations_of_one_date_make_one_row() -> None:
    series = weekly_series(window_weeks=4)
    far, other = monday(26), monday(30)

    def materialize(instant: Any) -> Callable[[], Any]:
        return lambda: materialize_date(EventSeries.objects.get(pk=series.pk), instant, now=NOW)

    results, errors = run_concurrently([*(materialize(far) for _ in range(6)), materialize(other)])

    assert errors == []
    at_far = [result for result in results[:6]]
    assert len({result.occurrence.pk for result in at_far}) == 1
    assert [result.created for result in at_far].count(True) == 1
    rows = occurrences(series)
    assert [row.recurrence_id for row in rows].count(far) == 1
    assert [row.recurrence_id for row in rows].count(other) == 1
    # Each row its own index, on from the window's.
    indices = [row.occurrence_index for row in rows]
    assert len(indices) == len(set(indices))
    assert fresh(series).last_occurrence_index == max(indices)


def test_a_materialization_racing_the_window_reaching_the_date_makes_one_row() -> None:
    series = weekly_series(window_weeks=4)
    target = monday(10)
    later = monday(8)  # the window from here holds the target

    def materialize() -> Any:
        return materialize_date(EventSeries.objects.get(pk=series.pk), target, now=NOW)

    def generate() -> Any:
        return generate_series_events(EventSeries.objects.get(pk=series.pk), now=later)

    results, errors = run_concurrently([materialize, generate, materialize, generate])

    assert errors == []
    rows = [row for row in occurrences(series) if row.recurrence_id == target]
    assert len(rows) == 1
    assert {result.occurrence.pk for result in (results[0], results[2])} == {rows[0].pk}
    slots = [row.recurrence_id for row in occurrences(series)]
    assert len(slots) == len(set(slots))
