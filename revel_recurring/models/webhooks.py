"""Outbound webhooks: the endpoints a site registers and one delivery per operation each.

A ``WebhookEndpoint`` is a URL that receives the operations of the kinds it asks
for (none named: every kind), within its scope (the adapter's organisation key;
empty: the whole site), signed with its secret. A ``WebhookDelivery`` is one
operation owed to one endpoint: its payload fixed when the operation was written,
its attempts and their outcome. Both are written in the operation's transaction.
"""

from __future__ import annotations

import base64
import secrets

from django.core.validators import URLValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .notices import SeriesOperation

#: The prefix of a Standard Webhooks secret; base64 of random bytes follows.
SECRET_PREFIX = "whsec_"


def new_webhook_secret() -> str:
    """A fresh signing secret: ``whsec_`` and 32 random bytes in base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


class WebhookEndpoint(models.Model):
    """A URL that receives one signed JSON payload per operation it subscribes to."""

    # Only http and https: the POST goes through an HTTP client.
    url = models.URLField(
        pgettext_lazy("model field", "URL"),
        max_length=500,
        validators=[URLValidator(schemes=["http", "https"])],
    )
    secret = models.CharField(
        pgettext_lazy("model field", "secret"), max_length=100, default=new_webhook_secret
    )
    # The operation kinds it receives ("cancel", "plan", ...); empty: every kind.
    kinds = models.JSONField(pgettext_lazy("model field", "kinds"), default=list, blank=True)
    # The adapter's organisation key (get_webhook_scope); "": the whole site.
    scope = models.CharField(
        pgettext_lazy("model field", "scope"), max_length=200, blank=True, default=""
    )
    active = models.BooleanField(pgettext_lazy("model field", "active"), default=True)
    description = models.CharField(
        pgettext_lazy("model field", "description"), max_length=200, blank=True, default=""
    )
    # The user's primary key as text (any key type; no foreign key to the host's user).
    created_by = models.CharField(
        pgettext_lazy("model field", "created by"), max_length=255, blank=True, default=""
    )
    created_at = models.DateTimeField(
        pgettext_lazy("model field", "created at"), default=timezone.now
    )

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")
        ordering = ("pk",)
        indexes = [models.Index(fields=["scope", "active"], name="revel_webhook_scope")]

    def __str__(self) -> str:
        return self.description or self.url

    def receives(self, kind: str) -> bool:
        """Whether an operation of ``kind`` is delivered here (no kinds named: all)."""
        return not self.kinds or kind in self.kinds


class WebhookDelivery(models.Model):
    """One operation owed to one endpoint: the payload as written, and how sending went."""

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("webhook delivery", "pending")
        DELIVERED = "delivered", pgettext_lazy("webhook delivery", "delivered")
        FAILED = "failed", pgettext_lazy("webhook delivery", "failed")

    endpoint = models.ForeignKey(
        WebhookEndpoint,
        on_delete=models.CASCADE,
        related_name="deliveries",
        verbose_name=pgettext_lazy("model field", "endpoint"),
    )
    operation = models.ForeignKey(
        SeriesOperation,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="webhook_deliveries",
        verbose_name=pgettext_lazy("model field", "operation"),
    )
    # The operation's id by value: the webhook-id header, kept when the record is purged.
    operation_ref = models.UUIDField(pgettext_lazy("model field", "operation id"))
    kind = models.CharField(pgettext_lazy("model field", "kind"), max_length=32)
    payload = models.JSONField(pgettext_lazy("model field", "payload"))
    status = models.CharField(
        pgettext_lazy("model field", "status"),
        max_length=16,
        choices=Status.choices,
        default=Status.PENDING,
    )
    attempts = models.PositiveIntegerField(pgettext_lazy("model field", "attempts"), default=0)
    last_status_code = models.PositiveIntegerField(
        pgettext_lazy("model field", "last status code"), null=True, blank=True
    )
    last_error = models.TextField(pgettext_lazy("model field", "last error"), blank=True)
    next_attempt_at = models.DateTimeField(
        pgettext_lazy("model field", "next attempt at"), null=True, blank=True
    )
    delivered_at = models.DateTimeField(
        pgettext_lazy("model field", "delivered at"), null=True, blank=True
    )
    created_at = models.DateTimeField(
        pgettext_lazy("model field", "created at"), default=timezone.now
    )

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ("-created_at", "-pk")
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "operation_ref"], name="revel_webhook_delivery_once"
            )
        ]
        indexes = [
            models.Index(fields=["endpoint", "created_at"], name="revel_webhook_log"),
            models.Index(fields=["status", "next_attempt_at"], name="revel_webhook_due"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.operation_ref} to {self.endpoint_id}"

    @property
    def webhook_id(self) -> str:
        """The ``webhook-id`` header: the operation's id, the receivers' idempotency key."""
        return str(self.operation_ref)
