"""People's messages on a real worker (Redis, PostgreSQL) whose process dies while sending.

The worker runs Celery's default pool (prefork, one child). The host's delivery
(tests/support/crash_delivery.py) ends the child process once, before the mail
server saw bob's message or right after it accepted it, as a kill or the
out-of-memory killer would. The task is acknowledged late and rejected back to
the queue when its worker is lost (``acks_late``, ``reject_on_worker_lost``), so
a new child runs it again. Before the send nobody gets a message twice; after it
bob gets one duplicate at most, with the same Message-ID, so his mail client can
tell.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from django.db import transaction

from revel_recurring.models import PersonNotice
from revel_recurring.notices.compose import message_id
from revel_recurring.services.cancellation import cancel_occurrence
from tests.default.worker.test_worker import WORKER_MARKS
from tests.support.crash_delivery import CRASH_STATUS
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.people import BookPerson
from tests.support.smtp import MailServer, mail_server
from tests.support.worker_process import sending_through, wait_until, worker_process

pytestmark = WORKER_MARKS

PEOPLE = ["alice@example.com", "bob@example.com", "carol@example.com"]


def _crash_once_at(monkeypatch: Any, tmp_path: Path, server: MailServer, spec: str) -> Path:
    marker = tmp_path / "crashed"
    monkeypatch.setenv(
        "REVEL_TEST_PEOPLE_DELIVERY", "tests.support.crash_delivery.deliver_crashing_once"
    )
    monkeypatch.setenv("REVEL_TEST_SMTP_PORT", str(server.port))
    monkeypatch.setenv("REVEL_TEST_CRASH", spec)
    monkeypatch.setenv("REVEL_TEST_CRASH_MARKER", str(marker))
    return marker


def _run_until_crash_and_again(tmp_path: Path, book_person: BookPerson) -> None:
    """Cancel a date with PEOPLE on it; the worker's child dies once, the task runs again."""
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    for address in PEOPLE:
        book_person(rows[2], address)
    log = tmp_path / "worker.log"
    with worker_process(log, pool="prefork") as (client, worker):
        with sending_through(client), transaction.atomic():
            cancel_occurrence(series, rows[2].starts_at, include_booked=True, now=NOW)
        done = wait_until(
            lambda: not PersonNotice.objects.filter(sent_at__isnull=True).exists(), seconds=60
        )
        assert done, log.read_text()
        assert worker.poll() is None  # the main process replaced its child
    text = log.read_text()
    assert f"exited with 'exitcode {CRASH_STATUS}'" in text, text
    assert "WorkerLostError" in text, text


def test_a_worker_dying_before_the_send_leaves_each_person_exactly_one_message(
    tmp_path: Path, monkeypatch: Any, book_person: BookPerson
) -> None:
    with mail_server() as server:
        marker = _crash_once_at(monkeypatch, tmp_path, server, "before:bob@example.com")
        _run_until_crash_and_again(tmp_path, book_person)

    assert marker.read_text().startswith("before ")
    assert Counter(one.recipients[0] for one in server.received) == dict.fromkeys(PEOPLE, 1)
    notices = list(PersonNotice.objects.order_by("address"))
    assert sorted(server.message_ids()) == sorted(message_id(n) for n in notices)
    # Bob's first attempt died with its transaction: nothing of it was counted.
    assert [n.attempts for n in notices] == [1, 1, 1]


def test_a_worker_dying_after_the_server_accepted_repeats_that_one_message_with_its_id(
    tmp_path: Path, monkeypatch: Any, book_person: BookPerson
) -> None:
    with mail_server() as server:
        marker = _crash_once_at(monkeypatch, tmp_path, server, "after:bob@example.com")
        _run_until_crash_and_again(tmp_path, book_person)

    assert marker.read_text().startswith("after ")
    assert Counter(one.recipients[0] for one in server.received) == {
        "alice@example.com": 1,
        "bob@example.com": 2,
        "carol@example.com": 1,
    }
    bob = PersonNotice.objects.get(address="bob@example.com")
    ids = server.message_ids()
    # The duplicate is recognisable: the same Message-ID as the copy that got through.
    assert [one for one in ids if ids.count(one) > 1] == [message_id(bob)] * 2
    assert len(set(ids)) == 3
    assert bob.sent_at is not None
