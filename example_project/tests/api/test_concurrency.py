"""Two clients acting on one series at once, on a real PostgreSQL server.

Each request runs in its own thread with its own connection. Where the order
matters, the host's clone_related hook is slowed inside generation's lock, so the
second request provably waits for the lock instead of racing by luck. Waiting is
not an error: both get their normal answer.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from example_project.events.models import Event
from example_project.tests.api.conftest import World, occurrences_of, url
from revel_recurring.models import EventSeries, OccurrenceChange

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

HOLD = 0.5


def at_once(jobs: Sequence[Callable[[], Any]]) -> list[Any]:
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(index: int, job: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = job()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return results


def client(user: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_two_cancellations_of_one_slot_both_succeed_and_record_it_once(world: World) -> None:
    series = world.a.series
    first = occurrences_of(series)[0]
    body = {"occurrence": first.start.isoformat()}

    def cancel(user: Any) -> Callable[[], Any]:
        return lambda: client(user).post(url(series, "cancel-occurrence"), body, format="json")

    responses = at_once([cancel(world.a.owner), cancel(world.a.staff)])
    assert [r.status_code for r in responses] == [200, 200]
    assert EventSeries.objects.get(pk=series.pk).exdates == [
        first.start.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    ]
    assert Event.objects.get(pk=first.pk).status == Event.Status.CANCELLED
    assert OccurrenceChange.objects.filter(occurrence_pk=str(first.pk)).count() == 1


def test_generate_and_pause_at_once_give_consistent_answers(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    series = world.a.series
    original = Event.clone_related.__func__  # type: ignore[attr-defined]
    entered = threading.Event()

    def slow(cls: type[Event], template: Event, created: Sequence[Event]) -> None:
        entered.set()
        time.sleep(HOLD)
        original(cls, template, created)

    monkeypatch.setattr(Event, "clone_related", classmethod(slow))
    until = (timezone.now() + dt.timedelta(weeks=16)).isoformat()

    def generate() -> Any:
        return client(world.a.owner).post(url(series, "generate"), {"until": until}, format="json")

    def pause() -> Any:
        assert entered.wait(timeout=10)
        started = time.monotonic()
        response = client(world.a.staff).post(url(series, "pause"))
        return response, time.monotonic() - started

    generated, (paused, waited) = at_once([generate, pause])
    assert generated.status_code == 200, generated.json()
    assert paused.status_code == 200
    assert waited > HOLD / 2  # the pause waited for generation's lock
    created = generated.json()["created"]
    assert created
    assert paused.json()["is_active"] is False
    # The pause came after the batch: it sees every occurrence generation reported.
    assert paused.json()["occurrence_counts"]["total"] == len(occurrences_of(series))
    stored = {e.pk for e in occurrences_of(series)}
    assert {row["id"] for row in created} <= stored
    assert not EventSeries.objects.get(pk=series.pk).is_active
