"""Generation benchmark on PostgreSQL (``make bench``); prints its figures.

1. One full window for N weekly series (8 occurrences and one seat tier each),
   four ways, each from the same starting state:
   - per-series: ``generate_all_series`` in eager Celery mode with
     ``GENERATION_CHUNK_SIZE = 1`` (dispatch + one locked, bulk-inserting
     transaction per series);
   - chunked: the same task with the default chunks (one transaction per chunk);
   - the per-series floor: one transaction per series holding one bulk INSERT per
     table and nothing else (slots computed beforehand, outside the timing);
   - naive: one ``full_clean()`` + ``save()`` per occurrence and per tier inside
     the same per-series transactions.
2. A steady-state daily pass: M series already generated to their horizon, the
   clock moved one day; about one in seven has a new occurrence due. The same
   pass runs per-series and chunked from the same snapshot, in alternation.

Uses the example project's host (events.Event with a TicketTier each, its
constraints, its clone_related) in a scratch database ``revel_bench`` on the
server named by DATABASE_URL (default: the local PostgreSQL).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.queries import counting  # noqa: E402  (needs ROOT on the path when run as a script)
from bench.scratch import SERVER_URL, migrated_example_project  # noqa: E402

BENCH_DB = os.environ.get("REVEL_BENCH_DB", "revel_bench")
CHUNK_SIZE = 50  # the default REVEL_RECURRING_GENERATION_CHUNK_SIZE; --chunk-size changes it


def _prepare_database() -> None:
    migrated_example_project(BENCH_DB, SERVER_URL)
    from django.conf import settings

    # The host's notifier (in the example project: the audience queries, a
    # DigestRecord, one Notification per recipient and the e-mails) is host work,
    # not generation: it is switched off so all three approaches write the same
    # rows. With no notifier and no receiver, no digest is built at all.
    settings.REVEL_RECURRING_NOTIFIER = None


def _weekday_start(base: dt.datetime, number: int) -> dt.datetime:
    from zoneinfo import ZoneInfo

    # Spread series over the seven weekdays and a few evening hours.
    local = base.astimezone(ZoneInfo("Europe/Vienna")).replace(
        hour=17 + number % 4, minute=0, second=0, microsecond=0
    )
    return local + dt.timedelta(days=number % 7)


def _models() -> tuple[Any, Any, Any]:
    from example_project.events.models import Event, Organization, TicketTier

    return Event, Organization, TicketTier


def create_series(count: int, base: dt.datetime, *, prefix: str = "s") -> list[int]:
    """Rules, series, templates and one ticket tier each, inserted in bulk."""
    from django.contrib.auth import get_user_model

    from revel_recurring import rules
    from revel_recurring.models import EventSeries, RecurrenceRule

    Event, Organization, TicketTier = _models()
    owner, _ = get_user_model().objects.get_or_create(username="bench-owner")
    organization, _ = Organization.objects.get_or_create(
        slug="bench", defaults={"name": "Bench", "owner": owner}
    )
    rule_objects = []
    for number in range(count):
        rule = RecurrenceRule(
            frequency="WEEKLY", dtstart=_weekday_start(base, number), timezone="Europe/Vienna"
        )
        rule.rrule_string = rules.to_rrule_string(rule.to_spec())
        rule_objects.append(rule)
    rule_objects = RecurrenceRule.objects.bulk_create(rule_objects, batch_size=2000)
    series_objects = EventSeries.objects.bulk_create(
        [
            EventSeries(
                name=f"Series {prefix}{n}",
                slug=f"series-{prefix}{n}",
                recurrence_rule=rule,
                auto_publish=True,
                next_due_at=base - dt.timedelta(days=1),
            )
            for n, rule in enumerate(rule_objects)
        ],
        batch_size=2000,
    )
    templates = Event.objects.bulk_create(
        [
            Event(
                organization=organization,
                series=series,
                is_template=True,
                name=series.name,
                slug=series.slug,
                description="A weekly evening with a long description. " * 5,
                visibility="public",
                capacity=50,
                address="Praterstrasse 1, Vienna",
                latitude="48.216000",
                longitude="16.390000",
                requires_ticket=True,
                start=rule.dtstart,
                end=rule.dtstart + dt.timedelta(hours=2),
                rsvp_before=rule.dtstart - dt.timedelta(hours=3),
                check_in_starts_at=rule.dtstart - dt.timedelta(minutes=30),
            )
            for series, rule in zip(series_objects, rule_objects, strict=True)
        ],
        batch_size=2000,
    )
    TicketTier.objects.bulk_create(
        [
            TicketTier(
                event=t,
                name="General",
                price="12.50",
                quantity=100,
                sales_start=t.start - dt.timedelta(days=14),
                sales_end=t.start,
            )
            for t in templates
        ],
        batch_size=2000,
    )
    return [s.pk for s in series_objects]


def reset_generated(base: dt.datetime) -> None:
    from revel_recurring.models import EventSeries

    Event, _, TicketTier = _models()
    TicketTier.objects.filter(event__is_template=False)._raw_delete(TicketTier.objects.db)
    Event.objects.filter(is_template=False)._raw_delete(Event.objects.db)
    EventSeries.objects.update(
        last_generated_until=None, next_due_at=base - dt.timedelta(days=1), exdates=[]
    )


def occurrence_count() -> int:
    Event, _, _ = _models()
    return int(Event.objects.filter(is_template=False).count())


def run_pass(now: dt.datetime, *, chunk_size: int) -> tuple[float, dict[str, int], int]:
    """``generate_all_series`` (eager) with ``chunk_size`` series per task."""
    from django.conf import settings

    from revel_recurring.tasks import generate_all_series

    settings.REVEL_RECURRING_GENERATION_CHUNK_SIZE = chunk_size
    with counting() as counter:
        started = time.perf_counter()
        result = generate_all_series.apply(kwargs={"now": now.isoformat()}).get()
        elapsed = time.perf_counter() - started
    assert result["failed"] == 0, result
    return elapsed, result, counter.count


def run_per_series(now: dt.datetime) -> tuple[float, int, int]:
    elapsed, _, queries = run_pass(now, chunk_size=1)
    return elapsed, occurrence_count(), queries


def run_chunked(now: dt.datetime) -> tuple[float, int, int]:
    elapsed, _, queries = run_pass(now, chunk_size=CHUNK_SIZE)
    return elapsed, occurrence_count(), queries


def _plans(now: dt.datetime) -> list[tuple[Any, list[Any], list[dt.datetime]]]:
    """Per series: template, its tiers and its slots, computed outside the timing."""
    from revel_recurring import rules
    from revel_recurring.models import EventSeries

    Event, _, _ = _models()
    horizon = now + dt.timedelta(weeks=8)
    series_list = list(EventSeries.objects.select_related("recurrence_rule").order_by("pk"))
    templates = {
        t.series_id: t
        for t in Event.objects.filter(is_template=True).prefetch_related("ticket_tiers")
    }
    plans = []
    for series in series_list:
        template = templates[series.pk]
        slots = rules.occurrences_between(
            series.recurrence_rule.to_spec(), now, horizon, inclusive=True
        )
        plans.append((template, list(template.ticket_tiers.all()), slots))
    return plans


def run_floor(now: dt.datetime) -> tuple[float, int, int]:
    from django.db import transaction

    Event, _, TicketTier = _models()
    plans = _plans(now)
    with counting() as counter:
        started = time.perf_counter()
        for template, tiers, slots in plans:
            with transaction.atomic():
                events = Event.objects.bulk_create(
                    [
                        template.prepare_occurrence(start=slot, occurrence_index=i, status="open")
                        for i, slot in enumerate(slots, start=1)
                    ]
                )
                TicketTier.objects.bulk_create(
                    [
                        tier.copy_for(event, delta=event.start - template.start)
                        for event in events
                        for tier in tiers
                    ]
                )
        elapsed = time.perf_counter() - started
    return elapsed, occurrence_count(), counter.count


def run_naive(now: dt.datetime) -> tuple[float, int, int]:
    from django.db import transaction

    plans = _plans(now)
    with counting() as counter:
        started = time.perf_counter()
        for template, tiers, slots in plans:
            with transaction.atomic():
                for index, slot in enumerate(slots, start=1):
                    event = template.prepare_occurrence(
                        start=slot, occurrence_index=index, status="open"
                    )
                    event.full_clean()
                    event.save()
                    for tier in tiers:
                        copy = tier.copy_for(event, delta=event.start - template.start)
                        copy.full_clean()
                        copy.save()
        elapsed = time.perf_counter() - started
    return elapsed, occurrence_count(), counter.count


def _snapshot() -> int:
    """Save every series' cursor columns; return the highest event pk (restore point)."""
    from django.db import connection

    Event, _, _ = _models()
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_cursors")
        cursor.execute(
            "CREATE TABLE bench_cursors AS SELECT id, last_generated_until, next_due_at, "
            "last_occurrence_index, exdates FROM revel_recurring_eventseries"
        )
    return int(Event.objects.order_by("-pk").values_list("pk", flat=True)[0])


