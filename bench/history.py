"""The series' history, measured on PostgreSQL (``make bench-history``, and the end of
``make bench``); prints its figures.

1. **The daily pass, records on and off.** N weekly series (default 10,000, as
   ``bench/enrolments.py`` sizes it) of the example host are generated to their
   horizon; the clock moves one day and about one series in seven has a new date
   due. The same chunked steady-state pass (``generate_all_series``, eager Celery,
   chunks of 50) runs from the same snapshot with ``REVEL_RECURRING_HISTORY`` on
   (one summary record per chunk, one ``OperationSeries`` per series generated)
   and off, in alternation, best of R runs each: ms per due series side by side and
   their ratio (the target: on within 10% of off). After each pass the script
   asserts what it wrote: every due series its date, and with records on at most
   one record per chunk naming every series generated; with records off none.
2. **A 10,000-row cancel-stale.** One daily series with D dates (default 10,000)
   whose rule was ended at its first date, so every later date drifts; then
   ``cancel_stale_occurrences`` cancels them all in one operation, once with
   records on and once off (a fresh, identical series each time), best of R. The
   record's writing (``open_record`` + ``close_record``) is timed and its
   statements counted apart: its ``OperationRow`` INSERTs (one per
   ``ROWS_PER_PAGE`` rows), the host's ``count_bookings_among`` calls (one per page)
   and the rest (a constant), printed beside ``rows / page size``.
3. **Reading the record back** through the API
   (``series/{id}/operations/{op}/rows/``, the test Client on the real URLconf, as
   the organisation's owner): the first page, a middle one and the last at the
   default page size and at 500, statements and ms per page; the operation's detail.

The host's notifier is off (host work, as in ``bench/generation.py``). Scratch
database ``revel_bench_history`` on the server named by DATABASE_URL (default: the
local PostgreSQL).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import generation  # noqa: E402  (needs ROOT on the path when run as a script)
from bench.scratch import SERVER_URL, migrated_example_project  # noqa: E402

BENCH_DB = os.environ.get("REVEL_BENCH_HISTORY_DB", "revel_bench_history")
#: What the issue asks of the daily pass with records, against the pass without.
TARGET = 1.10
API = "/api/recurring/series/"


# -- statements, counted by kind ------------------------------------------------------


class Statements:
    """Counts the statements run, by table written or read (keeps no SQL)."""

    def __init__(self) -> None:
        self.count = 0
        self.by: Counter[str] = Counter()

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, ctx: Any
    ) -> Any:
        self.count += 1
        self.by[_kind(sql)] += 1
        return execute(sql, params, many, ctx)


def _kind(sql: str) -> str:
    words = sql.split()
    verb = words[0].upper() if words else "?"
    table = ""
    for marker in ("INTO", "FROM", "UPDATE"):
        if marker in words:
            at = words.index(marker) + 1
            if at < len(words):
                table = words[at].strip('"')
                break
    return f"{verb} {table}".strip()


@contextmanager
def statements() -> Iterator[Statements]:
    from django.db import connection

    counter = Statements()
    with connection.execute_wrapper(counter):
        yield counter


# -- part 1: the daily pass, records on and off -----------------------------------------


class PassSnapshot:
    """The state after the setup pass; :meth:`restore` brings the database back to it."""

    def __init__(self) -> None:
        from django.db import connection

        from revel_recurring.models import OccurrenceChange

        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS bench_kept_operations")
            cursor.execute(
                "CREATE TABLE bench_kept_operations AS SELECT id FROM "
                "revel_recurring_seriesoperation"
            )
        self.last_change = _last_pk(OccurrenceChange)
        self.last_event = generation._snapshot()

    def restore(self) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                "DELETE FROM revel_recurring_occurrencechange WHERE id > %s", [self.last_change]
            )
            for table in ("operationrow", "operationseries"):
                cursor.execute(
                    f"DELETE FROM revel_recurring_{table} WHERE operation_id NOT IN "
                    "(SELECT id FROM bench_kept_operations)"
                )
            cursor.execute(
                "DELETE FROM revel_recurring_seriesoperation WHERE id NOT IN "
                "(SELECT id FROM bench_kept_operations)"
            )
        generation._restore(self.last_event)  # the events, tiers, cursors; VACUUM ANALYZE

    def written(self) -> tuple[int, int, int]:
        """(records, series links, rows) the last pass wrote."""
        from revel_recurring.models import OperationRow, OperationSeries, SeriesOperation

        kept = "SELECT id FROM bench_kept_operations"
        records = SeriesOperation.objects.extra(where=[f"id NOT IN ({kept})"]).count()
        links = OperationSeries.objects.extra(where=[f"operation_id NOT IN ({kept})"]).count()
        rows = OperationRow.objects.extra(where=[f"operation_id NOT IN ({kept})"]).count()
        return records, links, rows


def _last_pk(model: Any) -> int:
    return int(model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0)


class SummaryClock:
    """Times the daily pass's summary writer (``note_generated``) where the chunks call it."""

    def __init__(self) -> None:
        self.seconds = 0.0

    @contextmanager
    def installed(self) -> Iterator[None]:
        from revel_recurring.services.generation import chunks

        original = chunks.note_generated

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        chunks.note_generated = timed  # type: ignore[assignment]
        try:
            yield
        finally:
            chunks.note_generated = original  # type: ignore[assignment]


