"""Lifecycle writers racing each other and generation on a real PostgreSQL server.

Each thread has its own database connection (Django opens one per thread) and
closes it when done. Where an interleaving matters, a host hook is slowed down
while it runs inside the lock, so the other writer provably arrives while the
lock is held rather than by luck.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from django.db import connection

from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.propagation import update_template
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, fresh, monday, occurrences, weekly_series

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED
HOLD = 0.5  # seconds a slowed hook keeps the series lock


def run_concurrently(work: Sequence[Callable[[], Any]]) -> tuple[list[Any], list[BaseException]]:
    """Run each callable in its own thread, all released at once by a barrier."""
    barrier = threading.Barrier(len(work))
    results: list[Any] = [None] * len(work)
    errors: list[BaseException] = []
    guard = threading.Lock()

    def target(index: int, job: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = job()
        except BaseException as exc:
            with guard:
                errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=target, args=(i, job)) for i, job in enumerate(work)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    return results, errors


def test_eight_concurrent_cancellations_of_different_dates_all_survive() -> None:
    series = weekly_series(window_weeks=4)  # weeks 0..3 materialized, 4..7 not yet
    slots = [monday(week) for week in range(8)]

    def cancel(slot: Any) -> Callable[[], Any]:
        return lambda: cancel_occurrence(EventSeries.objects.get(pk=series.pk), slot, now=NOW)

    _, errors = run_concurrently([cancel(slot) for slot in slots])
    assert errors == []
    assert fresh(series).exdate_instants == set(slots)
    assert [e.state for e in occurrences(series)] == [CALLED_OFF] * 4


def test_cancellations_racing_a_generation_are_never_materialized_open() -> None:
    series = weekly_series(window_weeks=2)
    cancelled = [monday(week) for week in range(4, 8)]

    def generate() -> Any:
        return generate_series_events(
            EventSeries.objects.get(pk=series.pk), until=monday(7), now=NOW
        )

    def cancel(slot: Any) -> Callable[[], Any]:
        return lambda: cancel_occurrence(EventSeries.objects.get(pk=series.pk), slot, now=NOW)

    _, errors = run_concurrently([generate, *[cancel(slot) for slot in cancelled]])
    assert errors == []
    assert fresh(series).exdate_instants == set(cancelled)
    for event in occurrences(series):
        expected = CALLED_OFF if event.recurrence_id in cancelled else "planned"
        assert event.state == expected, event.recurrence_id


def slowed(monkeypatch: pytest.MonkeyPatch, name: str, entered: threading.Event) -> None:
    """Make ``Event.<name>`` signal ``entered`` and hold still while the lock is taken."""
    original = getattr(Event, name)
    is_classmethod = isinstance(inspect.getattr_static(Event, name), classmethod)

    def hook(owner: Any, *args: Any, **kwargs: Any) -> Any:
        if is_classmethod or getattr(owner, "is_template", False):
            entered.set()
            time.sleep(HOLD)
        if is_classmethod:
            return original(*args, **kwargs)
        return original(owner, *args, **kwargs)

    monkeypatch.setattr(Event, name, classmethod(hook) if is_classmethod else hook)


def test_propagation_arriving_during_a_generation_reaches_the_new_occurrences(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    series = weekly_series(window_weeks=2)  # weeks 0 and 1
    generating = threading.Event()
    slowed(monkeypatch, "clone_related", generating)

    def generate() -> Any:
        return generate_series_events(
            EventSeries.objects.get(pk=series.pk), until=monday(7), now=NOW
        )

    def propagate() -> Any:
        assert generating.wait(timeout=10)
        return update_template(
            EventSeries.objects.get(pk=series.pk),
            {"title": "Vinyasa"},
            propagate="future_unmodified",
            now=NOW,
        )

    results, errors = run_concurrently([generate, propagate])
    assert errors == []
    assert len(results[0]) == 6
    assert results[1] == 8  # it waited for the lock and saw all eight
    rows = occurrences(series)
    assert [e.recurrence_id for e in rows] == [monday(week) for week in range(8)]
    assert {e.title for e in rows} == {"Vinyasa"}


def test_generation_arriving_during_a_propagation_copies_the_new_template(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    series = weekly_series(window_weeks=2)
    propagating = threading.Event()
    slowed(monkeypatch, "full_clean", propagating)

    def propagate() -> Any:
        return update_template(
            EventSeries.objects.get(pk=series.pk),
            {"title": "Vinyasa", "venue": "Hall"},
            propagate="future_unmodified",
            now=NOW,
        )

    def generate() -> Any:
        assert propagating.wait(timeout=10)
        return generate_series_events(
            EventSeries.objects.get(pk=series.pk), until=monday(7), now=NOW
        )

    results, errors = run_concurrently([propagate, generate])
    assert errors == []
    assert results[0] == 2
    assert len(results[1]) == 6
    rows = occurrences(series)
    assert len(rows) == 8
    assert {(e.title, e.venue, e.is_modified) for e in rows} == {("Vinyasa", "Hall", False)}


@pytest.mark.parametrize("round_", range(3))
def test_free_race_of_propagation_and_generation_loses_nothing(round_: int) -> None:
    series = weekly_series(window_weeks=1, name=f"Race {round_}")

    def generate() -> Any:
        return generate_series_events(
            EventSeries.objects.get(pk=series.pk), until=monday(11), now=NOW
        )

    def propagate() -> Any:
        return update_template(
            EventSeries.objects.get(pk=series.pk),
            {"capacity": 7},
            propagate="all_future",
            now=NOW,
        )

    _, errors = run_concurrently([generate, propagate])
    assert errors == []
    rows = occurrences(series)
    assert [e.recurrence_id for e in rows] == [monday(week) for week in range(12)]
    assert {e.capacity for e in rows} == {7}


@pytest.mark.parametrize("round_", range(3))
def test_free_race_of_restore_and_propagation_leaves_no_old_values(round_: int) -> None:
    series = weekly_series(window_weeks=4, name=f"Restore race {round_}")
    cancel_occurrence(series, monday(2), now=NOW)

    def restore() -> Any:
        return restore_occurrence(EventSeries.objects.get(pk=series.pk), monday(2), now=NOW)

    def propagate() -> Any:
        return update_template(
            EventSeries.objects.get(pk=series.pk),
            {"title": f"Edit {round_}", "capacity": 7},
            propagate="future_unmodified",
            now=NOW,
        )

    _, errors = run_concurrently([restore, propagate])
    assert errors == []
    rows = occurrences(series)
    # Whichever ran first, the restored row holds the template's values like the rest.
    assert {(e.title, e.capacity, e.is_modified) for e in rows} == {(f"Edit {round_}", 7, False)}
    assert rows[2].state != CALLED_OFF
