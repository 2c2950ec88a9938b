"""Peak memory of the reads of a series whose template carries a 1 MB description.

Builds, in a scratch PostgreSQL database ``revel_bench_reads`` on the server named
by DATABASE_URL (default: the local one), two daily series of the example
project with a 52-week window (364 occurrences each) and copies a 1 MB
description onto every row, as a propagated template edit would. Then each read
runs in a fresh Python process, twice: "full rows" (the code path before reads
were limited to the columns they use: every host column of every occurrence)
and "columns used" (the code as it is). Each child reports how much its peak
resident set size (``VmHWM``, which counts the database driver's C buffers as
well as Python objects) grew during the one request, after a warm-up request on
a small series, so imports and caches are not counted. ``DELETE series/``
deletes one series per path.

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

SERVER_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
BENCH_DB = os.environ.get("REVEL_BENCH_READS_DB", "revel_bench_reads")
READS = ("occurrences", "ical", "page", "delete")
MB = 1024 * 1024


def _bench_url() -> str:
    return urlunparse(urlparse(SERVER_URL)._replace(path=f"/{BENCH_DB}"))


def _setup_django() -> None:
    os.environ["DATABASE_URL"] = _bench_url()
    os.environ["DJANGO_SETTINGS_MODULE"] = "example_project.settings"
    os.environ.pop("CELERY_BROKER_URL", None)
    import django

    django.setup()
    from django.conf import settings

    settings.DEBUG = False  # DEBUG keeps every query's SQL: memory that is not the read's
    settings.REVEL_RECURRING_NOTIFIER = None


def _prepare_database() -> None:
    import psycopg

    parts = urlparse(SERVER_URL)
    with psycopg.connect(urlunparse(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")
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

    ids = {"owner": owner.pk, "warm": series("Warm up", 1)}
    text = _long_text(int(megabytes * MB))
    for key in ("big_before", "big_after"):
        ids[key] = series(f"Daily lecture {key}", weeks)
        # Copied onto every row, as generation or a propagated edit would.
        Event.objects.filter(series_id=ids[key]).update(description=text)
    return ids


@contextlib.contextmanager
def full_rows() -> Iterator[None]:
    """The reads as they were: no column left out (bulky_fields empty, only() ignored)."""
    from django.db.models import QuerySet

    def nothing(model: Any) -> tuple[str, ...]:
        return ()

    with contextlib.ExitStack() as stack:
        for module in ("revel_recurring.api.viewsets", "revel_recurring.ical"):
            stack.enter_context(mock.patch(f"{module}.bulky_fields", nothing))
        stack.enter_context(mock.patch("revel_recurring.services.lifecycle.bulky_fields", nothing))
        stack.enter_context(mock.patch.object(QuerySet, "only", lambda self, *names: self))
        yield


def _peak_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def child(read: str, mode: str, ids: dict[str, int]) -> dict[str, Any]:
    """One read in this (fresh) process; its peak RSS growth, time and queries."""
    _setup_django()
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
    target = ids["big_before"] if mode == "full rows" else ids["big_after"]

    def request(series_id: int, *, delete: bool = False) -> int:
        base = f"/api/recurring/series/{series_id}/"
        slug = EventSeries.objects.get(pk=series_id).slug
        if read == "occurrences":
            response = api.get(base + "occurrences/?page_size=500")
        elif read == "ical":
            response = api.get(base + "ical/", HTTP_ACCEPT="text/calendar")
        elif read == "page":
            response = site.get(f"/series/{slug}/")
        elif delete:
            response = api.delete(base)
        else:
            response = api.get(base)  # the warm-up of a delete: the detail read
        return int(response.status_code)

    context = full_rows() if mode == "full rows" else contextlib.nullcontext()
    with context:
        request(ids["warm"])
        baseline = _peak_rss()
        began = time.perf_counter()
        with CaptureQueriesContext(connection) as queries:
            status = request(target, delete=read == "delete")
        seconds = time.perf_counter() - began
    return {
        "status": status,
        "growth": _peak_rss() - baseline,
        "seconds": seconds,
        "queries": len(queries),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weeks", type=int, default=52)
    parser.add_argument("--megabytes", type=float, default=1.0)
    parser.add_argument("--child", nargs=3, metavar=("READ", "MODE", "IDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        read, mode, ids = args.child
        print(json.dumps(child(read, mode, json.loads(ids))))
        return
    began = time.perf_counter()
    _prepare_database()
    ids = build(args.weeks, args.megabytes)
    from example_project.events.models import Event

    rows = Event.objects.filter(series_id=ids["big_after"], is_template=False).count()
    print(
        f"Two daily series, {rows} occurrences each, a {args.megabytes:g} MB description on "
        f"every row (set up in {time.perf_counter() - began:.1f} s).\n"
    )
    print(
        "| read | peak RSS growth, full rows | columns used | seconds, full rows | "
        "columns used | queries, full rows | columns used |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for read in READS:
        results = {}
        for mode in ("full rows", "columns used"):
            output = subprocess.run(
                [sys.executable, __file__, "--child", read, mode, json.dumps(ids)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            results[mode] = json.loads(output.strip().splitlines()[-1])
            expected = 204 if read == "delete" else 200
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
