"""Enrolments in the daily pass on PostgreSQL (``make bench-enrolments``, and the end of
``make bench``); prints its figures.

N weekly series (default 10,000) of the example host are generated to their
horizon with M enrolments (default 20,000: two users in every series, each user
in ten series) in place, so every date already holds its enrolled users' bookings,
their ``EnrolmentDate`` rows, their messages and calendar copies. Then the clock
moves one day and about one series in seven has a new date due. The same chunked
steady-state pass (``generate_all_series``, eager Celery, chunks of 50) runs from
the same snapshot two ways, in alternation, best run of each kept:

- **without enrolments**: the host does not book enrolled users (no
  ``book_enrolled``): the pass as it was before enrolments;
- **with enrolments**: the bench's ``book_enrolled`` books each enrolled user on
  each new date, one row per (user, date) written with ``bulk_create`` into a
  table of its own with a foreign key to the event and to the user and a unique
  constraint on the pair; the app writes each (user, date)'s ``EnrolmentDate``,
  owed a message. The messages (one operation per series, one message per user
  and series with their calendar copies) are written after each chunk's commit by
  the task ``tell_enrolled_users``, timed apart and printed on a line of its own,
  with the ratio of the whole work beside the pass's.

After each pass the script asserts what it wrote: every due series got its date,
every enrolled user a booking on it, one operation per due series and one message
per enrolled user and due series. The messages are queued after commit as a site
with a broker queues them; sending them is the worker's work, measured by
``bench/people.py``. The example project's digest notifier is off, as in
``bench/generation.py``. Scratch database ``revel_bench_enrolments`` on the server
named by DATABASE_URL (default: the local PostgreSQL).
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

from bench import generation  # noqa: E402  (needs ROOT on the path when run as a script)
from bench.scratch import SERVER_URL, migrated_example_project  # noqa: E402

BENCH_DB = os.environ.get("REVEL_BENCH_ENROLMENTS_DB", "revel_bench_enrolments")
#: Series each bench user is enrolled in (20,000 enrolments: 2,000 users).
SERIES_PER_USER = 10
#: What the issue asks of the pass with enrolments, against the pass without.
TARGET = 2.0


def booking_model() -> Any:
    """The bench host's booking table: (event, user), each a foreign key, unique together."""
    from django.conf import settings
    from django.db import connection, models

    from example_project.events.models import Event

    class BenchBooking(models.Model):
        event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
        user = models.ForeignKey(
            settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
        )

        class Meta:
            app_label = "events"
            db_table = "bench_enrolled_booking"
            constraints = [
                models.UniqueConstraint(fields=["event", "user"], name="bench_booking_once")
            ]

        def __str__(self) -> str:
            return f"{self.user_id} on {self.event_id}"

    with connection.schema_editor() as editor:
        editor.create_model(BenchBooking)
    return BenchBooking


def book_enrolled_hook(booking: Any) -> Any:
    """The bench's ``book_enrolled``: one booking row per (user, date), one bulk INSERT.

    The app leaves out the pairs a user already holds (its ``EnrolmentDate`` rows),
    so the hook writes every pair it is given; the unique constraint would refuse
    a second booking of a pair and roll the chunk back.
    """
    from revel_recurring.enrolled import BookingAnswer

    def book_enrolled(
        cls: Any, pairs: Sequence[tuple[Any, str]]
    ) -> Mapping[tuple[Any, str], BookingAnswer]:
        booking.objects.bulk_create(
            [booking(event_id=event.pk, user_id=int(user)) for event, user in pairs]
        )
        return {(event.pk, user): BookingAnswer.booked() for event, user in pairs}

    return classmethod(book_enrolled)


