"""A real Celery worker process on Redis and the test database, for any test host.

``tests/default/worker/test_worker.py`` (the app's own host, PostgreSQL) and
``tests/dojo/worker/test_worker.py`` (the dojo, PostgreSQL and MariaDB) start
workers through :func:`celery_worker`. Nothing here imports a host's models.
"""

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
from celery import Celery, current_app
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("REVEL_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")

# The URL scheme dj-database-url reads for each backend a worker can share.
_SCHEMES = {"postgresql": ("postgres", "postgres", "5432"), "mysql": ("mysql", "root", "3306")}


def redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return True
    except OSError:
        return False


#: The marks of a test that runs a worker on PostgreSQL or MariaDB (not SQLite: the
#: worker is another process and needs a database server to share this test's).
SERVER_WORKER_MARKS = [
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor not in ("postgresql", "mysql"),
        reason="the worker needs a database server (PostgreSQL or MariaDB)",
    ),
    pytest.mark.skipif(not redis_answers(), reason="no Redis on 127.0.0.1:6379"),
]


def database_url() -> str:
    """The URL of this test's own database, for the worker (another process)."""
    settings = connection.settings_dict
    scheme, default_user, default_port = _SCHEMES[connection.vendor]
    user = settings["USER"] or default_user
    host = settings["HOST"] or "127.0.0.1"
    port = settings["PORT"] or default_port
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    return f"{scheme}://{user}{password}@{host}:{port}/{settings['NAME']}"


@contextmanager
def celery_worker(log: Path, *, settings: str = "tests.settings") -> Iterator[Celery]:
    """A Celery worker process of the host ``settings`` on Redis and this test's database.

    Yields a client app on the same broker; the worker's output goes to ``log``.
    The worker's test database is this test's: its settings module must read
    ``DATABASE_URL`` and ``REVEL_TEST_CELERY_EAGER`` as tests.settings does.
    """
    with worker_process(log, settings=settings) as (client, _):
        yield client


@contextmanager
def worker_process(
    log: Path, *, settings: str = "tests.settings", pool: str = "solo"
) -> Iterator[tuple[Celery, subprocess.Popen[bytes]]]:
    """:func:`celery_worker`, yielding the worker's process too, in the ``pool`` asked for.

    ``pool="prefork"`` runs the tasks in one child process that the main process
    replaces when it dies, as production workers do (Celery's default pool).
    """
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings,
        "DATABASE_URL": database_url(),
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
                "tests.support.celery_app",
                "worker",
                f"--pool={pool}",
                "--concurrency=1",
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
        yield client, worker
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


@contextmanager
def sending_through(app: Celery) -> Iterator[None]:
    """The admin's tasks go to ``app``'s broker (Redis) instead of running eagerly here."""
    previous = current_app._get_current_object()  # type: ignore[attr-defined]
    app.set_current()
    try:
        yield
    finally:
        previous.set_current()
