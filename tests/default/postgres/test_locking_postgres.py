"""``lock_several_series`` on PostgreSQL: two transactions, the same pair, opposite orders.

Each worker pauses after its first lock until the other one has either taken a
lock of its own or is waiting for one, so the interleaving that deadlocks a
caller-ordered implementation (each holding one series and asking for the
other) happens every time, not by chance.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection, transaction

from revel_recurring.models import EventSeries
from revel_recurring.services.toolbox import locking
from tests.support.concurrency import Background, blocked_backends, is_deadlock, race
from tests.support.factories import make_series

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]


def test_two_transactions_locking_a_pair_in_opposite_orders_never_deadlock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, second = make_series(name="first"), make_series(name="second")
    lock_series = locking.lock_series
    took_a_lock = [threading.Event(), threading.Event()]
    worker = threading.local()

    def lock_then_let_the_other_move(series_id: int, **options: Any) -> EventSeries:
        locked = lock_series(series_id, **options)
        if not getattr(worker, "paused", False):
            worker.paused = True
            mine, other = took_a_lock[worker.number], took_a_lock[1 - worker.number]
            mine.set()
            # A guard against hanging, not a timing claim. The other worker is seen the
            # moment it waits, however late it comes: blocked_backends() reads
            # pg_stat_activity afresh although this worker is inside its transaction.
            deadline = time.monotonic() + 25
            while not other.is_set() and not blocked_backends():
                assert time.monotonic() < deadline, "the other worker neither locked nor waited"
                time.sleep(0.01)
        return locked

    monkeypatch.setattr(locking, "lock_series", lock_then_let_the_other_move)
    locked_ids: dict[int, list[int]] = {}

    def locker(number: int, order: list[int]) -> Any:
        def work() -> None:
            worker.number = number
            with transaction.atomic():
                locked_ids[number] = [s.pk for s in locking.lock_several_series(order)]

        return work

    errors = race([locker(0, [first.pk, second.pk]), locker(1, [second.pk, first.pk])])

    assert [exc for exc in errors if is_deadlock(exc)] == []
    assert errors == []
    assert locked_ids == {0: [first.pk, second.pk], 1: [first.pk, second.pk]}


def test_a_lock_holder_sees_a_waiter_that_comes_after_its_first_look() -> None:
    """The lock-order test's holder polls from inside its transaction; a waiter that
    connects late (a loaded machine) must still be seen, not a snapshot of before."""
    series = make_series(name="held")

    def wait_for_the_lock() -> None:
        with transaction.atomic():
            locking.lock_series(series.pk)

    with transaction.atomic():
        locking.lock_series(series.pk)
        assert blocked_backends() == 0
        waiter = Background(wait_for_the_lock)
        deadline = time.monotonic() + 10
        while not blocked_backends():
            assert time.monotonic() < deadline, "the waiter was never seen waiting"
            time.sleep(0.01)
    waiter.result()
