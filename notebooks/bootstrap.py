"""The first cell of every notebook: the example project on a throwaway database.

``start(now=...)`` points Django at ``example_project.settings`` with a fresh
SQLite file in a temporary folder, migrates it and returns the pinned "now"
that the notebook passes to every service as ``now=``. The folder is removed
when the kernel ends, however it ends (nbval kills its kernels), so a run leaves
nothing behind in the checkout or in the temporary directory.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A child process that waits for EOF on its stdin (the kernel holds the other end
# of the pipe) and then deletes the folder: it runs even when the kernel is killed
# with SIGKILL, where atexit handlers and finalizers never do.
_REMOVE_WHEN_KERNEL_ENDS = (
    "import shutil, sys; sys.stdin.buffer.read(); shutil.rmtree(sys.argv[1], ignore_errors=True)"
)
_kept_open: list[int] = []
_started: dict[str, object] = {}


def _remove_when_kernel_ends(folder: str) -> None:
    read_end, write_end = os.pipe()
    subprocess.Popen(
        [sys.executable, "-c", _REMOVE_WHEN_KERNEL_ENDS, folder],
        stdin=read_end,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the kernel's process group, so it outlives a kill
    )
    os.close(read_end)
    _kept_open.append(write_end)


def _configure_environment(database: Path) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "example_project.settings"
    os.environ["EXAMPLE_DB_PATH"] = str(database)
    # The site's own zone, whatever the shell says, so every printed time is the same.
    os.environ["DJANGO_TIME_ZONE"] = "Europe/Vienna"
    # Jupyter runs cells inside an asyncio event loop; Django refuses ORM calls from
    # one unless told that this single-threaded use is safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    # The notebooks are SQLite walkthroughs with Celery running tasks in-process,
    # even in a shell (or CI) that exports a PostgreSQL URL or a broker.
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    # E-mail is kept in django.core.mail.outbox (06_digest reads it), never printed or
    # sent; links in it point at the example site's default address.
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
    os.environ["EXAMPLE_SITE_URL"] = "http://127.0.0.1:8000"
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def _fast_throwaway_sqlite(sender: object, connection: object, **kwargs: object) -> None:
    # The database is deleted afterwards, so it needs no durability: without an
    # fsync per commit, 07_beat_and_scale runs several times faster.
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        cursor.execute("PRAGMA synchronous = OFF")
        cursor.execute("PRAGMA journal_mode = MEMORY")


def start(*, now: dt.datetime) -> dt.datetime:
    """Set up Django on a new migrated SQLite database; return ``now`` for ``now=``.

    Calling it again in the same kernel (re-running the first cell) keeps the
    database and returns the new ``now``.
    """
    if now.tzinfo is None:
        raise ValueError("Pin 'now' to an aware datetime, e.g. tzinfo=ZoneInfo('Europe/Vienna').")
    if not _started:
        folder = tempfile.mkdtemp(prefix="revel-notebook-")
        _remove_when_kernel_ends(folder)
        _configure_environment(Path(folder) / "db.sqlite3")
        # Matplotlib logs a warning to stderr while it builds its font cache on a
        # fresh machine; stderr is part of what nbval compares.
        logging.getLogger("matplotlib").setLevel(logging.ERROR)

        import django
        from django.core.management import call_command

        django.setup()
        from django.db.backends.signals import connection_created

        connection_created.connect(_fast_throwaway_sqlite)
        # The services log each batch at INFO; the notebooks show results themselves.
        for name in ("revel_recurring", "example_project"):
            logging.getLogger(name).setLevel(logging.WARNING)
        # Each 4xx answer of the API would log a warning naming the URL; the
        # notebook shows the response itself.
        logging.getLogger("django.request").setLevel(logging.ERROR)
        call_command("migrate", interactive=False, verbosity=0)
        _started["folder"] = folder
    print(
        f"Example project on a fresh SQLite database; now is pinned to {now:%a %d %b %Y %H:%M %Z}."
    )
    return now


__all__ = ["ROOT", "start"]
