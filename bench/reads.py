"""Peak memory of the reads of a series whose template carries a 1 MB description.

Builds, in a scratch PostgreSQL database ``revel_bench_reads`` on the server named
by DATABASE_URL (default: the local one), two daily series of the example
project with a 52-week window (364 occurrences each) and copies a 1 MB
description onto every row, as a propagated template edit would. After the
first three reads it moves the rules to one weekday a week, so six dates in
seven drift (what the "Cancel stale dates" page lists; before it, so the feed
is not one VEVENT per drifted date). Each request runs in a fresh
Python process, twice: "full rows" (the code path before these paths were
limited to the columns they use: every host column of every occurrence read,
and a propagated edit saving every column) and "columns used" (the code as it
is). Each child reports how much its peak resident set size (``VmHWM``, which
counts the database driver's C buffers as well as Python objects; see
bench/memory.py) grew during the one request, after a warm-up request on a small
series, so imports and caches are not counted. The requests: ``GET
occurrences/``, ``GET ical/``, the site's series page, the admin's delete and
"Cancel stale dates" confirmation pages, ``PATCH template/?propagate=all_future``
of the name, and ``DELETE series/`` (one series per path).

``child()`` also serves the memory test (example_project/tests/api/
test_bounded_rows.py), which runs several requests in one fresh process against
its own database.

    .venv/bin/python bench/reads.py            # about a minute
    .venv/bin/python bench/reads.py --weeks 22 --megabytes 1

Prints the figures; asserts nothing. ``docs/benchmarks.md`` holds a run.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.memory import peak_growth  # noqa: E402  (needs ROOT on the path when run as a script)
from bench.scratch import SERVER_URL, fresh_database  # noqa: E402

BENCH_DB = os.environ.get("REVEL_BENCH_READS_DB", "revel_bench_reads")
READS = (
    "occurrences",
    "ical",
    "page",
    # The rules drift here (DRIFT_BEFORE).
    "admin-delete-page",
    "cancel-stale-page",
    "propagate",
    "delete",
)
MB = 1024 * 1024


def _bench_url() -> str:
    return urlunparse(urlparse(SERVER_URL)._replace(path=f"/{BENCH_DB}"))


def _setup_django(database_url: str | None = None) -> None:
    os.environ["DATABASE_URL"] = database_url or _bench_url()
    os.environ["DJANGO_SETTINGS_MODULE"] = "example_project.settings"
    os.environ.pop("CELERY_BROKER_URL", None)
    import django

    django.setup()
    from django.conf import settings

    settings.DEBUG = False  # DEBUG keeps every query's SQL: memory that is not the read's
    settings.REVEL_RECURRING_NOTIFIER = None


def _prepare_database() -> None:
    fresh_database(BENCH_DB, SERVER_URL)
    _setup_django()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _long_text(size: int) -> str:
    line = "A long description, as hosts paste whole programmes into one. "
    return (line * (size // len(line) + 1))[:size]


def build(weeks: int, megabytes: float) -> dict[str, int]:
    """The organisation, a small warm-up series and two big ones; their ids."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from example_project.events.models import Event, Organization
    from revel_recurring.services.lifecycle import create_recurring_series

    owner = get_user_model().objects.create_user(username="bench-owner")
    admin = get_user_model().objects.create_superuser(username="bench-admin")
    organization = Organization.objects.create(name="Bench", slug="bench", owner=owner)
    start = (timezone.now() + dt.timedelta(days=1)).replace(microsecond=0)

    def series(name: str, window: int) -> int:
        created = create_recurring_series(
            rule_data={"frequency": "DAILY", "dtstart": start, "timezone": "Europe/Vienna"},
            template_data={
                "organization": organization,
                "name": name,
                "slug": name.lower().replace(" ", "-"),
                "end": start + dt.timedelta(hours=1),
                "visibility": Event.Visibility.PUBLIC,
            },
            name=name,
            auto_publish=True,
            generation_window_weeks=window,
        )
        return int(created.pk)

    ids = {"owner": owner.pk, "admin": admin.pk, "warm": series("Warm up", 1)}
    text = _long_text(int(megabytes * MB))
    for key in ("big_before", "big_after"):
        ids[key] = series(f"Daily lecture {key}", weeks)
        # Copied onto every row, as generation or a propagated edit would.
        Event.objects.filter(series_id=ids[key]).update(description=text)
    return ids


