"""Extra dates under concurrency, on PostgreSQL: the series lock keeps every writer's date."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.generation import generate_series_events
from tests.default.postgres.test_lifecycle_postgres import run_concurrently
from tests.support.factories import NOW, VIENNA, fresh, monday, occurrences, weekly_series

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

# Wednesdays 18:30 in Vienna, inside the window and beyond it, across 29 March.
WEDNESDAYS = [
    dt.datetime(2026, 3, 4, 18, 30, tzinfo=VIENNA) + dt.timedelta(weeks=w) for w in range(10)
]


def test_concurrent_extra_dates_cancellations_and_a_generation_lose_nothing() -> None:
    series = weekly_series(window_weeks=4)

    def add(instant: dt.datetime) -> Callable[[], Any]:
        return lambda: add_extra_date(EventSeries.objects.get(pk=series.pk), instant, now=NOW)

    def cancel(week: int) -> Callable[[], Any]:
        return lambda: cancel_occurrence(
            EventSeries.objects.get(pk=series.pk), monday(week), now=NOW
        )

    def generate() -> Any:
        return generate_series_events(
            EventSeries.objects.get(pk=series.pk), until=monday(9), now=NOW
        )

    _, errors = run_concurrently(
        [*(add(instant) for instant in WEDNESDAYS), cancel(1), cancel(6), generate]
    )
    assert errors == []
    stored = fresh(series)
    assert stored.extra_date_instants == {instant.astimezone(dt.UTC) for instant in WEDNESDAYS}
    assert stored.exdate_instants == {monday(1), monday(6)}
    slots = [event.recurrence_id for event in occurrences(series)]
    assert len(slots) == len(set(slots))
    # Every Wednesday up to the cursor was generated, once.
    cursor = stored.last_generated_until
    assert cursor is not None
    assert {w for w in WEDNESDAYS if w <= cursor} <= set(slots)