def enrol_users(series_ids: Sequence[int], enrolments: int, starts_on: dt.date) -> int:
    """``enrolments`` enrolments spread over the series, each user in ``SERIES_PER_USER``."""
    from django.contrib.auth import get_user_model

    from revel_recurring.models import Enrolment

    users = get_user_model().objects.bulk_create(
        [
            get_user_model()(username=f"regular-{n}", email=f"regular-{n}@bench.example")
            for n in range(max(1, enrolments // SERIES_PER_USER))
        ],
        batch_size=2000,
    )
    per_series = max(1, enrolments // len(series_ids))
    rows = [
        Enrolment(
            series_id=series_ids[number // per_series],
            user_pk=str(users[number % len(users)].pk),
            starts_on=starts_on,
        )
        for number in range(min(enrolments, per_series * len(series_ids)))
    ]
    Enrolment.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


class Snapshot:
    """The state after the setup pass; :meth:`restore` brings the database back to it."""

    def __init__(self, booking: Any) -> None:
        from revel_recurring.models import (
            CalendarCopy,
            EnrolmentDate,
            PersonNotice,
            SeriesOperation,
        )

        self.booking = booking
        self.tables = (booking, EnrolmentDate, CalendarCopy, PersonNotice)
        self.last = {model: _last_pk(model) for model in self.tables}
        self.operations = set(SeriesOperation.objects.values_list("pk", flat=True))
        self.last_event = generation._snapshot()

    def restore(self) -> None:
        from revel_recurring.models import SeriesOperation

        for model in self.tables:
            model.objects.filter(pk__gt=self.last[model])._raw_delete(model.objects.db)
        SeriesOperation.objects.exclude(pk__in=self.operations)._raw_delete(
            SeriesOperation.objects.db
        )
        generation._restore(self.last_event)  # the events, their tiers, the cursors; VACUUM

    def created(self) -> dict[str, int]:
        """What the last pass wrote on the enrolments' side."""
        from revel_recurring.models import SeriesOperation

        counts = {
            model._meta.model_name: model.objects.filter(pk__gt=self.last[model]).count()
            for model in self.tables
        }
        counts["operations"] = SeriesOperation.objects.exclude(pk__in=self.operations).count()
        return counts


def _last_pk(model: Any) -> int:
    return int(model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0)


def set_hook(event_model: Any, hook: Any | None) -> None:
    """Install the bench's ``book_enrolled`` on the host, or take it away (None)."""
    if hook is None:
        if "book_enrolled" in event_model.__dict__:
            delattr(event_model, "book_enrolled")
    else:
        event_model.book_enrolled = hook


#: (module, function, label): the enrolments' parts of a chunk, outermost first.
PARTS = (
    ("revel_recurring.services.generation.floor", "book_enrolled_rows", "booking, all of it"),
    ("revel_recurring.services.toolbox.enrolled", "_states_held", "dates' states read"),
    ("revel_recurring.services.toolbox.enrolled", "_write_dates", "EnrolmentDate upsert"),
    ("revel_recurring.services.toolbox.enrolled", "tell_enrolled", "messages, all of it"),
    ("revel_recurring.services.toolbox.enrolled", "states_of", "dates' identities"),
    (
        "revel_recurring.services.toolbox.enrolled",
        "record_enrolment_notices",
        "operations + notices + copies",
    ),
    ("revel_recurring.notices.enrolled", "row_facts", "rows' facts read"),
    ("revel_recurring.notices.enrolled", "save_copies", "calendar copies upsert"),
)


COPIES_READ = "calendar copies read"


def split_pass(run: Any, event_model: Any, due: int) -> None:
    """One pass with enrolments, each part and each statement timed (no profiler)."""
    import importlib
    from collections import Counter
    from contextlib import ExitStack

    from django.db import connection

    from bench.phases import PARTS as CHUNK_PARTS
    from bench.phases import StatementClock, _timed, _timed_method
    from revel_recurring.notices.records import Sequences

    spent: Counter[str] = Counter()
    clock = StatementClock()
    with ExitStack() as stack:
        for module_name, name, label in (*CHUNK_PARTS, *PARTS):
            stack.enter_context(_timed(importlib.import_module(module_name), name, label, spent))
        stack.enter_context(_timed_method(event_model, "book_enrolled", "host's hook", spent))
        stack.enter_context(_timed_method(Sequences, "of_pairs", COPIES_READ, spent))
        stack.enter_context(connection.execute_wrapper(clock))
        started = time.perf_counter()
        run()
        elapsed = time.perf_counter() - started
    print(f"\n  one pass with enrolments, timed by part (no profiler): {1000 * elapsed:.0f} ms")
    print(f"  {'part':<34}{'ms':>8}{'us/due':>9}")
    for label in [label for *_, label in (*CHUNK_PARTS, *PARTS)] + ["host's hook", COPIES_READ]:
        print(f"    {label:<32}{1000 * spent[label]:>8.1f}{1e6 * spent[label] / due:>9.1f}")
    print(f"  {'statement (round trip)':<52}{'ms':>8}{'us/due':>9}{'count':>7}")
    for key, seconds in clock.spent.most_common():
        print(
            f"    {key:<50}{1000 * seconds:>8.1f}{1e6 * seconds / due:>9.1f}{clock.count[key]:>7}"
        )


def run(args: argparse.Namespace) -> None:
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from revel_recurring import receivers, tasks
    from revel_recurring.models import PersonNotice
    from revel_recurring.services.generation.dispatch import iter_due_series_ids
    from revel_recurring.services.toolbox.enrolled import host_enrols, tell_untold

    Event = generation._models()[0]
    settings.REVEL_RECURRING_NOTIFIER = None  # host work (bench/generation.py)
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    # The messages are queued after commit, as with a broker: the ids are kept, the
    # sending (a worker's work, bench/people.py) does not run inside the pass.
    queued: list[Any] = []
    receivers.queue_people_notices = queued.append  # type: ignore[assignment]
    # The chunks' messages to enrolled users are written by their own task after each
    # chunk commits (a worker's work, timed apart below): the chunks' ids are kept.
    owed: list[list[int]] = []

    def keep_owed(series_ids: list[int], *, now: str | None = None) -> None:
        owed.append(list(series_ids))

    tasks.queue_enrolled_messages = keep_owed  # type: ignore[assignment]
    generation.CHUNK_SIZE = args.chunk_size

    booking = booking_model()
    hook = book_enrolled_hook(booking)
    original = Event.__dict__.get("book_enrolled")
    base = dt.datetime.now(dt.UTC).replace(microsecond=0)
    print(f"PostgreSQL {connection.cursor().connection.info.server_version}")
    print(
        f"Enrolments in the steady-state pass: {args.series} weekly series, "
        f"{args.enrolments} enrolments"
    )
    started = time.perf_counter()
    ids = generation.create_series(args.series, base, prefix="enrolled")
    enrolled = enrol_users(ids, args.enrolments, base.date() - dt.timedelta(days=1))
    set_hook(Event, hook)
    assert host_enrols()
    generation.run_pass(base, chunk_size=args.chunk_size)
    for chunk in owed:
        tell_untold(chunk, now=base)
    owed.clear()
    # Yesterday's messages went out (a worker sent them): none is left for the
    # pass's sweep of unsent messages to queue again.
    PersonNotice.objects.update(sent_at=base)
    print(
        f"  setup (series, {enrolled} enrolments, first windows with their bookings through "
        f"the chunked pass): {time.perf_counter() - started:.1f} s, "
        f"{generation.occurrence_count()} occurrences, {booking.objects.count()} bookings"
    )
    tomorrow = base + dt.timedelta(days=1)
    due = len(list(iter_due_series_ids(now=tomorrow, chunk_size=100_000)))
    per_series = enrolled // len(ids)
    snapshot = Snapshot(booking)
    before = generation.occurrence_count()
    best: dict[str, tuple[float, int]] = {}
    told_best: tuple[float, int] | None = None
    for _ in range(args.rounds):
        for label, installed in (("without enrolments", None), ("with enrolments", hook)):
            snapshot.restore()
            set_hook(Event, installed)
            queued.clear()
            owed.clear()
            elapsed, result, queries = generation.run_pass(tomorrow, chunk_size=args.chunk_size)
            assert result["due"] == result["dispatched"] == due, result
            assert generation.occurrence_count() - before == due, label
            wrote = snapshot.created()
            if installed is None:
                assert not any(wrote.values()), wrote
                assert not queued, queued
                assert not owed, owed
            else:
                assert wrote["benchbooking"] == wrote["enrolmentdate"] == due * per_series, wrote
                assert wrote["personnotice"] == 0, wrote  # owed, told after the pass
                assert len(owed) == -(-due // args.chunk_size), len(owed)
                # The task each chunk queued: the messages, timed apart.
                with CaptureQueriesContext(connection) as told_queries:
                    started = time.perf_counter()
                    told = sum(tell_untold(chunk, now=tomorrow) for chunk in owed)
                    told_elapsed = time.perf_counter() - started
                assert told == due * per_series, told
                wrote = snapshot.created()
                assert wrote["personnotice"] == due * per_series, wrote
                assert wrote["operations"] == len(queued) == due, (wrote, len(queued))
                if told_best is None or told_elapsed < told_best[0]:
                    told_best = (told_elapsed, len(told_queries))
            if label not in best or elapsed < best[label][0]:
                best[label] = (elapsed, queries)
    print(
        f"  clock +1 day: {due} series due, {due * per_series} (user, date) bookings; "
        f"chunks of {args.chunk_size}; best of {args.rounds} runs each"
    )
    print(f"  {'pass':<20}{'seconds':>9}{'ms/due':>9}{'queries':>9}{'queries/chunk':>15}")
    chunks = -(-due // args.chunk_size)
    for label, (elapsed, queries) in best.items():
        print(
            f"  {label:<20}{elapsed:>9.2f}{1000 * elapsed / due:>9.2f}{queries:>9}"
            f"{queries / chunks:>15.1f}"
        )
    assert told_best is not None
    told_elapsed, told_count = told_best
    print(
        f"  {'then the messages':<20}{told_elapsed:>9.2f}{1000 * told_elapsed / due:>9.2f}"
        f"{told_count:>9}{told_count / chunks:>15.1f}"
        "   (tell_enrolled_users, one task per chunk after its commit)"
    )
    ratio = best["with enrolments"][0] / best["without enrolments"][0]
    verdict = "met" if ratio < TARGET else "MISSED"
    print(f"  with / without enrolments = {ratio:.2f}x (target < {TARGET:.0f}x: {verdict})")
    whole = (best["with enrolments"][0] + told_elapsed) / best["without enrolments"][0]
    print(f"  with the messages' task added = {whole:.2f}x (the work a worker does in all)")
    if args.phases:
        snapshot.restore()
        set_hook(Event, hook)
        split_pass(
            lambda: generation.run_pass(tomorrow, chunk_size=args.chunk_size), Event, max(due, 1)
        )
    if args.profile:
        import cProfile
        import pstats

        snapshot.restore()
        set_hook(Event, hook)
        profiler = cProfile.Profile()
        profiler.enable()
        generation.run_pass(tomorrow, chunk_size=args.chunk_size)
        profiler.disable()
        profiler.dump_stats(args.profile)
        print(f"\n  profile of one pass with enrolments: {args.profile}; top 30, cumulative")
        pstats.Stats(args.profile).sort_stats("cumulative").print_stats(30)
    set_hook(Event, original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=10_000)
    parser.add_argument("--enrolments", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--chunk-size", type=int, default=generation.CHUNK_SIZE)
    parser.add_argument("--profile", metavar="PATH", help="cProfile one pass with enrolments")
    parser.add_argument(
        "--phases", action="store_true", help="time each part of one more pass with enrolments"
    )
    args = parser.parse_args()
    migrated_example_project(BENCH_DB, SERVER_URL)
    run(args)


if __name__ == "__main__":
    main()
