"""Sending a delivery: retried with backoff then failed, resent as it was, never after a rollback.

The receiver is a real local HTTP server (tests/support/webhooks.py); the task runs
eagerly in this suite, its retries too (the worker's own tests are in
tests/default/worker/test_webhook_worker.py).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from revel_recurring.models import SeriesOperation, WebhookDelivery, WebhookEndpoint
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.toolbox.webhooks import queue_deliveries
from revel_recurring.services.webhooks import resend_webhook_deliveries, rotate_webhook_secret
from revel_recurring.webhook_sending import retry_delay, send_delivery
from tests.support.drift import drift_without_partners
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.people import BookPerson
from tests.support.webhooks import receiver

pytestmark = pytest.mark.django_db


#: The series made for a test has its own records (created, generated): the
#: endpoints of these tests receive the cancellations only.
CANCELS = ["cancel"]


def _cancel_booked(book_person: BookPerson, on_commit: Any) -> Any:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "anna@example.com")
    with on_commit(execute=True):
        cancel_occurrence(series, rows[2].starts_at, include_booked=True, now=NOW)
    return series


def test_a_refusing_receiver_is_retried_then_the_delivery_is_failed_with_its_error(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.REVEL_RECURRING_WEBHOOK_MAX_ATTEMPTS = 3
    with receiver(answers=[500, 503, 502]) as server:
        WebhookEndpoint.objects.create(url=server.url, kinds=CANCELS)
        _cancel_booked(book_person, django_capture_on_commit_callbacks)
        ids = {one.headers["webhook-id"] for one in server.received}
        bodies = {one.body for one in server.received}
    assert len(server.received) == 3
    delivery = WebhookDelivery.objects.get()
    # Every attempt is the same message: one id, one body.
    assert ids == {str(delivery.operation_ref)}
    assert len(bodies) == 1
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert delivery.attempts == 3
    assert delivery.last_status_code == 502
    assert delivery.last_error.startswith("HTTP 502")
    assert delivery.delivered_at is None


def test_a_receiver_that_recovers_gets_the_delivery_on_a_retry(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    with receiver(answers=[500]) as server:
        WebhookEndpoint.objects.create(url=server.url, kinds=CANCELS)
        _cancel_booked(book_person, django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    assert len(server.received) == 2
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert delivery.attempts == 2
    assert delivery.last_error == ""


def test_an_unreachable_endpoint_keeps_the_transport_error() -> None:
    with receiver() as server:
        url = server.url
    # The server is gone: the connection is refused.
    endpoint = WebhookEndpoint.objects.create(url=url)
    delivery = WebhookDelivery.objects.create(
        endpoint=endpoint,
        operation_ref="5a3a6c1e-0d8e-4a5e-9d0b-2b8f8f0a7e11",
        kind="cancel",
        payload={"type": "series.operation"},
    )
    assert send_delivery(delivery.pk, attempt=1) == "retry"
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert delivery.last_status_code is None
    assert "ConnectError" in delivery.last_error
    assert delivery.next_attempt_at is not None


def test_resend_delivers_the_same_payload_with_the_same_webhook_id(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    with receiver() as server:
        endpoint = WebhookEndpoint.objects.create(url=server.url, kinds=CANCELS)
        _cancel_booked(book_person, django_capture_on_commit_callbacks)
        rotate_webhook_secret(endpoint)
        with django_capture_on_commit_callbacks(execute=True):
            assert resend_webhook_deliveries([WebhookDelivery.objects.get().pk]) == 1
        first, second = server.received
        # Signed with the secret of the moment: the rotated one verifies the resend.
        server.verify(second, endpoint.secret)
    assert first.body == second.body
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert delivery.attempts == 2


def test_a_delivered_delivery_is_not_sent_again_by_a_repeated_task(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    with receiver() as server:
        WebhookEndpoint.objects.create(url=server.url, kinds=CANCELS)
        _cancel_booked(book_person, django_capture_on_commit_callbacks)
        delivery = WebhookDelivery.objects.get()
        assert send_delivery(delivery.pk, attempt=1) == "skipped"
    assert len(server.received) == 1


def test_a_rolled_back_change_writes_and_delivers_nothing(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "anna@example.com")
    with receiver() as server:
        WebhookEndpoint.objects.create(url=server.url, kinds=CANCELS)

        def cancel_then_fail() -> None:
            with transaction.atomic():
                cancel_occurrence(series, rows[2].starts_at, include_booked=True, now=NOW)
                assert WebhookDelivery.objects.count() == 1
                raise RuntimeError("the caller changes its mind")

        with (
            django_capture_on_commit_callbacks(execute=True) as callbacks,
            pytest.raises(RuntimeError),
        ):
            cancel_then_fail()
        assert server.received == []
    assert callbacks == []
    assert not WebhookDelivery.objects.exists()
    assert not SeriesOperation.objects.filter(kind="cancel").exists()


def test_endpoints_receive_only_their_kinds_and_inactive_ones_nothing(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    with receiver() as server:
        wanted = WebhookEndpoint.objects.create(url=server.url + "/a", kinds=["cancel", "plan"])
        WebhookEndpoint.objects.create(url=server.url + "/b", kinds=["split"])
        WebhookEndpoint.objects.create(url=server.url + "/c", active=False)
        every = WebhookEndpoint.objects.create(url=server.url + "/d")
        _cancel_booked(book_person, django_capture_on_commit_callbacks)
    assert sorted(one.path for one in server.received) == ["/hook/a", "/hook/d"]
    assert {d.endpoint for d in WebhookDelivery.objects.all()} == {wanted, every}


def test_the_payload_caps_its_rows_and_says_so(
    book_person: BookPerson, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.REVEL_RECURRING_WEBHOOK_MAX_ROWS = 1
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    drift_without_partners(series, keep=2, now=NOW)
    book_person(rows[2], "anna@example.com")
    WebhookEndpoint.objects.create(url="http://127.0.0.1:9/unused")
    with django_capture_on_commit_callbacks(execute=False):
        cancel_stale_occurrences(series, include_booked=True, now=NOW)
    data = WebhookDelivery.objects.get().payload["data"]
    assert data["row_count"] == len(rows) - 2
    assert len(data["rows"]) == 1
    assert data["rows_truncated"] is True


def test_retries_wait_twice_as_long_each_time_up_to_the_cap(settings: Any) -> None:
    settings.REVEL_RECURRING_WEBHOOK_RETRY_BACKOFF = 30
    settings.REVEL_RECURRING_WEBHOOK_RETRY_BACKOFF_MAX = 100
    assert [retry_delay(n) for n in range(4)] == [30, 60, 100, 100]


def test_the_daily_pass_queues_a_delivery_no_task_took(settings: Any) -> None:
    from revel_recurring.tasks import generate_all_series

    with receiver() as server:
        endpoint = WebhookEndpoint.objects.create(url=server.url)
        # Written two hours ago, its task never queued (the broker refused it).
        stalled = WebhookDelivery.objects.create(
            endpoint=endpoint,
            operation_ref="9d8a1f7e-2b0c-4c55-8e0f-7a3b1c2d3e4f",
            kind="cancel",
            payload={"type": "series.operation"},
            created_at=NOW - dt.timedelta(hours=2),
        )
        fresh = WebhookDelivery.objects.create(
            endpoint=endpoint,
            operation_ref="1d8a1f7e-2b0c-4c55-8e0f-7a3b1c2d3e4f",
            kind="cancel",
            payload={"type": "series.operation"},
            created_at=NOW - dt.timedelta(minutes=5),
        )
        generate_all_series(now=NOW.isoformat())
        ids = [one.headers["webhook-id"] for one in server.received]
    assert ids == [str(stalled.operation_ref)]
    stalled.refresh_from_db()
    fresh.refresh_from_db()
    assert stalled.status == WebhookDelivery.Status.DELIVERED
    assert fresh.status == WebhookDelivery.Status.PENDING


def test_an_operation_with_nobody_booked_is_delivered_too(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    with receiver() as server:
        WebhookEndpoint.objects.create(url=server.url)
        with django_capture_on_commit_callbacks(execute=True):
            cancel_occurrence(series, rows[2].starts_at, now=NOW)
        (request,) = server.received
    data = request.json()["data"]
    assert data["kind"] == "cancel"
    assert [row["pk"] for row in data["rows"]] == [str(rows[2].pk)]


def test_the_deliveries_of_an_operation_take_the_same_queries_for_one_endpoint_or_many(
    django_capture_on_commit_callbacks: Any,
) -> None:
    def queries_for(endpoints: int) -> int:
        WebhookEndpoint.objects.all().delete()
        for number in range(endpoints):
            WebhookEndpoint.objects.create(url=f"http://127.0.0.1:9/{number}")
        series = weekly_series(auto_publish=True, name=f"Class {endpoints}")
        drift_without_partners(series, keep=1, now=NOW)
        record = SeriesOperation.objects.create(
            kind="cancel_stale", series=series, series_name=series.name, notify="none"
        )
        with CaptureQueriesContext(connection) as queries:
            deliveries = queue_deliveries(record)
        assert len(deliveries) == endpoints
        return len(queries)

    assert queries_for(1) == queries_for(12)
    assert queries_for(1) <= 3
