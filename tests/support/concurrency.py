"""Thread helpers for the PostgreSQL concurrency tests: hold a lock, see a waiter, race."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import OperationalError, connection, connections, transaction


def blocked_backends() -> int:
    """How many other backends of this database wait for a lock right now.

    Right now even inside a transaction: PostgreSQL reads pg_stat_activity once per
    transaction and answers from that snapshot until it ends, so a lock holder
    polling from its own transaction would never see a waiter that came later.
    """
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock' "
            "AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def wait_until_blocked(count: int = 1, *, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while blocked_backends() < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {count} backend(s) waiting for a lock after {timeout} s")
        time.sleep(0.01)


class Background:
    """Run ``work`` in a thread (own connection); ``result()`` joins and re-raises."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self._work = work
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as exc:
            self._error = exc
        finally:
            connection.close()

    def result(self, timeout: float = 30.0) -> Any:
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise AssertionError("background work did not finish")
        if self._error is not None:
            raise self._error
        return self._value


@contextmanager
def held_in_transaction(work: Callable[[], Any]) -> Iterator[None]:
    """Run ``work`` inside a transaction in another thread and keep it open.

    The transaction (and every lock ``work`` took) stays open for the body of the
    ``with`` block and commits when it ends.
    """
    ready, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            work()
            ready.set()
            release.wait(30)

    background = Background(hold)
    if not ready.wait(30):
        background.result(0)
    try:
        yield
    finally:
        release.set()
        background.result()


def is_deadlock(exc: BaseException) -> bool:
    cause = exc.__cause__ or exc
    return isinstance(exc, OperationalError) and (
        getattr(cause, "sqlstate", None) == "40P01" or "deadlock detected" in str(exc)
    )


def race(workers: list[Callable[[], Any]], *, timeout: float = 30.0) -> list[BaseException]:
    """Start every worker at once (one thread each); return the exceptions they raised."""
    barrier = threading.Barrier(len(workers))
    errors: list[BaseException] = []
    lock = threading.Lock()

    def run(work: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            work()
        except BaseException as exc:
            with lock:
                errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(work,), daemon=True) for work in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    if any(thread.is_alive() for thread in threads):
        raise AssertionError("a racing worker did not finish")
    return errors
