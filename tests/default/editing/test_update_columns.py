"""update_columns: each row's own values in one UPDATE, the way bulk_update writes them."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.models import EventSeries
from revel_recurring.services.toolbox.columns import update_columns
from tests.support.factories import NOW

pytestmark = pytest.mark.django_db

COLUMNS = ("next_due_at", "last_generated_until", "last_occurrence_index", "parked_reason")


def make_rows(count: int, prefix: str = "s") -> list[EventSeries]:
    return EventSeries.objects.bulk_create(
        [EventSeries(name=f"Series {prefix}{n}", slug=f"series-{prefix}{n}") for n in range(count)]
    )


def stored(rows: list[EventSeries]) -> list[tuple[object, ...]]:
    by_pk = {
        values[0]: values[1:]
        for values in EventSeries.objects.values_list("pk", *COLUMNS).filter(
            pk__in=[row.pk for row in rows]
        )
    }
    return [by_pk[row.pk] for row in rows]


def test_each_row_gets_its_own_values_and_a_shared_value_is_written_once_in_one_statement() -> None:
    rows = make_rows(4)
    untouched = make_rows(1, prefix="other")[0]
    for number, row in enumerate(rows):
        # Differing per row, one of them NULL; the same for all; all NULL but one.
        row.next_due_at = None if number == 2 else NOW + dt.timedelta(hours=number)
        row.last_generated_until = NOW
        row.last_occurrence_index = 10 * number
        row.parked_reason = "broken" if number == 3 else ""
    with CaptureQueriesContext(connection) as queries:
        update_columns(rows, COLUMNS)
    assert len(queries) == 1
    assert stored(rows) == [
        (NOW, NOW, 0, ""),
        (NOW + dt.timedelta(hours=1), NOW, 10, ""),
        (None, NOW, 20, ""),
        (NOW + dt.timedelta(hours=3), NOW, 30, "broken"),
    ]
    assert stored([untouched]) == [(None, None, 0, "")]


def test_rows_over_the_backends_parameter_cap_go_in_several_statements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = make_rows(7)
    for number, row in enumerate(rows):
        row.next_due_at = NOW + dt.timedelta(days=number)
        row.last_occurrence_index = number
    # Two rows' keys and values per statement: (2 * 4 + 1) * 2 parameters.
    monkeypatch.setattr(connection.features, "max_query_params", 18)
    with CaptureQueriesContext(connection) as queries:
        update_columns(rows, COLUMNS)
    assert len(queries) == 4
    assert [values[0] for values in stored(rows)] == [NOW + dt.timedelta(days=n) for n in range(7)]
    assert [values[2] for values in stored(rows)] == list(range(7))


def test_nothing_to_write_runs_no_statement() -> None:
    with CaptureQueriesContext(connection) as queries:
        update_columns([], COLUMNS)
    assert not queries
