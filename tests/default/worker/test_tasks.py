"""Celery tasks in eager mode: dispatch selection, retry policy, backoff arithmetic."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from django.db import IntegrityError, OperationalError, connection
from django.test.utils import CaptureQueriesContext

from revel_recurring import tasks
from revel_recurring.context import replacing_template
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.generation.dispatch import dispatch_due_series
from revel_recurring.transient import is_transient_db_error
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, make_series, occurrences

pytestmark = pytest.mark.django_db


def _due_now(series: EventSeries) -> None:
    EventSeries.objects.filter(pk=series.pk).update(next_due_at=NOW - dt.timedelta(hours=1))


def test_dispatch_selects_only_due_active_series_in_two_queries(settings: Any) -> None:
    settings.REVEL_RECURRING_DISPATCH_CHUNK_SIZE = 100
    due = make_series(name="due")
    _due_now(due)
    later = make_series(name="later")
    generate_series_events(later, now=NOW)  # next_due_at moves 7 weeks ahead
    exhausted = make_series(name="exhausted", count=2)
    generate_series_events(exhausted, now=NOW)
    paused = make_series(name="paused")
    _due_now(paused)
    EventSeries.objects.filter(pk=paused.pk).update(is_active=False)
    enqueued: list[int] = []
    with CaptureQueriesContext(connection) as captured:
        result = dispatch_due_series(enqueued.append, now=NOW)
    assert enqueued == [due.pk]
    assert result.as_dict() == {"due": 1, "dispatched": 1, "failed": 0, "skipped": 0}
    # The due series (one chunk) and the count of disarmed ones.
    assert len(captured.captured_queries) == 2


def test_dispatch_counts_series_disarmed_without_a_template() -> None:
    orphan, fine = make_series(name="orphan"), make_series(name="fine")
    with replacing_template(orphan.pk):
        Event.objects.filter(series=orphan).delete()
    _due_now(orphan)
    _due_now(fine)
    generate_series_events(orphan, now=NOW)  # disarms it: next_due_at cleared

    result = dispatch_due_series(lambda series_id: None, now=NOW)

    assert result.as_dict() == {"due": 1, "dispatched": 1, "failed": 0, "skipped": 1}
    assert tasks.generate_all_series.apply().get()["skipped"] == 1


def test_dispatch_reads_in_chunks_and_survives_a_broker_error(settings: Any) -> None:
    settings.REVEL_RECURRING_DISPATCH_CHUNK_SIZE = 2
    series = [make_series(name=f"s{i}") for i in range(5)]
    for item in series:
        _due_now(item)

    def enqueue(series_id: int) -> None:
        if series_id == series[1].pk:
            raise ConnectionError("broker unreachable")
        seen.append(series_id)

    seen: list[int] = []
    result = dispatch_due_series(enqueue, now=NOW)
    assert seen == [s.pk for s in series if s.pk != series[1].pk]
    assert result.as_dict() == {"due": 5, "dispatched": 4, "failed": 1, "skipped": 0}


def test_generate_all_series_runs_the_due_series_eagerly() -> None:
    series = make_series()
    result = tasks.generate_all_series.apply().get()
    assert result == {"due": 1, "dispatched": 1, "failed": 0, "skipped": 0}
    assert len(occurrences(series)) > 0
    # Everything due was done: the next pass finds nothing.
    assert tasks.generate_all_series.apply().get()["due"] == 0


def test_generate_series_on_a_missing_series_creates_nothing() -> None:
    assert tasks.generate_series.apply(args=(987654,)).get() == {"series": 987654, "created": 0}


def test_transient_error_is_retried_then_succeeds(monkeypatch: pytest.MonkeyPatch) -> None:
    series = make_series()
    calls = {"n": 0}
    real = generate_series_events

    def flaky(target: EventSeries, **kwargs: Any) -> list[Any]:
        calls["n"] += 1
        if calls["n"] < 3:
            raise OperationalError("database is locked")
        return real(target, **kwargs)

    monkeypatch.setattr("revel_recurring.tasks.generate_series_events", flaky)
    result = tasks.generate_series.apply(args=(series.pk,)).get()
    assert calls["n"] == 3
    assert result["created"] > 0


def test_integrity_error_is_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    series = make_series()
    calls = {"n": 0}

    def broken(target: EventSeries, **kwargs: Any) -> list[Any]:
        calls["n"] += 1
        raise IntegrityError("duplicate key value violates unique constraint")

    monkeypatch.setattr("revel_recurring.tasks.generate_series_events", broken)
    with pytest.raises(IntegrityError):
        tasks.generate_series.apply(args=(series.pk,)).get()
    assert calls["n"] == 1


def test_retries_stop_after_the_configured_maximum(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.REVEL_RECURRING_TASK_MAX_RETRIES = 2
    series = make_series()
    calls = {"n": 0}

    def always_locked(target: EventSeries, **kwargs: Any) -> list[Any]:
        calls["n"] += 1
        raise OperationalError("database is locked")

    monkeypatch.setattr("revel_recurring.tasks.generate_series_events", always_locked)
    with pytest.raises(OperationalError):
        tasks.generate_series.apply(args=(series.pk,)).get()
    assert calls["n"] == 3  # the first attempt and two retries


class _PgError(Exception):
    def __init__(self, sqlstate: str | None) -> None:
        super().__init__("pg")
        self.sqlstate = sqlstate


@pytest.mark.parametrize(
    ("sqlstate", "transient"),
    [
        ("40001", True),  # serialization_failure
        ("40P01", True),  # deadlock_detected
        ("55P03", True),  # lock_not_available
        ("08006", True),  # connection_failure
        ("57P01", True),  # admin_shutdown
        ("42P01", False),  # undefined_table
        ("23505", False),  # unique_violation
    ],
)
def test_transient_classification_by_sqlstate(sqlstate: str, transient: bool) -> None:
    error = OperationalError("wrapped")
    error.__cause__ = _PgError(sqlstate)
    assert is_transient_db_error(error) is transient


def test_programming_errors_are_not_transient() -> None:
    assert not is_transient_db_error(IntegrityError("dup"))
    assert not is_transient_db_error(ValueError("bad rule"))
    assert not is_transient_db_error(OperationalError("no such table: testapp_event"))
    assert is_transient_db_error(OperationalError("database is locked"))


def test_backoff_is_exponential_with_bounded_jitter(settings: Any) -> None:
    rng = random.Random(7)
    for retry, nominal in enumerate([5, 10, 20, 40, 80]):
        delays = [tasks.retry_delay(retry, rng=rng) for _ in range(50)]
        assert all(nominal / 2 <= d <= nominal for d in delays)
    assert tasks.max_total_backoff() == 155.0
    settings.REVEL_RECURRING_TASK_RETRY_BACKOFF_MAX = 30
    assert tasks.retry_delay(6, rng=rng) <= 30
