"""Cost of polling the open organisation feed on PostgreSQL (``make bench-feeds``).

For each size N (``--sizes``, default 50, 500 and 10,000) one organisation of
the example project gets N public weekly series, each with a past
(``--past-weeks`` of dates already held, default 26) and the usual 8 weeks
ahead. Rules, series and templates are inserted in bulk; their occurrence rows
come from the chunked daily pass (``generate_all_series`` in eager Celery mode,
run once with its clock moved back to the series' start and a window reaching
8 weeks past today), so every row is what generation writes.

Then the organisation's open feed (``events:organization_feed``) is requested
through Django's test ``Client`` and the real URLconf, as a calendar app polls
it: (a) a full GET, (b) a conditional GET with ``If-None-Match`` set to the
ETag of (a), and (c) one with ``If-Modified-Since`` set to its
``Last-Modified``. Both (b) and (c) must be answered 304. For each it reports
the SQL statements run, the wall time (fastest of ``--repeat`` runs, since the
machine's cores are shared; one run when it takes over ``LONG_RUN`` seconds),
the peak growth of the Python heap (tracemalloc, in a separate run, as tracing
slows the code) and the body's size. It also prints the occurrence rows of the
organisation (every row the setup made; the feed may read fewer) and the
VEVENTs in the body (one master per series here: no date was edited).

Runs in a scratch database ``revel_bench_feeds`` (``REVEL_BENCH_FEEDS_DB``) on
the server named by DATABASE_URL (default: the local PostgreSQL), dropped and
created afresh. Prints a Markdown table; asserts only the status codes.

    .venv/bin/python bench/feeds.py                      # all three sizes
    .venv/bin/python bench/feeds.py --sizes 50,500 --repeat 5 --past-weeks 0
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.memory import heap_tracing  # noqa: E402  (needs ROOT on the path when run as a script)
from bench.queries import counting  # noqa: E402
from bench.scratch import SERVER_URL, migrated_example_project  # noqa: E402
from bench.weekly import insert_weekly_series, parse_sizes  # noqa: E402

BENCH_DB = os.environ.get("REVEL_BENCH_FEEDS_DB", "revel_bench_feeds")
WEEKS_AHEAD = 8  # the default generation window
MAX_WINDOW_WEEKS = 52  # validators.WINDOW_WEEKS_MAX: the setup's one pass must fit in it
DESCRIPTION = "A weekly evening with a long description. " * 5
MB = 1024 * 1024
LONG_RUN = 10.0  # seconds


def _prepare_database() -> None:
    migrated_example_project(BENCH_DB, SERVER_URL)
    from django.conf import settings
    from django.test.utils import setup_test_environment

    # The test Client needs "testserver" allowed; DEBUG off, as in production:
    # with it on Django keeps every statement's SQL, memory that is not the feed's.
    setup_test_environment(debug=False)
    # The host's notifier is host work, not the feed's; no digest is built without it.
    settings.REVEL_RECURRING_NOTIFIER = None


def create_organization(size: int, *, now: dt.datetime, past_weeks: int) -> tuple[str, float]:
    """An organisation with ``size`` public weekly series and their rows; its slug, seconds."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from example_project.events.models import Organization

    began = time.perf_counter()
    owner, _ = get_user_model().objects.get_or_create(username="bench-owner")
    slug = f"bench-{size}"
    organization = Organization._default_manager.create(
        name=f"Bench {size}", slug=slug, owner=owner
    )
    # The pass runs with its clock at the series' start, so the past weeks are
    # generated as they would have been, and its window reaches 8 weeks past now.
    insert_weekly_series(
        organization,
        size,
        clock=now - dt.timedelta(weeks=past_weeks, days=1),
        window_weeks=past_weeks + WEEKS_AHEAD,
        description=DESCRIPTION,
        capacity=50,
        address="Praterstrasse 1, Vienna",
        latitude="48.216000",
        longitude="16.390000",
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return slug, time.perf_counter() - began


@dataclasses.dataclass(frozen=True)
class Measured:
    """One kind of request: statements, fastest wall time, peak heap growth, body size."""

    queries: int
    seconds: float
    heap: int
    size: int


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def measure(
    label: str, call: Callable[[], Any], *, status: int, repeat: int
) -> tuple[Measured, Any]:
    """Run ``call`` (a request) ``repeat`` times, then once traced; figures and a response.

    The fastest run counts: the first also warms caches (and the database's
    buffers), and the others share the machine's cores with whatever else runs.
    A run longer than ``LONG_RUN`` seconds is not repeated: warm-up and noise
    are a small part of it, and three of them at 10,000 series took minutes.
    """
    times: list[float] = []
    queries = 0
    response: Any = None
    while len(times) < repeat and not (times and times[-1] > LONG_RUN):
        with counting() as counter:
            began = time.perf_counter()
            response = call()
            times.append(time.perf_counter() - began)
        if response.status_code != status:
            raise SystemExit(f"expected {status}, got {response.status_code}")
        queries = counter.count
        del response
    kept: list[Any] = []
    with heap_tracing() as traced:
        heap = traced(lambda: kept.append(call()))
    response = kept[0]
    _progress(f"  {label}: {', '.join(_duration(t) for t in times)}; heap {_amount(heap)}")
    return Measured(queries, min(times), heap, len(response.content)), response


def bench_size(size: int, *, now: dt.datetime, past_weeks: int, repeat: int) -> dict[str, Any]:
    """Set up ``size`` series, request their organisation's feed three ways; the figures."""
    from django.conf import settings
    from django.core.cache import caches
    from django.test import Client
    from django.urls import reverse

    from example_project.events.models import Event

    slug, setup = create_organization(size, now=now, past_weeks=past_weeks)
    rows = Event.objects.filter(organization__slug=slug, is_template=False).count()
    _progress(f"  set up in {setup:.1f} s: {rows:,} occurrence rows")
    # A feed sent within the second of its last change carries the second before
    # (decision 0044), which a date-only poll then answers 200: start once the
    # setup's second has ended, as a subscriber's poll would.
    time.sleep(1.01 - time.time() % 1)
    client = Client()
    url = reverse("events:organization_feed", args=[slug])
    feed_cache = caches[settings.REVEL_RECURRING_FEED_CACHE]

    def built() -> Any:
        feed_cache.clear()  # a GET that builds the body (first subscriber after a change)
        return client.get(url)

    full, response = measure("full GET", built, status=200, repeat=repeat)
    events = response.content.count(b"BEGIN:VEVENT")
    cached, _ = measure("full GET, cached", lambda: client.get(url), status=200, repeat=repeat)
    etag, modified = response["ETag"], response["Last-Modified"]
    del response
    by_etag, _ = measure(
        "If-None-Match",
        lambda: client.get(url, headers={"If-None-Match": etag}),
        status=304,
        repeat=repeat,
    )
    by_date, _ = measure(
        "If-Modified-Since",
        lambda: client.get(url, headers={"If-Modified-Since": modified}),
        status=304,
        repeat=repeat,
    )
    return {
        "setup": setup,
        "rows": rows,
        "events": events,
        "full": full,
        "cached": cached,
        "etag": by_etag,
        "date": by_date,
    }


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _amount(size: int) -> str:
    if size >= MB:
        return f"{size / MB:.1f} MB"
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} B"