def make_drift(series_id: int) -> None:
    """Move the rule of ``series_id`` to one weekday a week: six dates in seven drift."""
    from zoneinfo import ZoneInfo

    from revel_recurring.models import EventSeries
    from revel_recurring.services.lifecycle import update_series_recurrence

    series = EventSeries.objects.select_related("recurrence_rule").get(pk=series_id)
    rule = series.recurrence_rule
    assert rule is not None
    weekday = rule.dtstart.astimezone(ZoneInfo(rule.timezone)).weekday()
    update_series_recurrence(series, rule_changes={"frequency": "WEEKLY", "weekdays": [weekday]})


@contextlib.contextmanager
def full_rows() -> Iterator[None]:
    """The reads as they were: no column left out (bulky_fields empty, only() ignored)."""
    from django.db.models import QuerySet

    from revel_recurring.models import get_event_model

    def nothing(model: Any) -> tuple[str, ...]:
        return ()

    def every_column(model: Any, written: list[Any]) -> None:
        # save(update_fields=None): every column written, as the plain save() did.
        return None

    from django.urls import get_resolver

    from revel_recurring import host_model

    _ = get_resolver().url_patterns  # the URLconf imports the API's and the feeds' modules
    # Every module that imported the function by name, read when the patch starts
    # (a list written here went stale as the readers moved between modules).
    readers = [
        name
        for name, module in list(sys.modules.items())
        if name.startswith("revel_recurring.")
        and module is not host_model
        and getattr(module, "bulky_fields", None) is host_model.bulky_fields
    ]
    with contextlib.ExitStack() as stack:
        for name in readers:
            stack.enter_context(mock.patch(f"{name}.bulky_fields", nothing))
        stack.enter_context(
            mock.patch("revel_recurring.services.propagation._saved_fields", every_column)
        )
        # A save() per occurrence, as propagation wrote them before its bulk UPDATE.
        stack.enter_context(
            mock.patch.object(get_event_model(), "RECURRING_PROPAGATE_WITH_SAVE", True)
        )
        stack.enter_context(mock.patch.object(QuerySet, "only", lambda self, *names: self))
        yield


#: The first request run after the rules were moved so that most dates drift.
DRIFT_BEFORE = "admin-delete-page"

#: What each request answers when it works.
EXPECTED_STATUS = {"propagate": 200, "delete": 204}