def _restore(last_pk: int) -> None:
    from django.db import connection

    Event, _, TicketTier = _models()
    TicketTier.objects.filter(event_id__gt=last_pk)._raw_delete(TicketTier.objects.db)
    Event.objects.filter(pk__gt=last_pk)._raw_delete(Event.objects.db)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE revel_recurring_eventseries s SET "
            "last_generated_until = b.last_generated_until, next_due_at = b.next_due_at, "
            "last_occurrence_index = b.last_occurrence_index, exdates = b.exdates "
            "FROM bench_cursors b WHERE b.id = s.id"
        )
        cursor.execute("VACUUM ANALYZE")


def _due_rows(last_pk: int) -> list[tuple[Any, list[Any]]]:
    """The rows the last pass created, unsaved again: (occurrence, its tiers) per row.

    Read back after a chunked run, so the floor and naive lines write exactly the
    rows the real passes wrote, built outside the timing.
    """
    Event, _, TicketTier = _models()
    events = list(Event.objects.filter(pk__gt=last_pk).order_by("series_id", "pk"))
    tiers: dict[int, list[Any]] = {}
    for tier in TicketTier.objects.filter(event_id__gt=last_pk).order_by("pk"):
        tiers.setdefault(tier.event_id, []).append(tier)
    rows = []
    for event in events:
        own = tiers.get(event.pk, [])
        for obj in (event, *own):
            obj.pk = None
            obj._state.adding = True
        rows.append((event, own))
    return rows


