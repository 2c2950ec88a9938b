"""Sending one webhook delivery: claimed, signed, posted, its outcome logged on the row.

A delivery is sent under its row lock (``SELECT ... FOR UPDATE SKIP LOCKED``
where the database has it), so two workers never send it together: the second
finds it locked and leaves it. A delivered or failed one is never sent again
(a resend makes it pending first). The body is the payload fixed when the
operation was written, signed with the Standard Webhooks scheme
(``webhook-id``: the operation's id, the same on every attempt and resend;
``webhook-timestamp``; ``webhook-signature``: HMAC-SHA256 with the endpoint's
secret). A worker that dies after the endpoint answered and before the row was
updated leaves the delivery pending, and it is sent once more: receivers tell
the repeat by its ``webhook-id``.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

import httpx
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone
from standardwebhooks import Webhook

from .conf import recurring_settings
from .models import WebhookDelivery

logger = logging.getLogger(__name__)

#: What :func:`send_delivery` answers: sent now, the endpoint refused and a retry is due,
#: refused for the last time, not pending (sent, failed or gone), or another worker has it.
OUTCOMES = ("delivered", "retry", "failed", "skipped", "busy")


def payload_bytes(payload: Any) -> bytes:
    """The body sent for ``payload``: compact JSON in UTF-8, the same bytes every time."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def signed_headers(secret: str, webhook_id: str, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of ``body``, signed now with ``secret``."""
    moment = timezone.now()
    return {
        "content-type": "application/json",
        "user-agent": "revel-recurring-webhooks",
        "webhook-id": webhook_id,
        "webhook-timestamp": str(int(moment.timestamp())),
        "webhook-signature": Webhook(secret).sign(webhook_id, moment, body),
    }


def retry_delay(retries: int) -> int:
    """Seconds before the retry after ``retries`` earlier ones: doubling, capped."""
    delay = recurring_settings.WEBHOOK_RETRY_BACKOFF * 2 ** max(retries, 0)
    return int(min(delay, recurring_settings.WEBHOOK_RETRY_BACKOFF_MAX))


def _post(delivery: WebhookDelivery) -> tuple[int | None, str]:
    """POST the delivery; its status code and an error text ("" when it was accepted)."""
    body = payload_bytes(delivery.payload)
    headers = signed_headers(delivery.endpoint.secret, delivery.webhook_id, body)
    try:
        response = httpx.post(
            delivery.endpoint.url,
            content=body,
            headers=headers,
            timeout=recurring_settings.WEBHOOK_TIMEOUT,
            follow_redirects=False,
        )
    # Every transport error (refused, reset, timed out, bad URL): the attempt failed.
    except httpx.HTTPError as exc:
        return None, f"{type(exc).__name__}: {exc}"[:2000]
    if 200 <= response.status_code < 300:
        return response.status_code, ""
    return response.status_code, f"HTTP {response.status_code}: {response.text[:500]}"


def _claim(delivery_id: Any) -> WebhookDelivery | None:
    """The delivery under its row lock (skipped when another worker holds it); alone,
    since MariaDB cannot lock one table of a join (``FOR UPDATE OF``)."""
    rows = WebhookDelivery.objects.filter(pk=delivery_id)
    if connection.features.has_select_for_update_skip_locked:
        rows = rows.select_for_update(skip_locked=True)
    else:
        rows = rows.select_for_update()
    return rows.first()


def send_delivery(delivery_id: Any, *, attempt: int) -> str:
    """Send one pending delivery once; ``attempt`` is this task's attempt (1 for the first).

    Returns one of :data:`OUTCOMES`. The attempt is counted on the row with its
    status code and error; at ``REVEL_RECURRING_WEBHOOK_MAX_ATTEMPTS`` a refused
    delivery is marked failed, before it ``next_attempt_at`` says when the retry is due.
    """
    with transaction.atomic():
        delivery = _claim(delivery_id)
        if delivery is None:
            exists = WebhookDelivery.objects.filter(pk=delivery_id).exists()
            return "busy" if exists else "skipped"
        if delivery.status != WebhookDelivery.Status.PENDING:
            return "skipped"
        code, error = _post(delivery)
        now = timezone.now()
        fields: dict[str, Any] = {
            "attempts": delivery.attempts + 1,
            "last_status_code": code,
            "last_error": error,
            "next_attempt_at": None,
        }
        if not error:
            outcome = "delivered"
            fields.update(status=WebhookDelivery.Status.DELIVERED, delivered_at=now)
        elif attempt >= recurring_settings.WEBHOOK_MAX_ATTEMPTS:
            outcome = "failed"
            fields.update(status=WebhookDelivery.Status.FAILED)
        else:
            outcome = "retry"
            fields.update(next_attempt_at=now + dt.timedelta(seconds=retry_delay(attempt - 1)))
        if error:
            logger.warning(
                "revel_recurring webhook delivery %s (attempt %s): %s", delivery_id, attempt, error
            )
        WebhookDelivery.objects.filter(pk=delivery_id).update(**fields)
        return outcome


#: Deliveries the daily pass queues again at most, per pass.
STALLED_PER_PASS = 1000


def stalled_deliveries(*, older_than: dt.timedelta, now: dt.datetime) -> list[Any]:
    """Pending deliveries no task seems to hold: never tried ``older_than`` after they
    were written, or a retry overdue by as much (a broker that refused the task, a
    lost message). At most :data:`STALLED_PER_PASS`, oldest first."""
    cutoff = now - older_than
    return list(
        WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING)
        .filter(
            Q(next_attempt_at__isnull=True, created_at__lte=cutoff) | Q(next_attempt_at__lte=cutoff)
        )
        .order_by("created_at", "pk")
        .values_list("pk", flat=True)[:STALLED_PER_PASS]
    )