def daily_pass(args: argparse.Namespace, base: dt.datetime) -> None:
    from django.conf import settings

    from revel_recurring.services.generation.dispatch import iter_due_series_ids

    print(f"\n1. The daily pass at {args.series} weekly series, records on and off")
    started = time.perf_counter()
    generation.create_series(args.series, base, prefix="history")
    settings.REVEL_RECURRING_HISTORY = True
    generation.run_pass(base, chunk_size=args.chunk_size)
    print(
        f"  setup (series, first windows through the chunked pass): "
        f"{time.perf_counter() - started:.1f} s, {generation.occurrence_count()} occurrences"
    )
    tomorrow = base + dt.timedelta(days=1)
    due = len(list(iter_due_series_ids(now=tomorrow, chunk_size=100_000)))
    chunks = -(-due // args.chunk_size)
    snapshot = PassSnapshot()
    before = generation.occurrence_count()
    best: dict[str, tuple[float, int]] = {}
    wrote: dict[str, tuple[int, int, int]] = {}
    summary = SummaryClock()
    summary_best: float | None = None
    for _ in range(args.rounds):
        for label, history in (("records off", False), ("records on", True)):
            snapshot.restore()
            settings.REVEL_RECURRING_HISTORY = history
            summary.seconds = 0.0
            with summary.installed():
                elapsed, result, queries = generation.run_pass(tomorrow, chunk_size=args.chunk_size)
            if history and (summary_best is None or summary.seconds < summary_best):
                summary_best = summary.seconds
            assert result["due"] == result["dispatched"] == due, result
            assert generation.occurrence_count() - before == due, label
            records, links, rows = snapshot.written()
            if history:
                # At most one summary per chunk, naming every series it generated.
                assert records <= chunks, (records, chunks)
                assert links in (0, due), (links, due)
                assert rows == 0, rows
            else:
                assert (records, links, rows) == (0, 0, 0), (records, links, rows)
            wrote[label] = (records, links, rows)
            if label not in best or elapsed < best[label][0]:
                best[label] = (elapsed, queries)
    settings.REVEL_RECURRING_HISTORY = True
    print(
        f"  clock +1 day: {due} series due; chunks of {args.chunk_size} ({chunks} chunks); "
        f"best of {args.rounds} runs each, in alternation"
    )
    print(
        f"  {'pass':<14}{'seconds':>9}{'ms/due':>9}{'queries':>9}{'queries/chunk':>15}"
        f"{'records':>9}{'links':>7}"
    )
    for label in ("records off", "records on"):
        elapsed, queries = best[label]
        records, links, _ = wrote[label]
        print(
            f"  {label:<14}{elapsed:>9.2f}{1000 * elapsed / due:>9.3f}{queries:>9}"
            f"{queries / chunks:>15.1f}{records:>9}{links:>7}"
        )
    ratio = best["records on"][0] / best["records off"][0]
    verdict = "met" if ratio <= TARGET else "MISSED"
    print(f"  records on / off = {ratio:.3f}x (target <= {TARGET:.2f}x: {verdict})")
    assert summary_best is not None
    print(
        f"  of the pass with records, writing the summaries (note_generated, timed inside "
        f"the chunks): {1000 * summary_best:.0f} ms, "
        f"{100 * summary_best / best['records on'][0]:.1f}% of the pass "
        f"({1000 * summary_best / chunks:.2f} ms a chunk)"
    )
    if wrote["records on"][0] == 0:
        print("  (the pass wrote no summary record: the daily pass's records are not wired yet)")
    snapshot.restore()


# -- part 2: a 10,000-row cancel-stale ----------------------------------------------------


def drifted_series(number: int, dates: int, organization: Any) -> Any:
    """A daily series whose rule holds one date, with ``dates`` more rows off it, an hour apart.

    A series holds at most 52 weeks of dates (one a day for a daily rule), so the
    10,000 stale rows are written straight into the host's table, built from the
    template as generation builds them (``prepare_occurrence``, the slot kept as
    ``recurrence_id``): the rows of a rule changed outside the services, each off
    the rule and with no partner to move to, so cancel-stale cancels every one.
    """
    from django.conf import settings
    from django.utils import timezone

    from example_project.events.models import Event
    from revel_recurring.models import EventSeries
    from revel_recurring.services.lifecycle import create_recurring_series

    history = getattr(settings, "REVEL_RECURRING_HISTORY", True)
    settings.REVEL_RECURRING_HISTORY = False  # the setup leaves no record of its own
    try:
        start = (timezone.now() + dt.timedelta(days=1)).replace(minute=0, second=0, microsecond=0)
        series = create_recurring_series(
            rule_data={
                "frequency": "DAILY",
                "dtstart": start,
                "timezone": "Europe/Vienna",
                "count": 1,
            },
            template_data={
                "organization": organization,
                "name": f"Daily class {number}",
                "slug": f"daily-class-{number}",
                "end": start + dt.timedelta(minutes=45),
                "visibility": Event.Visibility.PUBLIC,
            },
            name=f"Daily class {number}",
            auto_publish=True,
        )
    finally:
        settings.REVEL_RECURRING_HISTORY = history
    template = Event.objects.get(series=series, is_template=True)
    rows = []
    for index in range(1, dates + 1):
        slot = start + dt.timedelta(hours=index)
        row = template.prepare_occurrence(
            start=slot, occurrence_index=index + 1, status=Event.RECURRING_STATUS_OPEN
        )
        row.recurrence_id = slot
        rows.append(row)
    Event.objects.bulk_create(rows, batch_size=2000)
    EventSeries.objects.filter(pk=series.pk).update(last_occurrence_index=dates + 1)
    series.refresh_from_db()
    count = Event.objects.filter(series=series, is_template=False).count()
    assert count == dates + 1, (count, dates)
    return series


class RecordClock:
    """Wraps the writer's ``open_record`` and ``close_record``: their time and statements."""

    def __init__(self, counter: Statements) -> None:
        self.counter = counter
        self.seconds = 0.0
        self.by: Counter[str] = Counter()

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            before = Counter(self.counter.by)
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
                self.by.update(self.counter.by - before)

        return timed


def cancel_once(series: Any, *, history: bool) -> dict[str, Any]:
    """``cancel_stale_occurrences`` of ``series`` (committed), measured."""
    from django.conf import settings

    from revel_recurring.services.drift import cancel_stale_occurrences
    from revel_recurring.services.toolbox import operation

    settings.REVEL_RECURRING_HISTORY = history
    originals = (operation.open_record, operation.close_record)
    with statements() as counter:
        clock = RecordClock(counter)
        operation.open_record = clock.wrap(originals[0])  # type: ignore[assignment]
        operation.close_record = clock.wrap(originals[1])  # type: ignore[assignment]
        try:
            started = time.perf_counter()
            done = cancel_stale_occurrences(series, include_booked=True, notify="none")
            elapsed = time.perf_counter() - started
        finally:
            operation.open_record, operation.close_record = originals  # type: ignore[assignment]
    settings.REVEL_RECURRING_HISTORY = True
    return {
        "by": counter.by,
        "cancelled": len(done.cancelled),
        "seconds": elapsed,
        "statements": counter.count,
        "record_seconds": clock.seconds,
        "record_by": clock.by,
    }


def cancel_stale(args: argparse.Namespace) -> tuple[Any, Any]:
    """Part 2; the last record written with records on (read back in part 3), its owner."""
    from django.contrib.auth import get_user_model

    from example_project.events.models import Organization
    from revel_recurring.models import OperationRow, SeriesOperation
    from revel_recurring.services.toolbox.history import ROWS_PER_PAGE

    print(f"\n2. A cancel-stale of {args.dates} dates in one operation, records on and off")
    owner = get_user_model().objects.create_user(username="history-owner")
    organization = Organization._default_manager.create(name="History", slug="history", owner=owner)
    best: dict[str, dict[str, Any]] = {}
    record = None
    number = 0
    setup = 0.0
    for _ in range(args.rounds):
        for label, history in (("records off", False), ("records on", True)):
            number += 1
            started = time.perf_counter()
            series = drifted_series(number, args.dates, organization)
            setup += time.perf_counter() - started
            seen = set(SeriesOperation.objects.values_list("pk", flat=True))
            figures = cancel_once(series, history=history)
            assert figures["cancelled"] == args.dates, figures["cancelled"]
            new = list(SeriesOperation.objects.exclude(pk__in=seen))
            if history:
                assert [one.kind for one in new] == ["cancel_stale"], [o.kind for o in new]
                record = new[0]
                assert record.row_count == args.dates, record.row_count
                assert OperationRow.objects.filter(operation=record).count() == args.dates
            else:
                assert not new, new
            if label not in best or figures["seconds"] < best[label]["seconds"]:
                best[label] = figures
    print(
        f"  {number} series of {args.dates} drifted dates set up in {setup:.1f} s; "
        f"best of {args.rounds} cancels each"
    )
    print(f"  {'cancel':<14}{'seconds':>9}{'statements':>12}{'ms/1000 rows':>14}")
    for label in ("records off", "records on"):
        figures = best[label]
        print(
            f"  {label:<14}{figures['seconds']:>9.2f}{figures['statements']:>12}"
            f"{1000 * figures['seconds'] / args.dates * 1000:>14.1f}"
        )
    on, off = best["records on"], best["records off"]
    print("  the cancel's statements by kind, records on (top 6):")
    for key, count in on["by"].most_common(6):
        print(f"      {key:<56}{count:>5}")
    by: Counter[str] = on["record_by"]
    total = sum(by.values())
    row_inserts = by["INSERT revel_recurring_operationrow"]
    host_calls = sum(n for key, n in by.items() if "events_" in key or "ticket" in key.lower())
    constant = total - row_inserts - host_calls
    pages = -(-args.dates // ROWS_PER_PAGE)
    print(
        f"  the record (open_record + close_record): {on['record_seconds']:.2f} s, "
        f"{total} statements for {args.dates} rows, {ROWS_PER_PAGE} rows a page ({pages} pages):"
    )
    print(
        f"    {row_inserts} OperationRow INSERTs + {host_calls} host count_bookings_among "
        f"reads + {constant} others = {total} "
        f"(rows/page size = {pages}; statements - 2 x pages = {total - 2 * pages})"
    )
    for key, count in sorted(by.items()):
        print(f"      {key:<56}{count:>5}")
    print(
        f"  the cancel with its record / without = {on['seconds'] / off['seconds']:.2f}x "
        f"(+{on['seconds'] - off['seconds']:.2f} s, "
        f"+{on['statements'] - off['statements']} statements)"
    )
    return record, owner


# -- part 3: reading it back page by page -------------------------------------------------


def read_back(record: Any, owner: Any) -> None:
    from django.test.utils import setup_test_environment
    from rest_framework.test import APIClient

    setup_test_environment(debug=False)  # "testserver" allowed; DEBUG off
    client = APIClient()
    client.force_authenticate(owner)
    url = f"{API}{record.series_id}/operations/{record.pk}/rows/"
    print(f"\n3. Reading the {record.row_count}-row record back through the API ({url})")
    client.get(url)  # the user's permissions, read once per user (as a warm request)
    print(f"  {'request':<34}{'rows':>6}{'statements':>12}{'ms':>8}")

    def timed(label: str, path: str, params: dict[str, Any], *, runs: int = 5) -> None:
        fastest = None
        for _ in range(runs):
            with statements() as counter:
                started = time.perf_counter()
                answer = client.get(path, params)
                elapsed = time.perf_counter() - started
            assert answer.status_code == 200, (answer.status_code, answer.content[:300])
            if fastest is None or elapsed < fastest[0]:
                fastest = (elapsed, counter.count, answer.json())
        assert fastest is not None
        elapsed, count, body = fastest
        rows = len(body.get("results", [])) if "results" in body else body.get("row_count", 0)
        print(f"  {label:<34}{rows:>6}{count:>12}{1000 * elapsed:>8.1f}")

    total = int(record.row_count)
    timed("first page (default size)", url, {})
    timed("middle page (default size)", url, {"page": max(1, total // 200)})
    timed("last page (default size)", url, {"page": max(1, -(-total // 100))})
    timed("first page of 500", url, {"page_size": 500})
    timed("middle page of 500", url, {"page_size": 500, "page": max(1, total // 1000)})
    timed("operation's detail", f"{API}{record.series_id}/operations/{record.pk}/", {})
    timed("series' operations list", f"{API}{record.series_id}/operations/", {})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=10_000, help="series of the daily pass")
    parser.add_argument("--dates", type=int, default=10_000, help="dates the cancel-stale cancels")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chunk-size", type=int, default=generation.CHUNK_SIZE)
    parser.add_argument("--skip-pass", action="store_true", help="parts 2 and 3 only")
    parser.add_argument("--skip-cancel", action="store_true", help="part 1 only")
    args = parser.parse_args()
    migrated_example_project(BENCH_DB, SERVER_URL)
    from django.conf import settings
    from django.db import connection

    settings.REVEL_RECURRING_NOTIFIER = None  # host work (bench/generation.py)
    generation.CHUNK_SIZE = args.chunk_size
    base = dt.datetime.now(dt.UTC).replace(microsecond=0)
    print(f"PostgreSQL {connection.cursor().connection.info.server_version}")
    if not args.skip_pass:
        daily_pass(args, base)
    if not args.skip_cancel:
        record, owner = cancel_stale(args)
        read_back(record, owner)


if __name__ == "__main__":
    main()