def _by_series(rows: list[tuple[Any, list[Any]]]) -> list[list[tuple[Any, list[Any]]]]:
    groups: dict[int, list[tuple[Any, list[Any]]]] = {}
    for row in rows:
        groups.setdefault(row[0].series_id, []).append(row)
    return [groups[key] for key in sorted(groups)]


def run_steady_floor(rows: list[tuple[Any, list[Any]]]) -> tuple[float, int]:
    """One transaction per chunk of due series: one INSERT per table, nothing else."""
    from django.db import transaction

    Event, _, TicketTier = _models()
    series_groups = _by_series(rows)
    chunks = [
        [row for group in series_groups[i : i + CHUNK_SIZE] for row in group]
        for i in range(0, len(series_groups), CHUNK_SIZE)
    ]
    with counting() as counter:
        started = time.perf_counter()
        for chunk in chunks:
            with transaction.atomic():
                Event.objects.bulk_create([event for event, _ in chunk])
                copies = []
                for event, own in chunk:
                    for tier in own:
                        tier.event_id = event.pk
                        copies.append(tier)
                TicketTier.objects.bulk_create(copies)
        elapsed = time.perf_counter() - started
    return elapsed, counter.count


def run_steady_naive(rows: list[tuple[Any, list[Any]]]) -> tuple[float, int]:
    """One transaction per due series, ``full_clean()`` + ``save()`` per row and tier."""
    from django.db import transaction

    with counting() as counter:
        started = time.perf_counter()
        for group in _by_series(rows):
            with transaction.atomic():
                for event, own in group:
                    event.full_clean()
                    event.save()
                    for tier in own:
                        tier.event_id = event.pk
                        tier.full_clean()
                        tier.save()
        elapsed = time.perf_counter() - started
    return elapsed, counter.count


