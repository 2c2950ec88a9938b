"""People's messages at scale on PostgreSQL (``make bench-people``); prints its figures.

A cancel-stale over 1,000 booked dates with 10,000 people booked on them (ten
people per date, each on one date) in four daily series of 250 dates, side by
side in one run:

1. the cancel itself (``cancel_stale_occurrences`` of each series, committed):
   its statements and time, and of those, what writing the people's notices took
   (``notices/records.py``, in chunks of ``PEOPLE_PER_BATCH`` people): statements
   per chunk. The messages are only queued (Celery on an in-memory broker, not
   eager): the cancel never waits for them;
2. sending them (``send_operation_notices`` of each operation, Django's locmem
   e-mail backend): statements and time per chunk of the same size.

The host hook ``people_booked_among`` is the benchmark's own, answering in one
query from a table of its own (``bench_attendee``); the example project's events
and series are real. Scratch database ``revel_bench_people`` on the server named by
DATABASE_URL (default: the local PostgreSQL).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.queries import counting  # noqa: E402  (needs ROOT on the path when run as a script)
from bench.scratch import SERVER_URL, migrated_example_project  # noqa: E402

BENCH_DB = os.environ.get("REVEL_BENCH_PEOPLE_DB", "revel_bench_people")


def _people_from_table(cls: Any, events: Sequence[Any]) -> Mapping[Any, Sequence[Any]]:
    """The benchmark's host hook: the people of ``events``, in one query on bench_attendee."""
    from django.db import connection

    from revel_recurring.people import BookedPerson

    people: dict[Any, list[BookedPerson]] = {}
    if not events:
        return people
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT event_id, address, name, language, timezone FROM bench_attendee "
            "WHERE event_id = ANY(%s) ORDER BY event_id, address",
            [[event.pk for event in events]],
        )
        for event_id, address, name, language, zone in cursor.fetchall():
            people.setdefault(event_id, []).append(BookedPerson(address, name, language, zone))
    return people


def prepare(*, series_count: int, dates: int, per_date: int) -> list[int]:
    """Series of ``dates`` daily dates each, ``per_date`` people on every date, all drifted."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from example_project.events.models import Event, Organization
    from revel_recurring.models import EventSeries, PersonNotice
    from revel_recurring.services.lifecycle import (
        create_recurring_series,
        update_series_recurrence,
    )
    from revel_recurring.services.toolbox.operation import dates_operation

    owner = get_user_model().objects.create_user(username="bench-owner")
    organization = Organization.objects.create(name="Bench", slug="bench", owner=owner)
    start = (timezone.now() + dt.timedelta(days=1)).replace(microsecond=0)
    ids = []
    for number in range(series_count):
        series = create_recurring_series(
            rule_data={
                "frequency": "DAILY",
                "dtstart": start,
                "timezone": "Europe/Vienna",
                "count": dates,
            },
            template_data={
                "organization": organization,
                "name": f"Evening class {number}",
                "slug": f"evening-class-{number}",
                "end": start + dt.timedelta(hours=1),
                "visibility": Event.Visibility.PUBLIC,
            },
            name=f"Evening class {number}",
            auto_publish=True,
            generation_window_weeks=52,
        )
        ids.append(int(series.pk))
    rows = list(
        Event.objects.filter(series_id__in=ids, is_template=False).values_list("pk", flat=True)
    )
    assert len(rows) == series_count * dates, len(rows)
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE bench_attendee (event_id bigint NOT NULL, address varchar(254), "
            "name varchar(200), language varchar(16), timezone varchar(64))"
        )
        cursor.execute("CREATE INDEX bench_attendee_event ON bench_attendee (event_id)")
        values = [
            (pk, f"person-{index}-{seat}@bench.example", f"Person {index}-{seat}", "de", "")
            for index, pk in enumerate(sorted(rows))
            for seat in range(per_date)
        ]
        cursor.executemany(
            "INSERT INTO bench_attendee (event_id, address, name, language, timezone) "
            "VALUES (%s, %s, %s, %s, %s)",
            values,
        )
        cursor.execute("ANALYZE")
    # Every date drifts: each rule now ends at one date before its first. Nobody is told
    # of that (the dates stay put; only what a calendar knows them by changes).
    for series in EventSeries.objects.filter(pk__in=ids).select_related("recurrence_rule"):
        rule = series.recurrence_rule
        with transaction.atomic(), dates_operation("move", series, notify="none"):
            update_series_recurrence(
                series,
                rule_changes={"dtstart": rule.dtstart - dt.timedelta(days=1), "count": 1},
            )
    assert not PersonNotice.objects.exists()
    return ids


class _Timed:
    """Wraps ``record_notices`` to count its statements and time apart from the cancel's."""

    def __init__(self, target: Any, counter: Any) -> None:
        self.target, self.counter = target, counter
        self.queries = 0
        self.seconds = 0.0
        self.people = 0

    def __call__(self, facts: Any, changes: Any, people: Any, *rest: Any) -> Any:
        before = self.counter.count
        started = time.perf_counter()
        try:
            return self.target(facts, changes, people, *rest)
        finally:
            self.seconds += time.perf_counter() - started
            self.queries += self.counter.count - before
            self.people += len({p.key for persons in people.values() for p in persons})


