"""Concurrency on a real PostgreSQL server: the row lock and the unique slot constraint."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NOW, make_series, occurrences

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]


def run_in_threads(count: int, work: Any) -> tuple[list[Any], list[BaseException]]:
    barrier = threading.Barrier(count)
    results: list[Any] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def target() -> None:
        try:
            barrier.wait(timeout=10)
            outcome = work()
            with lock:
                results.append(outcome)
        except BaseException as exc:
            with lock:
                errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=target) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results, errors


def test_eight_concurrent_generations_create_one_set() -> None:
    series = make_series(seats=1)

    def generate() -> int:
        return len(generate_series_events(EventSeries.objects.get(pk=series.pk), now=NOW))

    results, errors = run_in_threads(8, generate)
    assert errors == []
    assert sorted(results) == [0, 0, 0, 0, 0, 0, 0, 8]
    created = occurrences(series)
    assert len(created) == 8
    assert len({e.recurrence_id for e in created}) == 8
    assert sorted(e.occurrence_index for e in created) == list(range(1, 9))
    assert Seat.objects.filter(event__in=created).count() == 8


def test_database_rejects_a_duplicate_slot() -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    first = occurrences(series)[0]
    duplicate = Event(
        series=series,
        title="forced",
        starts_at=first.starts_at,
        recurrence_id=first.recurrence_id,
        occurrence_index=99,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.bulk_create([duplicate])


def test_database_rejects_a_second_template() -> None:
    series = make_series()
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(series=series, is_template=True, title="again", starts_at=NOW)