def _fresh(rows: list[tuple[Any, list[Any]]]) -> list[tuple[Any, list[Any]]]:
    """Unsaved copies of ``rows`` (a write sets primary keys on the objects it saves)."""
    import copy

    fresh = []
    for event, own in rows:
        copies = [copy.copy(obj) for obj in (event, *own)]
        for obj in copies:
            obj.pk = None
            obj._state = type(obj._state)()
        fresh.append((copies[0], copies[1:]))
    return fresh


def profile_chunked(tomorrow: dt.datetime, last_pk: int, path: str) -> None:
    """One chunked steady-state pass under cProfile; the stats go to ``path``."""
    import cProfile
    import pstats

    _restore(last_pk)
    profiler = cProfile.Profile()
    profiler.enable()
    run_pass(tomorrow, chunk_size=CHUNK_SIZE)
    profiler.disable()
    profiler.dump_stats(path)
    print(f"\n  profile of one chunked pass: {path}; top 25 by cumulative time")
    pstats.Stats(path).sort_stats("cumulative").print_stats(25)


def split_chunked(tomorrow: dt.datetime, last_pk: int, due: int) -> None:
    """One more chunked steady-state pass, each part of the chunk timed (bench.phases)."""
    from bench.phases import print_split, split_pass

    _restore(last_pk)
    elapsed, spent, clock = split_pass(
        lambda: run_pass(tomorrow, chunk_size=CHUNK_SIZE), _models()[0]
    )
    print_split(elapsed, spent, clock, max(due, 1))


def steady_state(
    count: int, base: dt.datetime, *, rounds: int, profile: str | None, phases: bool = False
) -> None:
    from revel_recurring.services.generation.dispatch import iter_due_series_ids

    print(f"\nSteady state: {count} weekly series generated to their horizon")
    create_series(count, base, prefix="steady")
    started = time.perf_counter()
    run_pass(base, chunk_size=CHUNK_SIZE)
    print(
        f"  setup (first windows through chunked generate_all_series): "
        f"{time.perf_counter() - started:.1f} s, {occurrence_count()} occurrences"
    )
    tomorrow = base + dt.timedelta(days=1)
    expected_due = len(list(iter_due_series_ids(now=tomorrow, chunk_size=10_000)))
    last_pk = _snapshot()
    before = occurrence_count()
    # The due rows, as the chunked pass builds them, for the floor and naive lines.
    run_pass(tomorrow, chunk_size=CHUNK_SIZE)
    due_rows = _due_rows(last_pk)
    best: dict[str, tuple[float, int, int]] = {}
    for _ in range(rounds):
        for label, size in (("per-series", 1), ("chunked", CHUNK_SIZE)):
            _restore(last_pk)
            elapsed, result, queries = run_pass(tomorrow, chunk_size=size)
            created = occurrence_count() - before
            assert result["due"] == result["dispatched"] == expected_due, result
            # Every due series was materialized: nothing is due any more.
            assert not list(iter_due_series_ids(now=tomorrow, chunk_size=10)), label
            assert created == len(due_rows), (label, created, len(due_rows))
            if label not in best or elapsed < best[label][0]:
                best[label] = (elapsed, queries, created)
        _restore(last_pk)
        elapsed, queries = run_steady_floor(_fresh(due_rows))
        if "floor" not in best or elapsed < best["floor"][0]:
            best["floor"] = (elapsed, queries, occurrence_count() - before)
    _restore(last_pk)
    elapsed, queries = run_steady_naive(_fresh(due_rows))
    best["naive"] = (elapsed, queries, occurrence_count() - before)
    print(
        f"  clock +1 day: {expected_due} series due; best of {rounds} runs each "
        f"(naive: one run); floor and naive write the rows the chunked pass wrote"
    )
    print(f"  {'path':<12}{'seconds':>9}{'due':>7}{'created':>9}{'ms/due':>9}{'queries/due':>13}")
    due = max(expected_due, 1)
    for label in ("per-series", "chunked", "floor", "naive"):
        elapsed, queries, created = best[label]
        print(
            f"  {label:<12}{elapsed:>9.2f}{expected_due:>7}{created:>9}"
            f"{1000 * elapsed / due:>9.2f}{queries / due:>13.2f}"
        )
    per_series, chunked, floor, naive = (
        best[k][0] for k in ("per-series", "chunked", "floor", "naive")
    )
    print(
        f"  per-series / chunked = {per_series / chunked:.2f}x per due series (target >= 15x); "
        f"chunked / floor = {chunked / floor:.2f}x (target <= 2x); "
        f"naive / chunked = {naive / chunked:.1f}x"
    )
    if phases:
        split_chunked(tomorrow, last_pk, expected_due)
    if profile:
        profile_chunked(tomorrow, last_pk, profile)