#: The figures of each request, by row label and formatting.
METRICS: tuple[tuple[str, Callable[[Measured], str]], ...] = (
    ("queries", lambda m: str(m.queries)),
    ("wall time", lambda m: _duration(m.seconds)),
    ("peak Python heap", lambda m: _amount(m.heap)),
    ("body", lambda m: _amount(m.size)),
)


def _cell(key: str, show: Callable[[Measured], str]) -> Callable[[dict[str, Any]], str]:
    return lambda result: show(result[key])


def table(results: dict[int, dict[str, Any]]) -> list[str]:
    """The figures as a Markdown table, one column per size."""
    sizes = list(results)
    lines = [
        "| | " + " | ".join(f"{size:,} series" for size in sizes) + " |",
        "| --- |" + " ---: |" * len(sizes),
    ]

    def row(label: str, value: Callable[[dict[str, Any]], str]) -> None:
        lines.append(f"| {label} | " + " | ".join(value(results[s]) for s in sizes) + " |")

    row("setup (bulk insert + chunked pass)", lambda r: f"{r['setup']:.1f} s")
    row("occurrence rows", lambda r: f"{r['rows']:,}")
    row("VEVENTs in the feed", lambda r: f"{r['events']:,}")
    for key, name in (
        ("full", "full GET (200), body built"),
        ("cached", "full GET (200), body from REVEL_RECURRING_FEED_CACHE"),
        ("etag", "If-None-Match (304)"),
        ("date", "If-Modified-Since (304)"),
    ):
        for metric, show in METRICS:
            row(f"{name}: {metric}", _cell(key, show))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=[50, 500, 10_000])
    parser.add_argument("--past-weeks", type=int, default=26)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not 0 <= args.past_weeks <= MAX_WINDOW_WEEKS - WEEKS_AHEAD:
        parser.error(f"--past-weeks must be 0 to {MAX_WINDOW_WEEKS - WEEKS_AHEAD}")
    if args.repeat < 1:
        parser.error("--repeat must be 1 or more")
    _prepare_database()
    from django.db import connection

    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    results: dict[int, dict[str, Any]] = {}
    for size in args.sizes:
        _progress(f"{size:,} series ...")
        results[size] = bench_size(size, now=now, past_weeks=args.past_weeks, repeat=args.repeat)
    version = connection.cursor().connection.info.server_version
    print(
        f"PostgreSQL {version // 10000}.{version % 10000}; one organisation "
        f"per size, public weekly series, {args.past_weeks} weeks past + {WEEKS_AHEAD} ahead; "
        f"wall time: fastest of {args.repeat} (1 when a run takes over {LONG_RUN:g} s); "
        "heap: tracemalloc peak growth"
    )
    print("\n".join(table(results)))


if __name__ == "__main__":
    main()
