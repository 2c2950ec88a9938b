"""A service never waits for an occurrence row while it holds the series lock (PostgreSQL).

It asks with NOWAIT; when the row is taken it rolls back its own savepoint (the
series lock goes with it), backs off and retries, and finally gives up with
SeriesBusyError. The host's earlier work in the same transaction survives.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from revel_recurring.exceptions import SeriesBusyError
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.toolbox import locking
from revel_recurring.transient import is_transient_db_error
from tests.hosts.testapp.models import Event
from tests.support.concurrency import Background, held_in_transaction
from tests.support.factories import NOW, make_series, occurrences

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]


def _generated() -> tuple[EventSeries, Event]:
    series = make_series()
    generate_series_events(series, now=NOW)
    return series, occurrences(series)[1]


def test_a_row_held_for_too_long_gives_series_busy_and_leaves_the_series_lock_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(locking, "LOCK_RETRY_ATTEMPTS", 3)
    series, target = _generated()

    def hold_row() -> None:
        list(Event.objects.select_for_update().filter(pk=target.pk))

    with held_in_transaction(hold_row):
        started = time.monotonic()
        with pytest.raises(SeriesBusyError) as caught:
            cancel_occurrence(series, target.starts_at, now=NOW)
        assert time.monotonic() - started < 2
        assert is_transient_db_error(caught.value)
        # The series lock was given back on each attempt: another service gets it.
        assert Background(lambda: generate_series_events(series.pk, now=NOW)).result(5) == []
    target.refresh_from_db()
    assert target.state != Event.RECURRING_STATUS_CANCELLED


def test_a_row_released_soon_is_cancelled_on_a_retry_keeping_the_hosts_earlier_work() -> None:
    series, target = _generated()
    holding, release = threading.Event(), threading.Event()

    def hold_row_briefly() -> None:
        with transaction.atomic():
            list(Event.objects.select_for_update().filter(pk=target.pk))
            holding.set()
            release.wait(10)

    holder = Background(hold_row_briefly)
    assert holding.wait(10)
    threading.Timer(0.15, release.set).start()
    with transaction.atomic():
        one_off = Event.objects.create(title="Open day", starts_at=NOW)
        cancelled = cancel_occurrence(series, target.starts_at, now=NOW)
    holder.result()
    assert cancelled is not None
    assert cancelled.pk == target.pk
    target.refresh_from_db()
    assert target.state == Event.RECURRING_STATUS_CANCELLED
    assert Event.objects.filter(pk=one_off.pk).exists()