def initial_window(count: int, base: dt.datetime, *, rounds: int, naive_rounds: int) -> None:
    """The first window of ``count`` series, four ways (part 1 of the module docstring)."""
    print(f"{count} weekly series, 8 occurrences + 1 tier each")
    create_series(count, base)
    # This machine shares its cores: runs are repeated in alternation and the
    # fastest of each approach is kept, the usual way to read through noise.
    results: dict[str, tuple[float, int, int]] = {}
    runners = {
        "per-series": run_per_series,
        "chunked": run_chunked,
        "floor": run_floor,
        "naive": run_naive,
    }
    for round_number in range(rounds):
        for label, runner in runners.items():
            if label == "naive" and round_number >= naive_rounds:
                continue
            reset_generated(base)
            outcome = runner(base)
            if label not in results or outcome[0] < results[label][0]:
                results[label] = outcome
    reset_generated(base)
    print(
        f"best of {rounds} runs ({naive_rounds} for naive); "
        f"notifier off (host work, see _prepare_database)"
    )
    print(f"{'approach':<17}{'seconds':>9}{'occurrences':>13}{'occ/s':>10}{'queries/series':>16}")
    for label, (elapsed, created, queries) in results.items():
        print(
            f"{label:<17}{elapsed:>9.2f}{created:>13}{created / elapsed:>10.0f}"
            f"{queries / count:>16.1f}"
        )
    revel, chunked, floor, naive = (
        results[k][0] for k in ("per-series", "chunked", "floor", "naive")
    )
    print(
        f"per-series / floor = {revel / floor:.2f}x; chunked / floor = {chunked / floor:.2f}x "
        f"(target < 1x); naive / per-series = {naive / revel:.1f}x"
    )
    from revel_recurring.models import EventSeries, RecurrenceRule

    Event, _, TicketTier = _models()
    TicketTier.objects.all()._raw_delete(TicketTier.objects.db)
    Event.objects.all()._raw_delete(Event.objects.db)
    EventSeries.objects.all()._raw_delete(EventSeries.objects.db)
    RecurrenceRule.objects.all()._raw_delete(RecurrenceRule.objects.db)


def main() -> None:
    global CHUNK_SIZE
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--series", type=int, default=1000)
    parser.add_argument("--steady-series", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--naive-rounds", type=int, default=1)
    parser.add_argument("--steady-rounds", type=int, default=2)
    parser.add_argument(
        "--profile", metavar="PATH", help="cProfile one chunked steady-state pass into PATH"
    )
    parser.add_argument(
        "--steady-only", action="store_true", help="skip the initial-window comparison"
    )
    parser.add_argument(
        "--phases",
        action="store_true",
        help="time each part of one more chunked steady-state pass (no profiler)",
    )
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=CHUNK_SIZE,
        help="series per chunk for the chunked path and per floor transaction (default 50)",
    )
    args = parser.parse_args()
    CHUNK_SIZE = args.chunk_size
    _prepare_database()
    from django.db import connection

    base = dt.datetime.now(dt.UTC).replace(microsecond=0)
    print(f"PostgreSQL {connection.cursor().connection.info.server_version}")
    if not args.steady_only:
        initial_window(args.series, base, rounds=args.rounds, naive_rounds=args.naive_rounds)
    if args.steady_series:
        steady_state(
            args.steady_series,
            base,
            rounds=args.steady_rounds,
            profile=args.profile,
            phases=args.phases,
        )


if __name__ == "__main__":
    main()
