"""Webhook endpoints' writes beyond one row's form: resending deliveries, a new secret.

Registering, changing and removing an endpoint is one row (the API's serializer,
the admin's form). What the deliveries owe is written with each operation
(:mod:`revel_recurring.services.toolbox.webhooks`); here are the verbs a person
asks for afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction

from ..models import WebhookDelivery, WebhookEndpoint
from ..models.webhooks import new_webhook_secret
from .toolbox.webhooks import announce_after_commit


def resend_webhook_deliveries(delivery_ids: Iterable[Any]) -> int:
    """Send the deliveries again: the same payload and ``webhook-id``, a fresh run of attempts.

    Each one is made pending (whatever its status) in one UPDATE; after commit
    their sending is queued. Returns how many were found.
    """
    ids = sorted(set(delivery_ids))
    with transaction.atomic():
        found = list(
            WebhookDelivery.objects.filter(pk__in=ids).order_by("pk").values_list("pk", flat=True)
        )
        WebhookDelivery.objects.filter(pk__in=found).update(
            status=WebhookDelivery.Status.PENDING, next_attempt_at=None, last_error=""
        )
        announce_after_commit(delivery_ids=found)
    return len(found)


def rotate_webhook_secret(endpoint: WebhookEndpoint) -> str:
    """Give ``endpoint`` a new signing secret and return it (shown once).

    Deliveries sent from now on are signed with it, retries of older ones too.
    """
    secret = new_webhook_secret()
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(secret=secret)
    endpoint.secret = secret
    return secret
