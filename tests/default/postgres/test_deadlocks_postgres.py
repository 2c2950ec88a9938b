"""Host transactions racing the services on PostgreSQL: zero deadlocks (docs/locking.md).

The three patterns of issue 7, each a bounded free race of real threads:

1. a host transaction saves an occurrence, then deletes it;
2. a host transaction (like a view under ATOMIC_REQUESTS) saves an occurrence,
   then calls ``cancel_occurrence``;
3. ``filter(pk__in=[a, b]).delete()`` over two series' occurrences, in both orders.

Each races ``update_template``, ``cancel_occurrence`` and generation on the same
series. Every worker must finish without any error at all.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection, transaction

from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import delete_series
from revel_recurring.services.propagation import update_template
from tests.hosts.testapp.models import Event
from tests.support.concurrency import is_deadlock, race
from tests.support.factories import NOW, UTC, make_series, occurrences

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

ROUNDS = 5
Work = Callable[[], Any]


def _series(name: str, hour: int = 10) -> EventSeries:
    series = make_series(
        name=name, window_weeks=12, dtstart=dt.datetime(2026, 3, 2, hour, tzinfo=UTC)
    )
    generate_series_events(series, now=NOW, until=NOW + dt.timedelta(weeks=20))
    return series


def _services(series_id: int, cancel_at: dt.datetime, round_number: int) -> list[Work]:
    def propagate() -> None:
        update_template(
            EventSeries.objects.get(pk=series_id),
            {"venue": f"Hall {round_number}"},
            propagate="all_future",
            now=NOW,
        )

    def cancel() -> None:
        cancel_occurrence(EventSeries.objects.get(pk=series_id), cancel_at, now=NOW)

    def generate() -> None:
        generate_series_events(series_id, now=NOW)

    return [propagate, cancel, generate]


def _assert_no_errors(errors: list[BaseException]) -> None:
    deadlocks = [exc for exc in errors if is_deadlock(exc)]
    assert deadlocks == []
    assert errors == []


def test_host_save_then_delete_races_the_services_without_deadlock() -> None:
    for round_number in range(ROUNDS):
        series = _series(f"save-delete {round_number}")
        events = occurrences(series)

        def save_then_delete(pk: int) -> Work:
            def work() -> None:
                with transaction.atomic():
                    event = Event.objects.get(pk=pk)
                    event.venue = "Room 9"
                    event.save()
                    event.delete()

            return work

        workers = [save_then_delete(event.pk) for event in events[:3]]
        workers += _services(series.pk, events[5].starts_at, round_number)
        _assert_no_errors(race(workers))
        series.refresh_from_db()
        assert {e.recurrence_id for e in events[:3]} <= series.exdate_instants
        assert not Event.objects.filter(pk__in=[e.pk for e in events[:3]]).exists()


def test_host_deletes_race_delete_series_without_deadlock() -> None:
    for round_number in range(ROUNDS):
        series = _series(f"delete-series {round_number}")
        events = occurrences(series)

        def save_then_delete(pk: int) -> Work:
            def work() -> None:
                with transaction.atomic():
                    event = Event.objects.filter(pk=pk).first()
                    if event is not None:
                        event.save()
                        event.delete()

            return work

        def delete(series_id: int = series.pk) -> None:
            with contextlib.suppress(ObjectDoesNotExist):
                delete_series(EventSeries.objects.get(pk=series_id))

        workers = [save_then_delete(event.pk) for event in events[:4]]
        workers += [delete, *_services(series.pk, events[5].starts_at, round_number)]
        errors = race(workers)
        # Services that lost the race to delete_series find the series gone.
        _assert_no_errors([exc for exc in errors if not isinstance(exc, ObjectDoesNotExist)])
        assert not EventSeries.objects.filter(pk=series.pk).exists()
        assert not Event.objects.filter(series_id=series.pk).exists()


def test_host_transaction_saving_then_cancelling_races_the_services_without_deadlock() -> None:
    for round_number in range(ROUNDS):
        series = _series(f"atomic-view {round_number}")
        events = occurrences(series)

        def view(pk: int) -> Work:
            def work() -> None:
                with transaction.atomic():  # what ATOMIC_REQUESTS wraps a view in
                    event = Event.objects.get(pk=pk)
                    event.title = "Moved to the big hall"
                    event.save()
                    cancel_occurrence(
                        EventSeries.objects.get(pk=event.series_id), event.starts_at, now=NOW
                    )

            return work

        workers = [view(event.pk) for event in events[:3]]
        workers += _services(series.pk, events[0].starts_at, round_number)
        _assert_no_errors(race(workers))
        assert all(e.state == Event.RECURRING_STATUS_CANCELLED for e in occurrences(series)[:3])


def test_deleting_two_series_occurrences_in_both_orders_does_not_deadlock() -> None:
    for round_number in range(ROUNDS):
        first = _series(f"first {round_number}", hour=10)
        second = _series(f"second {round_number}", hour=11)
        a, b = occurrences(first), occurrences(second)
        # Meta.ordering is by start: (a[0], b[0]) reaches first's row first,
        # (b[1], a[2]) second's row first; the pairs alternate between the two.
        pairs = [
            (a[2 * k].pk, b[2 * k].pk) if k % 2 == 0 else (b[2 * k].pk, a[2 * k + 1].pk)
            for k in range(8)
        ]

        def delete(pks: tuple[int, int]) -> Work:
            def work() -> None:
                with transaction.atomic():
                    Event.objects.filter(pk__in=list(pks)).delete()

            return work

        workers = [delete(pair) for pair in pairs]
        workers += _services(first.pk, a[18].starts_at, round_number)[:2]
        workers += _services(second.pk, b[18].starts_at, round_number)[:2]
        _assert_no_errors(race(workers))
        deleted = {pk for pair in pairs for pk in pair}
        assert not Event.objects.filter(pk__in=deleted).exists()
        first.refresh_from_db()
        second.refresh_from_db()
        expected_first = {e.recurrence_id for e in a if e.pk in deleted}
        assert expected_first <= first.exdate_instants


def test_two_transactions_deleting_across_two_series_in_opposite_orders_both_commit() -> None:
    first, second = _series("first", hour=10), _series("second", hour=11)
    a, b = occurrences(first), occurrences(second)
    first_holds, second_holds = threading.Event(), threading.Event()

    def one() -> None:
        with transaction.atomic():
            Event.objects.filter(pk=a[0].pk).delete()
            first_holds.set()
            assert second_holds.wait(10)
            Event.objects.filter(pk=b[1].pk).delete()

    def other() -> None:
        assert first_holds.wait(10)
        with transaction.atomic():
            Event.objects.filter(pk=b[0].pk).delete()
            second_holds.set()
            Event.objects.filter(pk=a[1].pk).delete()

    _assert_no_errors(race([one, other]))
    first.refresh_from_db()
    second.refresh_from_db()
    assert {a[0].recurrence_id, a[1].recurrence_id} <= first.exdate_instants
    assert {b[0].recurrence_id, b[1].recurrence_id} <= second.exdate_instants