def child(
    reads: list[str], mode: str, ids: dict[str, int], *, database_url: str | None = None
) -> list[dict[str, Any]]:
    """Each of ``reads`` in turn in this (fresh) process: peak RSS growth, time, queries.

    A warm-up request of the same kind on the small series comes first, so
    imports and caches are not counted; the peak is reset before each measured
    request (bench/memory.py). ``database_url`` names the database (default: the
    bench's own).
    """
    _setup_django(database_url)
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment
    from rest_framework.test import APIClient

    from revel_recurring.models import EventSeries

    setup_test_environment()
    api = APIClient()
    api.force_authenticate(get_user_model().objects.get(pk=ids["owner"]))
    site = Client()
    admin = Client()
    admin.force_login(get_user_model().objects.get(pk=ids["admin"]))
    target = ids["big_before"] if mode == "full rows" else ids["big_after"]
    changes = iter(range(1, 1000))

    def request(read: str, series_id: int, *, warm_up: bool = False) -> int:
        base = f"/api/recurring/series/{series_id}/"
        admin_base = f"/admin/revel_recurring/eventseries/{series_id}/"
        slug = EventSeries.objects.get(pk=series_id).slug
        if read == "occurrences":
            response = api.get(base + "occurrences/?page_size=500")
        elif read == "ical":
            response = api.get(base + "ical/", HTTP_ACCEPT="text/calendar")
        elif read == "page":
            response = site.get(f"/series/{slug}/")
        elif read == "admin-delete-page":
            response = admin.get(admin_base + "delete/")
        elif read == "cancel-stale-page":
            response = admin.get(admin_base + "cancel-stale/")
        elif read == "propagate":
            response = api.patch(
                base + "template/?propagate=all_future",
                {"name": f"Lecture, edit {next(changes)}"},
                format="json",
            )
        elif read == "delete" and not warm_up:
            response = api.delete(base)
        else:
            response = api.get(base)  # the warm-up of a delete: the detail read
        return int(response.status_code)

    results = []
    context = full_rows() if mode == "full rows" else contextlib.nullcontext()
    with context:
        for read in reads:
            request(read, ids["warm"], warm_up=True)
            began = time.perf_counter()
            with CaptureQueriesContext(connection) as queries:
                status, growth = peak_growth(lambda read=read: request(read, target))
            results.append(
                {
                    "read": read,
                    "status": status,
                    "growth": growth,
                    "seconds": time.perf_counter() - began,
                    "queries": len(queries),
                }
            )
    return results


def run_child(
    reads: list[str],
    mode: str,
    ids: dict[str, int],
    *,
    database_url: str | None = None,
    timeout: float | None = None,
) -> list[dict[str, Any]]:
    """:func:`child` in a fresh Python process (this file with ``--child``); its results."""
    command = [sys.executable, __file__, "--child", ",".join(reads), mode, json.dumps(ids)]
    if database_url:
        command += ["--database-url", database_url]
    output = subprocess.run(
        command, check=True, capture_output=True, text=True, timeout=timeout
    ).stdout
    results: list[dict[str, Any]] = json.loads(output.strip().splitlines()[-1])
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weeks", type=int, default=52)
    parser.add_argument("--megabytes", type=float, default=1.0)
    parser.add_argument(
        "--child", nargs=3, metavar=("READS", "MODE", "IDS"), help=argparse.SUPPRESS
    )
    parser.add_argument("--database-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        reads, mode, ids = args.child
        results = child(reads.split(","), mode, json.loads(ids), database_url=args.database_url)
        print(json.dumps(results))
        return
    began = time.perf_counter()
    _prepare_database()
    ids = build(args.weeks, args.megabytes)
    from example_project.events.models import Event

    rows = Event.objects.filter(series_id=ids["big_after"], is_template=False).count()
    print(
        f"Two daily series, {rows} occurrences each, a {args.megabytes:g} MB description on "
        f"every row (set up in {time.perf_counter() - began:.1f} s); six dates in seven drift "
        f"from {DRIFT_BEFORE} on.\n"
    )
    print(
        "| read | peak RSS growth, full rows | columns used | seconds, full rows | "
        "columns used | queries, full rows | columns used |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for read in READS:
        if read == DRIFT_BEFORE:
            for key in ("warm", "big_before", "big_after"):
                make_drift(ids[key])
        results = {}
        for mode in ("full rows", "columns used"):
            results[mode] = run_child([read], mode, ids)[0]
            expected = EXPECTED_STATUS.get(read, 200)
            if results[mode]["status"] != expected:
                raise SystemExit(f"{read} ({mode}) answered {results[mode]['status']}")
        before, after = results["full rows"], results["columns used"]
        print(
            f"| {read} | {before['growth'] / MB:.1f} MB | {after['growth'] / MB:.1f} MB | "
            f"{before['seconds']:.2f} | {after['seconds']:.2f} | "
            f"{before['queries']} | {after['queries']} |"
        )


if __name__ == "__main__":
    main()
