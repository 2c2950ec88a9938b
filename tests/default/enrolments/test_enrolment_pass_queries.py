"""A chunk of the daily pass books enrolled users in statements that do not grow with its series.

Each series of the chunk gets one new date, two users are enrolled in every series:
the chunk books both on every new date (one host call) and leaves their messages
owed; after its commit, ``tell_untold`` writes one operation per series and one
message per user and series. The booking (``book_enrolled_rows``, the host's hook
included) and the telling each run as many statements for 30 series as for 3.
(The chunk's lock is one statement per series on SQLite and MariaDB, and the
testapp host copies its seats row by row: those are not the enrolments' and are
left out of the count.) The calendar copies behind the messages' SEQUENCEs are
read for exactly the (person, identity) pairs sent, in one statement.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.models import (
    CalendarCopy,
    Enrolment,
    EnrolmentDate,
    PersonNotice,
    SeriesOperation,
)
from revel_recurring.notices.records import Sequences
from revel_recurring.notices.rows import Identity
from revel_recurring.services.generation import floor
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.toolbox.enrolled import book_enrolled_rows, tell_untold
from revel_recurring.tasks import queue_untold_enrolments
from tests.support.factories import NOW, make_series

pytestmark = pytest.mark.django_db

WEEK = dt.timedelta(weeks=1)


def _chunk_with_enrolments(
    count: int, users: list[Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[int, int], list[int]]:
    """``count`` series generated to their horizon, ``users`` enrolled in each; then a
    week later one chunk of the pass: the statements of its booking, and the series' ids."""
    ids = [make_series(name=f"Class {count}-{n}", auto_publish=True).pk for n in range(count)]
    assert generate_series_chunk_events(ids, now=NOW).created == 8 * count
    Enrolment.objects.bulk_create(
        Enrolment(series_id=pk, user_pk=str(user.pk), starts_on=NOW.date())
        for pk in ids
        for user in users
    )
    counted: list[int] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        with CaptureQueriesContext(connection) as queries:
            batch = book_enrolled_rows(*args, **kwargs)
        counted.append(len(queries))
        return batch

    monkeypatch.setattr(floor, "book_enrolled_rows", counting)
    result = generate_series_chunk_events(ids, now=NOW + WEEK)
    assert (result.created, result.chunked, result.fallen_back) == (count, count, 0)
    (statements,) = counted  # one booking for the whole chunk
    assert not PersonNotice.objects.filter(operation__series_id__in=ids).exists()
    with CaptureQueriesContext(connection) as telling:
        assert tell_untold(ids, now=NOW + WEEK) == len(users) * count
    assert tell_untold(ids, now=NOW + WEEK) == 0, "a date is told once"
    return (statements, len(telling)), ids


def test_a_chunk_books_enrolled_users_in_as_many_statements_for_30_series_as_for_3(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    users = [
        get_user_model().objects.create_user(name, f"{name}@example.com", "pw")
        for name in ("ida", "jan")
    ]
    small, _ = _chunk_with_enrolments(3, users, monkeypatch)
    large, ids = _chunk_with_enrolments(30, users, monkeypatch)

    assert large == small, f"3 series: {small} statements, 30 series: {large}"
    # What the 30-series chunk wrote: both users booked on every new date, one
    # operation per series, one message per user and series, each with its one date.
    booked = EnrolmentDate.objects.filter(series_id__in=ids, state=EnrolmentDate.State.BOOKED)
    assert booked.count() == 2 * 30
    operations = SeriesOperation.objects.filter(series_id__in=ids, kind="enrolment")
    assert sorted(operations.values_list("series_id", flat=True)) == sorted(ids)
    notices = PersonNotice.objects.filter(operation__series_id__in=ids)
    assert notices.count() == 2 * 30
    assert {len(notice.payload["request"]) for notice in notices} == {1}
    assert {
        (notice.operation.series_id, notice.address)
        for notice in notices.select_related("operation")
    } == {(pk, user.email) for pk in ids for user in users}


def test_the_sequences_of_a_batch_are_read_for_exactly_its_person_and_identity_pairs() -> None:
    slot = dt.datetime(2026, 3, 9, 9, tzinfo=dt.UTC)
    first, second = Identity("series-1@x", slot), Identity("series-2@x", slot)
    CalendarCopy.objects.bulk_create(
        CalendarCopy(
            address=address,
            uid=identity.uid,
            recurrence_id=identity.recurrence_id,
            identity=identity.key,
            occurrence_pk="7",
            sequence=sequence,
        )
        for address, identity, sequence in (
            ("ida@example.com", first, 41),
            ("ida@example.com", second, 5),
            ("jan@example.com", first, 12),
        )
    )

    sequences = Sequences.of_pairs(
        [("ida@example.com", first), ("jan@example.com", second), ("jan@example.com", first)]
    )

    # Ida's copy of the second identity is not asked for; Jan holds no copy of it.
    assert sequences.sent == {
        ("ida@example.com", first.key): 41,
        ("jan@example.com", first.key): 12,
    }
    assert sequences.next("ida@example.com", first, 3) == 42
    assert sequences.next("jan@example.com", second, 3) == 3


def test_the_daily_pass_tells_what_a_chunk_left_owed_an_hour_on_and_once() -> None:
    # A chunk committed and its task never ran (a broker down, a worker lost): the
    # dates stay owed until the next daily pass queues their task again (eager here).
    user = get_user_model().objects.create_user("kai", "kai@example.com", "pw")
    ids = [make_series(name=f"Owed {n}", auto_publish=True).pk for n in range(2)]
    generate_series_chunk_events(ids, now=NOW)
    Enrolment.objects.bulk_create(
        Enrolment(series_id=pk, user_pk=str(user.pk), starts_on=NOW.date()) for pk in ids
    )
    generate_series_chunk_events(ids, now=NOW + WEEK)
    owed = EnrolmentDate.objects.filter(series_id__in=ids, told_at__isnull=True)
    assert owed.count() == 2

    # On the pass's clock: the dates were written when the chunk ran.
    owed.update(updated_at=NOW + WEEK)
    hour = dt.timedelta(hours=1)
    assert queue_untold_enrolments(now=NOW + WEEK + hour / 2) == 0, "not before an hour"
    assert queue_untold_enrolments(now=NOW + WEEK + 2 * hour) == 2

    assert not owed.exists()
    notices = PersonNotice.objects.filter(operation__series_id__in=ids, address="kai@example.com")
    assert notices.count() == 2
    assert queue_untold_enrolments(now=NOW + WEEK + 3 * hour) == 0
    assert notices.count() == 2
