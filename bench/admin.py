"""Cost of the series admin's pages and bulk actions on PostgreSQL (``make bench-admin``).

For each size N (``--sizes``, default 500 and 10,000) one organisation of the
example project gets N weekly series with their next 8 weeks generated (rules,
series and templates inserted in bulk, occurrences by the chunked daily pass in
eager Celery mode). One series in ten then moves its rule a day later, so its
dates drift (what *Cancel stale dates* lists); one in fifty has its first date
booked (a sold ticket). A staff member of the organisation (scoped by the
example adapter, as a real site is) then works the admin through Django's test
``Client`` and the real URLconf:

- the changelist (100 series a page);
- "select all" (``select_across``) with *Generate now*, *Pause*, *Resume*, the
  *Cancel stale dates* page and its confirmation, the *delete selected* page and
  its confirmation: over ``REVEL_RECURRING_ADMIN_INLINE_LIMIT`` (200) series each
  is handed to Celery, and the request only sends the chunks;
- the same three actions on exactly the inline limit's worth of series (200
  ticked), which run in the request: *Generate now* (nothing left to create,
  each series still locked and read), the *Cancel stale dates* page and the
  *delete selected* page.

Celery runs with the in-memory broker and no worker while the requests are
measured, so a queued action's figures are its request's alone; the messages
it sent are counted (one ``fan_out_series_chunks`` each: the worker sends the
chunks of ``REVEL_RECURRING_GENERATION_CHUNK_SIZE``). With ``--drain`` the
select-all cancellation is then run in this process, fan-out and chunks, and
timed, and the script checks that every stale date without a booking was
cancelled and every booked one kept.

For each request: the SQL statements, the wall time (fastest of ``--repeat``
runs; one when a run takes over 10 s) and the body's size. Runs in a scratch
database ``revel_bench_admin`` (``REVEL_BENCH_ADMIN_DB``) on the server named by
DATABASE_URL (default: the local PostgreSQL), dropped and created afresh.
Prints a Markdown table, one column per size; asserts the status codes and the
number of messages.

    .venv/bin/python bench/admin.py                         # 500 and 10,000 series
    .venv/bin/python bench/admin.py --sizes 300 --repeat 1 --drain
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

from bench.broker import take_messages  # noqa: E402  (needs ROOT on the path as a script)
from bench.queries import counting  # noqa: E402
from bench.scratch import SERVER_URL, migrated_example_project  # noqa: E402
from bench.weekly import insert_weekly_series, parse_sizes  # noqa: E402

BENCH_DB = os.environ.get("REVEL_BENCH_ADMIN_DB", "revel_bench_admin")
CHANGELIST = "/admin/revel_recurring/eventseries/"
DRIFTING = 10  # one series in ten drifts
BOOKED = 50  # one series in fifty has a booked date
LONG_RUN = 10.0  # seconds
KB = 1024


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _prepare_database() -> None:
    migrated_example_project(BENCH_DB, SERVER_URL)  # eager while the series are set up
    from django.conf import settings
    from django.test.utils import setup_test_environment

    # The test Client needs "testserver" allowed; DEBUG off, as in production.
    setup_test_environment(debug=False)
    # The host's notifier is host work, not the admin's.
    settings.REVEL_RECURRING_NOTIFIER = None


def create_organization(size: int, *, now: dt.datetime) -> tuple[Any, float]:
    """An organisation with ``size`` weekly series, drifted and booked ones; it, seconds."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from example_project.events.models import Event, Organization, TicketTier
    from revel_recurring import rules
    from revel_recurring.models import RecurrenceRule

    began = time.perf_counter()
    owner, _ = get_user_model().objects.get_or_create(username=f"bench-owner-{size}")
    organization = Organization._default_manager.create(
        name=f"Bench {size}", slug=f"bench-{size}", owner=owner
    )
    rule_objects, series_objects = insert_weekly_series(
        organization,
        size,
        clock=now,
        window_weeks=8,
        description="A weekly evening.",
        capacity=50,
    )
    # A rule moved a day later, written as an edit without a plan would: the dates
    # already generated stay on the old weekday and drift.
    drifting = rule_objects[::DRIFTING]
    for rule in drifting:
        rule.dtstart += dt.timedelta(days=1)
        rule.rrule_string = rules.to_rrule_string(rule.to_spec())
    RecurrenceRule.objects.bulk_update(drifting, ["dtstart", "rrule_string"], batch_size=2000)
    booked = series_objects[::BOOKED]
    firsts = (
        Event.objects.filter(series__in=booked, is_template=False)
        .order_by("series_id", "start")
        .distinct("series_id")
    )
    TicketTier.objects.bulk_create(
        [TicketTier(event=event, name="Paid", quantity=10, quantity_sold=1) for event in firsts]
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return organization, time.perf_counter() - began


def staff_client(organization: Any) -> Any:
    """A test Client signed in as a staff member of ``organization`` with the permissions."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission
    from django.test import Client

    user = get_user_model().objects.create_user(f"staff-{organization.slug}", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=[
                "view_eventseries",
                "change_eventseries",
                "delete_eventseries",
                "delete_event",
            ]
        )
    )
    organization.staff.add(user)
    client = Client()
    client.force_login(user)
    return client


def queued_messages(*, run: bool = False) -> tuple[int, float]:
    """Take every message the in-memory broker holds; with ``run``, run them here.

    Run tasks may send more (the fan-out sends the chunks): those are taken and
    run too, until none is left. Returns the number of messages and the seconds
    their tasks took.
    """
    from example_project.celery import app

    taken = 0
    began = time.perf_counter()
    while waiting := take_messages(app):
        taken += len(waiting)
        if not run:
            break
        for name, args, kwargs in waiting:
            app.tasks[name].apply(args=args, kwargs=kwargs).get()
    return taken, time.perf_counter() - began


@dataclasses.dataclass(frozen=True)
class Measured:
    """One kind of request: statements, fastest wall time (JIT on, off), body, messages."""

    queries: int
    seconds: float
    seconds_without_jit: float | None
    size: int
    messages: int


def _runs(
    label: str, call: Callable[[], Any], *, status: int, repeat: int, messages: int
) -> tuple[list[float], int, int]:
    times: list[float] = []
    queries = size = 0
    while len(times) < repeat and not (times and times[-1] > LONG_RUN):
        with counting() as counter:
            began = time.perf_counter()
            response = call()
            times.append(time.perf_counter() - began)
        if response.status_code != status:
            raise SystemExit(f"{label}: expected {status}, got {response.status_code}")
        sent, _ = queued_messages()
        if sent != messages:
            raise SystemExit(f"{label}: expected {messages} messages, got {sent}")
        queries, size = counter.count, len(response.content)
    return times, queries, size


def measure(
    label: str,
    call: Callable[[], Any],
    *,
    status: int,
    repeat: int,
    messages: int = 0,
    again: bool = True,
) -> Measured:
    """Run ``call`` (a request) up to ``repeat`` times; the fastest run's figures.

    Each run's messages are taken from the broker (and dropped) after it, and
    must number ``messages``. With ``again`` (a request that changes nothing a
    second run would see) the runs are repeated with PostgreSQL's JIT compiler
    off for the session: it compiles every query whose estimated cost passes
    ``jit_above_cost``, and for the scoped admin queries the compiling takes
    longer than the query.
    """
    from django.db import connection

    times, queries, size = _runs(label, call, status=status, repeat=repeat, messages=messages)
    without: list[float] = []
    if again:
        with connection.cursor() as cursor:
            cursor.execute("SET jit = off")
        try:
            without, _, _ = _runs(label, call, status=status, repeat=repeat, messages=messages)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET jit")
    shown = ", ".join(f"{t:.3f} s" for t in times)
    if without:
        shown += "; JIT off: " + ", ".join(f"{t:.3f} s" for t in without)
    _progress(f"  {label}: {shown}; {queries} queries")
    return Measured(queries, min(times), min(without) if without else None, size, messages)


def bench_size(size: int, *, now: dt.datetime, repeat: int, drain: bool) -> dict[str, Any]:
    """Set up ``size`` series and request each admin page and action; the figures."""
    from django.conf import settings

    from example_project.celery import app
    from example_project.events.models import Event
    from revel_recurring.conf import recurring_settings
    from revel_recurring.models import EventSeries

    organization, setup = create_organization(size, now=now)
    rows = Event.objects.filter(organization=organization, is_template=False).count()
    _progress(f"  set up in {setup:.1f} s: {rows:,} occurrence rows")
    client = staff_client(organization)
    mine = list(
        EventSeries.objects.filter(events__organization=organization, events__is_template=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    limit = recurring_settings.ADMIN_INLINE_LIMIT
    queued = len(mine) > limit
    inline = min(limit, len(mine))  # what ticking up to the limit ticks
    # From now on the actions' tasks are sent to the in-memory broker, not run.
    app.conf.task_always_eager = False
    settings.CELERY_TASK_ALWAYS_EAGER = False

    def everything(action: str, **extra: Any) -> Callable[[], Any]:
        # What the changelist posts after "Select all N event series".
        data = {"action": action, "select_across": "1", "index": "0"}
        data["_selected_action"] = [str(pk) for pk in mine[:100]]
        return lambda: client.post(CHANGELIST, {**data, **extra})

    def ticked(action: str) -> Callable[[], Any]:
        data = {"action": action, "index": "0", "_selected_action": mine[:limit]}
        return lambda: client.post(CHANGELIST, data)

    sent = 1 if queued else 0  # one fan-out message; the worker sends the chunks
    results: dict[str, Any] = {"setup": setup, "rows": rows, "series": len(mine)}
    results["changelist"] = measure(
        "changelist", lambda: client.get(CHANGELIST), status=200, repeat=repeat
    )
    for key, action in (
        ("generate", "generate_now_action"),
        ("pause", "pause_action"),
        ("resume", "resume_action"),
    ):
        results[key] = measure(
            f"select all, {action}",
            everything(action),
            status=302,
            repeat=repeat if queued else 1,
            messages=sent,
        )
    results["stale_page"] = measure(
        "select all, cancel-stale page",
        everything("cancel_stale_action"),
        status=200,
        repeat=repeat,
    )
    results["delete_page"] = measure(
        "select all, delete page", everything("delete_selected"), status=200, repeat=repeat
    )
    results["inline_generate"] = measure(
        f"{inline} ticked, generate now", ticked("generate_now_action"), status=302, repeat=repeat
    )
    results["inline_stale"] = measure(
        f"{inline} ticked, cancel-stale page",
        ticked("cancel_stale_action"),
        status=200,
        repeat=repeat,
    )
    results["inline_delete"] = measure(
        f"{inline} ticked, delete page", ticked("delete_selected"), status=200, repeat=repeat
    )
    confirm = everything("cancel_stale_action", confirm="yes", rest="yes")
    # Queued, a confirmation only sends a message: it can be repeated.
    once = {"repeat": repeat if queued else 1, "again": queued}
    results["stale_confirm"] = measure(
        "select all, cancel-stale confirmation", confirm, status=302, messages=sent, **once
    )
    if drain and queued:
        results["drain"] = drain_cancellation(confirm, mine, now=now)
    # Last. Over the limit it queues the deletion (the tasks keep the booked
    # series). Within it the selection always holds a booked series (the first
    # of every BOOKED), so Django's confirmation comes back naming its booked
    # dates as protected and nothing is deleted, as docs/howto/admin.md says.
    results["delete_confirm"] = measure(
        "select all, delete confirmation",
        everything("delete_selected", post="yes"),
        status=302 if queued else 200,
        messages=sent,
        **once,
    )
    app.conf.task_always_eager = True
    settings.CELERY_TASK_ALWAYS_EAGER = True
    return results


def drain_cancellation(
    confirm: Callable[[], Any], mine: list[int], *, now: dt.datetime
) -> tuple[int, float, int, int]:
    """Confirm the select-all cancellation again and run its tasks here; the figures.

    Every stale date without a booking must come out cancelled, every booked one kept.
    Returns (messages run: the fan-out and its chunks, seconds, dates cancelled,
    booked dates kept).
    """
    from example_project.events.models import Event, TicketTier
    from revel_recurring.models import EventSeries
    from revel_recurring.services.drift import drifted_ids_by_series

    series = list(EventSeries.objects.filter(pk__in=mine).select_related("recurrence_rule"))
    stale = {pk for pks in drifted_ids_by_series(series, now=now).values() for pk in pks}
    booked = TicketTier.objects.filter(event_id__in=stale, quantity_sold__gt=0)
    kept = set(booked.values_list("event_id", flat=True))
    confirm()
    messages, seconds = queued_messages(run=True)
    done = Event.objects.filter(pk__in=stale, status=Event.Status.CANCELLED)
    cancelled = set(done.values_list("pk", flat=True))
    if cancelled != stale - kept:
        raise SystemExit(
            f"the queued cancellation cancelled {len(cancelled)} dates, "
            f"expected {len(stale - kept)}"
        )
    _progress(f"  ran {messages} tasks in {seconds:.2f} s: {len(cancelled)} cancelled")
    return messages, seconds, len(cancelled), len(kept)


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _amount(size: int) -> str:
    return f"{size / KB:.0f} KB" if size >= KB else f"{size} B"


ROWS = (
    ("changelist", "changelist (GET, 100 a page)"),
    ("generate", "select all, *Generate now*"),
    ("pause", "select all, *Pause*"),
    ("resume", "select all, *Resume*"),
    ("stale_page", "select all, *Cancel stale dates* page"),
    ("stale_confirm", "select all, *Cancel stale dates* confirmed"),
    ("delete_page", "select all, *delete selected* page"),
    ("delete_confirm", "select all, *delete selected* confirmed"),
    ("inline_generate", "inline limit ticked, *Generate now* (in the request)"),
    ("inline_stale", "inline limit ticked, *Cancel stale dates* page"),
    ("inline_delete", "inline limit ticked, *delete selected* page"),
)


def table(results: dict[int, dict[str, Any]]) -> list[str]:
    """The figures as a Markdown table: one row per request, four columns per size."""
    sizes = list(results)
    heads = [
        f"{s:,}: {what}" for s in sizes for what in ("queries", "time", "time, JIT off", "body")
    ]
    lines = ["| request | " + " | ".join(heads) + " |", "| --- |" + " ---: |" * len(heads)]
    for key, label in ROWS:
        cells = []
        for size in sizes:
            measured: Measured = results[size][key]
            queries = str(measured.queries)
            if measured.messages:
                sent = measured.messages
                queries += f" (+{sent} message{'s' if sent > 1 else ''})"
            without = measured.seconds_without_jit
            cells += [
                queries,
                _duration(measured.seconds),
                "—" if without is None else _duration(without),
                _amount(measured.size),
            ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=parse_sizes, default=[500, 10_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--drain", action="store_true", help="run the queued cancellation")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be 1 or more")
    _prepare_database()
    from django.db import connection

    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    results: dict[int, dict[str, Any]] = {}
    for size in args.sizes:
        _progress(f"{size:,} series ...")
        results[size] = bench_size(size, now=now, repeat=args.repeat, drain=args.drain)
    version = connection.cursor().connection.info.server_version
    load = os.getloadavg()
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        jit = cursor.fetchone()[0]
    print(
        f"PostgreSQL {version // 10000}.{version % 10000} (jit {jit}); one organisation per "
        "size, weekly "
        f"series, 8 weeks generated, 1 in {DRIFTING} drifted, 1 in {BOOKED} booked; "
        f"a staff member of the organisation; wall time: fastest of {args.repeat} "
        f"(1 when a run takes over {LONG_RUN:g} s), then again with JIT off; load average "
        f"at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print("\n".join(table(results)))
    for size, result in results.items():
        setup, rows = result["setup"], result["rows"]
        print(f"{size:,} series: set up in {setup:.1f} s, {rows:,} occurrence rows")
        if "drain" in result:
            messages, seconds, cancelled, kept = result["drain"]
            print(
                f"{size:,} series: the queued cancellation ran {messages} tasks in "
                f"{seconds:.2f} s here, cancelling {cancelled:,} stale dates and keeping "
                f"{kept} booked ones"
            )


if __name__ == "__main__":
    main()