def run(series_ids: list[int]) -> dict[str, Any]:
    """The cancel (with its notices written) and the sending, each measured."""
    from django.db import transaction

    from revel_recurring.models import EventSeries, PersonNotice, SeriesOperation
    from revel_recurring.notices import records
    from revel_recurring.notices.delivery import send_operation_notices
    from revel_recurring.services.drift import cancel_stale_occurrences
    from revel_recurring.services.toolbox import operation

    cancelled = 0
    with counting() as counter:
        timed = _Timed(operation.record_notices, counter)
        operation.record_notices = timed  # type: ignore[assignment]
        try:
            started = time.perf_counter()
            for series in EventSeries.objects.filter(pk__in=series_ids).order_by("pk"):
                with transaction.atomic():
                    done = cancel_stale_occurrences(series, include_booked=True, notify="all")
                cancelled += len(done.cancelled)
            cancel_seconds = time.perf_counter() - started
        finally:
            operation.record_notices = timed.target
        cancel_queries = counter.count

    operations = list(SeriesOperation.objects.order_by("created_at").values_list("pk", flat=True))
    notices = PersonNotice.objects.count()
    chunk = records.PEOPLE_PER_BATCH
    chunks = sum(
        -(-PersonNotice.objects.filter(operation_id=pk).count() // chunk) for pk in operations
    )
    sent = 0
    with counting() as counter:
        started = time.perf_counter()
        for pk in operations:
            sent += send_operation_notices(pk)["sent"]
        send_seconds = time.perf_counter() - started
    return {
        "cancelled": cancelled,
        "operations": len(operations),
        "notices": notices,
        "chunk": chunk,
        "chunks": chunks,
        "cancel_queries": cancel_queries,
        "cancel_seconds": cancel_seconds,
        "record_queries": timed.queries,
        "record_seconds": timed.seconds,
        "sent": sent,
        "send_queries": counter.count,
        "send_seconds": send_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=4)
    parser.add_argument("--dates", type=int, default=250, help="dates per series")
    parser.add_argument("--per-date", type=int, default=10, help="people booked on each date")
    args = parser.parse_args()

    migrated_example_project(BENCH_DB, SERVER_URL)
    from celery import current_app
    from django.conf import settings

    from example_project.events.models import Event

    # Host work that is not the people's messages: the digest notifier, the console mail.
    settings.REVEL_RECURRING_NOTIFIER = None
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    Event.people_booked_among = classmethod(_people_from_table)  # type: ignore[method-assign,assignment]
    # The cancel queues its messages as a site with a broker does: one publish, no send.
    current_app.conf.task_always_eager = False
    current_app.conf.broker_url = "memory://"

    started = time.perf_counter()
    ids = prepare(series_count=args.series, dates=args.dates, per_date=args.per_date)
    print(f"(prepared in {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    figures = run(ids)
    chunks = figures["chunks"]
    other = figures["cancel_queries"] - figures["record_queries"]
    print(
        f"cancel-stale: {figures['cancelled']} dates cancelled in {figures['operations']} "
        f"operations, {figures['notices']} people told"
    )
    print(
        f"  the cancel (committed, messages queued): {figures['cancel_queries']} statements, "
        f"{figures['cancel_seconds']:.2f} s"
    )
    print(
        f"    of which the rows' reads and writes: {other} statements, "
        f"{figures['cancel_seconds'] - figures['record_seconds']:.2f} s"
    )
    print(
        f"    of which writing the notices: {figures['record_queries']} statements, "
        f"{figures['record_seconds']:.2f} s; {chunks} chunks of up to {figures['chunk']} people: "
        f"{figures['record_queries'] / chunks:.1f} statements and "
        f"{figures['record_seconds'] / chunks * 1000:.0f} ms per chunk"
    )
    print(
        f"  sending (locmem backend): {figures['sent']} messages, {figures['send_queries']} "
        f"statements, {figures['send_seconds']:.2f} s; per chunk of {figures['chunk']}: "
        f"{figures['send_queries'] / chunks:.0f} statements, "
        f"{figures['send_seconds'] / chunks * 1000:.0f} ms; per message "
        f"{figures['send_queries'] / max(figures['sent'], 1):.2f} statements"
    )


if __name__ == "__main__":
    main()
