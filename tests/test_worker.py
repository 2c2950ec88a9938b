"""A real Celery worker process, a real Redis broker, a real PostgreSQL database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import Celery
from django.db import connection

from tests.factories import make_series, occurrences

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("REVEL_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


# What a test with a real worker needs: tests/test_admin_worker.py uses them too.
WORKER_MARKS = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker needs PostgreSQL"),
    pytest.mark.skipif(not _redis_answers(), reason="no Redis on 127.0.0.1:6379"),
]
pytestmark = WORKER_MARKS


def _database_url() -> str:
    # The worker is another process: point it at the test database itself.
    settings = connection.settings_dict
    user = settings["USER"] or "postgres"
    host = settings["HOST"] or "127.0.0.1"
    port = settings["PORT"] or "5432"
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


@contextmanager
def celery_worker(log: Path) -> Iterator[Celery]:
    """A Celery worker process of the test host on Redis and this test's database.

    Yields a client app on the same broker; the worker's output goes to ``log``.
    """
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": REDIS_URL,
        "REVEL_TEST_CELERY_EAGER": "0",
        "PYTHONPATH": str(ROOT),
    }
    client = Celery("test-client", broker=REDIS_URL, backend=REDIS_URL, set_as_current=False)
    client.control.purge()
    with log.open("w") as output:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "tests.celery_app",
                "worker",
                "--pool=solo",
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        yield client
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()


def wait_until(done: Callable[[], bool], *, seconds: float = 60) -> bool:
    """Poll ``done`` until it holds or ``seconds`` pass; whether it holds."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.25)
    return done()


def test_worker_materializes_due_series_through_redis(tmp_path: Path) -> None:
    series = make_series(auto_publish=True)
    log = tmp_path / "worker.log"
    with celery_worker(log) as client:
        result = client.send_task("revel_recurring.generate_all_series")
        assert result.get(timeout=60) == {"due": 1, "dispatched": 1, "failed": 0, "skipped": 0}
        wait_until(lambda: bool(occurrences(series)))
        created = occurrences(series)
        assert len(created) == 8, log.read_text()
        assert {e.state for e in created} == {"on_sale"}
        assert "revel_recurring.generate_series" in log.read_text()
