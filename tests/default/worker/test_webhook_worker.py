"""Webhooks sent by a real Celery worker (Redis; PostgreSQL or MariaDB) to a real receiver.

The receiver is an HTTP server in this test process (tests/support/webhooks.py); the
worker is another process that reaches it over the loopback. Its retries wait no
time here (``REVEL_TEST_WEBHOOK_BACKOFF=0``). The crash tests run Celery's default
pool (prefork, one child) and end the child once around the POST
(tests/support/crash_webhook.py): the task is acknowledged late and rejected back
to the queue when its worker is lost, so a new child runs it again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction

from revel_recurring.models import WebhookDelivery, WebhookEndpoint
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.webhooks import resend_webhook_deliveries
from tests.support.crash_webhook import CRASH_STATUS
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.people import BookPerson
from tests.support.webhooks import receiver
from tests.support.worker_process import (
    SERVER_WORKER_MARKS,
    sending_through,
    wait_until,
    worker_process,
)

pytestmark = SERVER_WORKER_MARKS


def _settled() -> bool:
    return not WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING).exists()


def _booked_series(book_person: BookPerson) -> tuple[Any, Any]:
    """A series with a person on its third date; made before any endpoint exists, so
    its creation (an operation too) is delivered nowhere."""
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "anna@example.com")
    return series, rows[2]


def _cancel(series: Any, row: Any) -> None:
    with transaction.atomic():
        cancel_occurrence(series, row.starts_at, include_booked=True, now=NOW)


def _run(tmp_path: Path, dated: tuple[Any, Any], pool: str = "solo") -> str:
    log = tmp_path / "worker.log"
    with worker_process(log, pool=pool) as (client, worker):
        with sending_through(client):
            _cancel(*dated)
        assert wait_until(_settled, seconds=60), log.read_text()
        assert worker.poll() is None
    return log.read_text()


def test_a_worker_delivers_an_operation_once_signed(
    tmp_path: Path, monkeypatch: Any, book_person: BookPerson
) -> None:
    monkeypatch.setenv("REVEL_TEST_WEBHOOK_BACKOFF", "0")
    dated = _booked_series(book_person)
    with receiver() as server:
        endpoint = WebhookEndpoint.objects.create(url=server.url)
        _run(tmp_path, dated)
        assert len(server.received) == 1
        payload = server.verify(server.received[0], endpoint.secret)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert payload == delivery.payload
    assert server.received[0].headers["webhook-id"] == str(delivery.operation_ref)


def test_a_failing_receiver_is_retried_by_the_worker_then_failed_and_resent(
    tmp_path: Path, monkeypatch: Any, book_person: BookPerson
) -> None:
    monkeypatch.setenv("REVEL_TEST_WEBHOOK_BACKOFF", "0")
    monkeypatch.setenv("REVEL_TEST_WEBHOOK_ATTEMPTS", "3")
    log = tmp_path / "worker.log"
    dated = _booked_series(book_person)
    with receiver(answers=[500, 500, 500]) as server:
        WebhookEndpoint.objects.create(url=server.url)
        with worker_process(log) as (client, _), sending_through(client):
            _cancel(*dated)
            assert wait_until(_settled, seconds=60), log.read_text()
            delivery = WebhookDelivery.objects.get()
            assert delivery.status == WebhookDelivery.Status.FAILED, log.read_text()
            assert delivery.attempts == 3
            assert delivery.last_status_code == 500
            resend_webhook_deliveries([delivery.pk])
            assert wait_until(_settled, seconds=60), log.read_text()
        received = list(server.received)
    assert len(received) == 4
    assert len({one.body for one in received}) == 1
    assert {one.headers["webhook-id"] for one in received} == {str(delivery.operation_ref)}
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert delivery.attempts == 4


def test_a_worker_dying_before_the_post_delivers_once_on_the_next_run(
    tmp_path: Path, monkeypatch: Any, book_person: BookPerson
) -> None:
    marker = tmp_path / "crashed"
    monkeypatch.setenv("REVEL_TEST_WEBHOOK_CRASH", "before")
    monkeypatch.setenv("REVEL_TEST_CRASH_MARKER", str(marker))
    dated = _booked_series(book_person)
    with receiver() as server:
        WebhookEndpoint.objects.create(url=server.url)
        text = _run(tmp_path, dated, pool="prefork")
        received = list(server.received)
    assert marker.exists()
    assert f"exited with 'exitcode {CRASH_STATUS}'" in text, text
    assert len(received) == 1
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    # The attempt that died was never written: its transaction went with the worker.
    assert delivery.attempts == 1


def test_a_worker_dying_after_the_answer_repeats_that_one_delivery_with_its_id(
    tmp_path: Path, monkeypatch: Any, book_person: BookPerson
) -> None:
    marker = tmp_path / "crashed"
    monkeypatch.setenv("REVEL_TEST_WEBHOOK_CRASH", "after")
    monkeypatch.setenv("REVEL_TEST_CRASH_MARKER", str(marker))
    dated = _booked_series(book_person)
    with receiver() as server:
        WebhookEndpoint.objects.create(url=server.url)
        text = _run(tmp_path, dated, pool="prefork")
        received = list(server.received)
    assert f"exited with 'exitcode {CRASH_STATUS}'" in text, text
    delivery = WebhookDelivery.objects.get()
    # The documented repeat: twice, the same body under the same webhook-id.
    assert len(received) == 2
    assert received[0].body == received[1].body
    assert {one.headers["webhook-id"] for one in received} == {str(delivery.operation_ref)}
    assert delivery.status == WebhookDelivery.Status.DELIVERED
