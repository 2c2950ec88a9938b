"""A change that rolls back tells nobody: no notice written, no message queued.

The operation writes its notices inside the change's transaction and queues the
messages with ``on_commit``; a host that wraps the change in its own transaction
and then fails takes all of it back. On SQLite and, in the PostgreSQL pass, on
PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.db import transaction

from revel_recurring.models import CalendarCopy, PersonNotice, SeriesOperation
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.signals import series_dates_changed
from tests.support.drift import drift_without_partners
from tests.support.factories import NOW, captured, occurrences, weekly_series
from tests.support.people import BookPerson

pytestmark = pytest.mark.django_db


class HostFailure(Exception):
    """What the host's own code raises after the change, inside its transaction."""


def test_a_cancel_rolled_back_by_the_hosts_transaction_writes_and_queues_nothing(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "alice@example.com", name="Alice", language="de")
    book_person(rows[2], "bob@example.com")

    def change_then_fail() -> None:
        with transaction.atomic():
            cancel_occurrence(series, rows[2].starts_at, include_booked=True, notify="all", now=NOW)
            # Inside the transaction the notices exist: the rollback is what removes them.
            assert PersonNotice.objects.count() == 2
            raise HostFailure

    with (
        captured(series_dates_changed) as signals,
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(HostFailure),
    ):
        change_then_fail()

    assert callbacks == []
    assert signals == []
    assert mail.outbox == []
    assert PersonNotice.objects.count() == 0
    assert not SeriesOperation.objects.filter(kind="cancel").exists()
    assert CalendarCopy.objects.count() == 0


def test_the_same_cancel_committed_sends_each_person_one_message(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    # The control: with the commit the same change writes, queues and sends.
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "alice@example.com", name="Alice", language="de")
    book_person(rows[2], "bob@example.com")

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        cancel_occurrence(series, rows[2].starts_at, include_booked=True, notify="all", now=NOW)

    assert sorted(m.to[0] for m in mail.outbox) == ["Alice <alice@example.com>", "bob@example.com"]
    assert PersonNotice.objects.filter(sent_at__isnull=False).count() == 2


def test_a_cancel_stale_rolled_back_by_a_savepoint_leaves_no_trace(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    # The host's outer transaction commits; only the savepoint around the change rolls back.
    series = weekly_series(auto_publish=True)
    drifted = drift_without_partners(series, keep=3, now=NOW)
    for row in drifted[:3]:
        book_person(row, "carol@example.com", language="en", timezone="America/New_York")
    records = SeriesOperation.objects.count()  # the history of the drift made above

    def change_then_fail() -> None:
        with transaction.atomic():
            cancel_stale_occurrences(series, include_booked=True, notify="all", now=NOW)
            assert PersonNotice.objects.count() == 1
            raise HostFailure

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        transaction.atomic(),
        pytest.raises(HostFailure),
    ):
        change_then_fail()

    assert callbacks == []
    assert mail.outbox == []
    assert PersonNotice.objects.count() == 0
    assert SeriesOperation.objects.count() == records
