"""Chunks on PostgreSQL: SKIP LOCKED leaves held series out, and they are generated after."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.lifecycle import update_series_recurrence
from revel_recurring.services.toolbox.locking import lock_series, lock_series_chunk
from tests.support.concurrency import Background, held_in_transaction, race, wait_until_blocked
from tests.support.factories import NOW, fresh, make_series, occurrences

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]


def test_chunk_lock_leaves_out_a_series_another_transaction_holds() -> None:
    free, held = make_series(name="free"), make_series(name="held")
    with held_in_transaction(lambda: lock_series(held.pk)), transaction.atomic():
        locked, skipped = lock_series_chunk([held.pk, free.pk])
    assert ([s.pk for s in locked], skipped) == ([free.pk], [held.pk])


def test_a_held_series_is_generated_after_the_chunk_commits_never_lost() -> None:
    first, held, last = (make_series(name=n) for n in ("first", "held", "last"))
    ready, release = threading.Event(), threading.Event()

    def hold() -> None:
        with transaction.atomic():
            lock_series(held.pk)
            ready.set()
            release.wait(30)

    holder = Background(hold)
    assert ready.wait(30)
    chunk = Background(lambda: generate_series_chunk_events([first.pk, held.pk, last.pk], now=NOW))
    wait_until_blocked()  # the retry of `held` waits for its lock...
    # ...while the rest of the chunk is committed already: it did not wait.
    assert [len(occurrences(s)) for s in (first, held, last)] == [8, 0, 8]
    release.set()
    holder.result()
    result = chunk.result()
    assert (result.chunked, result.retried, result.failures) == (2, 1, {})
    assert len(occurrences(held)) == 8


def test_a_cadence_change_committed_while_held_is_what_the_retry_generates() -> None:
    changed, other = make_series(name="changed", window_weeks=2), make_series(name="other")

    def change() -> None:
        update_series_recurrence(fresh(changed), rule_changes={"frequency": "DAILY"}, now=NOW)

    with held_in_transaction(change):
        chunk = Background(lambda: generate_series_chunk_events([changed.pk, other.pk], now=NOW))
        wait_until_blocked()
    result = chunk.result()
    assert (result.chunked, result.retried) == (1, 1)
    assert len(occurrences(changed)) == 13  # daily from Monday 2 to Saturday 14 March


def test_overlapping_chunks_in_four_threads_create_every_occurrence_once() -> None:
    series = [make_series(name=f"s{n}") for n in range(12)]
    ids = [s.pk for s in series]
    chunks = [ids, ids[::-1], ids[3:], ids[:9]]

    errors = race([lambda c=c: generate_series_chunk_events(c, now=NOW) for c in chunks])  # type: ignore[misc]

    assert errors == []
    for item in series:
        slots = [e.recurrence_id for e in occurrences(item)]
        assert len(slots) == len(set(slots)) == 8
        item.refresh_from_db()
        assert item.last_occurrence_index == 8
