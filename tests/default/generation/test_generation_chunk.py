"""generate_series_chunk: many series in one transaction, same results as one by one."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from celery.signals import task_prerun
from django.db import IntegrityError, OperationalError, transaction

from revel_recurring import tasks
from revel_recurring.models import EventSeries, PendingExdate
from revel_recurring.services.generation import floor, generate_series_events, plan
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.generation.dispatch import dispatch_due_chunks
from revel_recurring.services.toolbox.scheduling import generation_window
from revel_recurring.signals import series_events_generated
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NEW_YORK, NOW, VIENNA, captured, make_series, occurrences

pytestmark = pytest.mark.django_db

Snapshot = tuple[Any, ...]


@contextlib.contextmanager
def ran_tasks() -> Iterator[list[str]]:
    """Names of the Celery tasks run (eagerly) inside the block, in order."""
    names: list[str] = []

    def record(sender: Any = None, **kwargs: Any) -> None:
        names.append(sender.name)

    task_prerun.connect(record, weak=False)
    try:
        yield names
    finally:
        task_prerun.disconnect(record)


def build_variety(prefix: str) -> list[EventSeries]:
    """Rules that exercise the planner: DST, count, until, interval, exdates, paused."""
    weekly = make_series(name=f"{prefix} weekly")
    daily = make_series(
        name=f"{prefix} daily",
        frequency="DAILY",
        dtstart=dt.datetime(2026, 3, 5, 18, 30, tzinfo=NEW_YORK),
        timezone="America/New_York",
        count=20,
        window_weeks=2,
    )
    fortnightly = make_series(name=f"{prefix} fortnightly", interval=2, seats=3)
    excluded = make_series(name=f"{prefix} excluded", auto_publish=True)
    EventSeries.objects.filter(pk=excluded.pk).update(
        exdates=[dt.datetime(2026, 3, 16, 9, 0, tzinfo=dt.UTC).isoformat()]
    )
    until = make_series(
        name=f"{prefix} until",
        dtstart=dt.datetime(2026, 3, 3, 7, 0, tzinfo=VIENNA),
        until=dt.datetime(2026, 3, 31, 23, 0, tzinfo=dt.UTC),
    )
    started_earlier = make_series(
        name=f"{prefix} earlier", dtstart=dt.datetime(2026, 1, 5, 10, 0, tzinfo=VIENNA)
    )
    paused = make_series(name=f"{prefix} paused")
    EventSeries.objects.filter(pk=paused.pk).update(is_active=False, next_due_at=None)
    return [weekly, daily, fortnightly, excluded, until, started_earlier, paused]


def snapshot(series: EventSeries) -> Snapshot:
    """Everything generation writes, without primary keys or names."""
    series.refresh_from_db()
    rows = tuple(
        (e.starts_at, e.ends_at, e.doors_open_at, e.recurrence_id, e.occurrence_index, e.state)
        for e in occurrences(series)
    )
    seats = tuple(
        Seat.objects.filter(event__series=series, event__is_template=False)
        .order_by("event__starts_at", "label")
        .values_list("event__starts_at", "label", "quantity")
    )
    return (
        rows,
        seats,
        series.last_generated_until,
        series.next_due_at,
        series.last_occurrence_index,
        tuple(series.exdates),
    )


def test_chunk_materializes_exactly_what_the_per_series_path_does() -> None:
    one_by_one, chunked = build_variety("a"), build_variety("b")
    later = NOW + dt.timedelta(days=17)
    for moment in (NOW, later):
        for series in one_by_one:
            generate_series_events(series.pk, now=moment)
        result = generate_series_chunk_events([s.pk for s in chunked], now=moment)
        assert (result.chunked, result.retried, result.fallen_back, result.failures) == (
            7,
            0,
            0,
            {},
        )
        assert [snapshot(s) for s in chunked] == [snapshot(s) for s in one_by_one]
    assert sum(len(occurrences(s)) for s in chunked) > 40


def test_each_run_computes_each_series_window_once(monkeypatch: pytest.MonkeyPatch) -> None:
    computed: list[int] = []

    def counting(series: EventSeries, *args: Any, **kwargs: Any) -> Any:
        computed.append(series.pk)
        return generation_window(series, *args, **kwargs)

    # Every module of the package that could compute a window, counted as one.
    monkeypatch.setattr(floor, "generation_window", counting)
    monkeypatch.setattr(plan, "generation_window", counting)
    single = make_series(name="single")
    chunk = [make_series(name=f"chunk {n}") for n in range(3)]

    assert len(generate_series_events(single, now=NOW)) == 8
    assert computed == [single.pk]
    computed.clear()
    assert generate_series_chunk_events([s.pk for s in chunk], now=NOW).created == 24
    assert computed == [s.pk for s in chunk]


def test_chunk_folds_pending_exdates_and_never_recreates_a_deleted_occurrence() -> None:
    series = make_series()
    other = make_series(name="other")
    generate_series_chunk_events([series.pk, other.pk], now=NOW)
    victim = occurrences(series)[2]
    with transaction.atomic():
        # Held back as a pending exdate, as when the fold after commit did not run yet.
        PendingExdate.objects.create(series=series, instant=victim.recurrence_id)
        Event.objects.filter(pk=victim.pk).update(series=None)  # gone from the series
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)

    generate_series_chunk_events([series.pk, other.pk], now=NOW)

    series.refresh_from_db()
    assert victim.recurrence_id not in {e.recurrence_id for e in occurrences(series)}
    assert victim.recurrence_id in series.exdate_instants
    assert not PendingExdate.objects.filter(series=series).exists()


def test_one_broken_series_is_parked_and_the_others_are_generated_in_the_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    good = [make_series(name=f"good {n}") for n in range(3)]
    broken = make_series(name="broken")
    original = Event.prepare_occurrence

    def prepare(self: Event, **kwargs: Any) -> Event:
        if self.title == "broken":
            raise RuntimeError("host hook failed")
        return original(self, **kwargs)

    monkeypatch.setattr(Event, "prepare_occurrence", prepare)
    ids = [good[0].pk, good[1].pk, broken.pk, good[2].pk]

    result = generate_series_chunk_events(ids, now=NOW)

    assert (result.chunked, result.fallen_back, result.failures) == (4, 0, {})
    assert result.parked == [broken.pk]
    assert [len(occurrences(s)) for s in good] == [8, 8, 8]
    broken.refresh_from_db()
    assert (occurrences(broken), broken.last_generated_until) == ([], None)
    assert broken.parked_at == NOW
    assert broken.parked_reason == "RuntimeError: host hook failed"
    assert result.created == 24
    # Parked: the next pass does not select it, and does not fail on it again.
    assert list(EventSeries.objects.due(now=NOW + dt.timedelta(days=1))) == []


def test_a_database_error_of_one_series_falls_back_and_parks_only_that_series(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    good = [make_series(name=f"good {n}") for n in range(2)]
    broken = make_series(name="broken")
    original = Event.prepare_occurrence

    def prepare(self: Event, **kwargs: Any) -> Event:
        if self.title == "broken":
            # Not transient (no lock or connection trouble): a retry fails the same way.
            raise IntegrityError("null value in column violates not-null constraint")
        return original(self, **kwargs)

    monkeypatch.setattr(Event, "prepare_occurrence", prepare)

    result = generate_series_chunk_events([good[0].pk, broken.pk, good[1].pk], now=NOW)

    assert (result.chunked, result.fallen_back, sorted(result.failures)) == (0, 2, [broken.pk])
    assert result.parked == [broken.pk]
    assert [len(occurrences(s)) for s in good] == [8, 8]
    broken.refresh_from_db()
    assert broken.parked_reason.startswith("IntegrityError: null value")


def test_chunk_sends_one_digest_per_series_after_commit(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    first, second, idle = make_series(), make_series(name="second"), make_series(name="idle")
    generate_series_events(idle, now=NOW)
    with captured(series_events_generated) as digests:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            generate_series_chunk_events([first.pk, second.pk, idle.pk], now=NOW)
        assert digests == []
        for callback in callbacks:
            callback()
    assert sorted((d["series"].pk, len(d["occurrences"])) for d in digests) == [
        (first.pk, 8),
        (second.pk, 8),
    ]
    for digest in digests:
        assert {e.series_id for e in digest["occurrences"]} == {digest["series"].pk}


def test_chunk_parks_a_series_without_template_and_skips_deleted_ids() -> None:
    parked, fine = make_series(name="parked"), make_series(name="fine")
    Event.objects.filter(series=parked).update(is_template=False, series=None)

    result = generate_series_chunk_events([parked.pk, fine.pk, 987654], now=NOW)

    parked.refresh_from_db()
    assert parked.next_due_at is None
    assert len(occurrences(fine)) == 8
    assert result.series == 3
    assert not result.failures


def test_dispatcher_hands_out_chunks_and_a_broker_error_fails_only_its_chunk(
    settings: Any,
) -> None:
    settings.REVEL_RECURRING_DISPATCH_CHUNK_SIZE = 2  # ids stream in pages of two
    series = [make_series(name=f"s{n}") for n in range(7)]
    EventSeries.objects.update(next_due_at=NOW - dt.timedelta(hours=1))
    chunks: list[list[int]] = []

    def enqueue(ids: list[int]) -> None:
        if series[3].pk in ids:
            raise ConnectionError("broker unreachable")
        chunks.append(ids)

    result = dispatch_due_chunks(enqueue, now=NOW, chunk_size=3)

    pks = [s.pk for s in series]
    assert chunks == [pks[0:3], pks[6:7]]
    assert result.as_dict() == {"due": 7, "dispatched": 4, "failed": 3, "skipped": 0}


def test_generate_all_series_runs_chunks_until_nothing_is_due(settings: Any) -> None:
    settings.REVEL_RECURRING_GENERATION_CHUNK_SIZE = 2
    series = [make_series(name=f"s{n}") for n in range(5)]
    EventSeries.objects.update(next_due_at=NOW - dt.timedelta(hours=1))

    with ran_tasks() as names:
        result = tasks.generate_all_series.apply(kwargs={"now": NOW.isoformat()}).get()

    assert result == {"due": 5, "dispatched": 5, "failed": 0, "skipped": 0}
    assert (
        names
        == ["revel_recurring.generate_all_series"] + ["revel_recurring.generate_series_chunk"] * 3
    )
    assert [len(occurrences(s)) for s in series] == [8] * 5
    assert tasks.generate_all_series.apply(kwargs={"now": NOW.isoformat()}).get()["due"] == 0


def test_chunk_size_one_sends_the_per_series_task(settings: Any) -> None:
    settings.REVEL_RECURRING_GENERATION_CHUNK_SIZE = 1
    series = [make_series(name=f"s{n}") for n in range(2)]
    EventSeries.objects.update(next_due_at=NOW - dt.timedelta(hours=1))

    with ran_tasks() as names:
        tasks.generate_all_series.apply(kwargs={"now": NOW.isoformat()}).get()

    assert (
        names == ["revel_recurring.generate_all_series"] + ["revel_recurring.generate_series"] * 2
    )
    assert [len(occurrences(s)) for s in series] == [8, 8]


def test_chunk_task_reports_its_counts() -> None:
    series = [make_series(name=f"s{n}") for n in range(3)]

    result = tasks.generate_series_chunk.apply(
        args=([s.pk for s in series],), kwargs={"now": NOW.isoformat()}
    ).get()

    assert result == {
        "series": 3,
        "chunked": 3,
        "retried": 0,
        "fallen_back": 0,
        "created": 24,
        "failed": [],
        "parked": [],
        "requeued": [],
    }


def test_a_transient_error_of_one_series_hands_it_to_the_retrying_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    flaky, fine = make_series(name="flaky"), make_series(name="fine")
    original = Event.prepare_occurrence
    failures = iter([True, True])  # the chunk, then the series on its own; then it works

    def prepare(self: Event, **kwargs: Any) -> Event:
        if self.title == "flaky" and next(failures, False):
            raise OperationalError("database is locked")
        return original(self, **kwargs)

    monkeypatch.setattr(Event, "prepare_occurrence", prepare)
    with ran_tasks() as names:
        result = tasks.generate_series_chunk.apply(
            args=([flaky.pk, fine.pk],), kwargs={"now": NOW.isoformat()}
        ).get()

    assert (result["fallen_back"], result["failed"], result["requeued"]) == (1, [], [flaky.pk])
    assert names == ["revel_recurring.generate_series_chunk", "revel_recurring.generate_series"]
    assert [len(occurrences(s)) for s in (flaky, fine)] == [8, 8]
