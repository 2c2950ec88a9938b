"""Webhook endpoints and their deliveries as the API reads and writes them."""

from __future__ import annotations

from typing import Any

from django.core.validators import URLValidator
from django.utils.translation import gettext
from rest_framework import serializers

from ...models import WebhookDelivery, WebhookEndpoint
from ...records.kinds import KINDS


class KindField(serializers.CharField):
    """One operation kind (``cancel``, ``plan``, ...): a kind the history knows."""

    def to_internal_value(self, data: Any) -> str:
        value = str(super().to_internal_value(data))
        if value not in KINDS:
            raise serializers.ValidationError(
                gettext("Unknown operation kind %(kind)s; known kinds: %(known)s.")
                % {"kind": repr(value), "known": ", ".join(sorted(KINDS))}
            )
        return value


class WebhookEndpointSerializer(serializers.ModelSerializer[WebhookEndpoint]):
    """An endpoint: where operations of its kinds (none: every kind) are POSTed, signed."""

    url = serializers.URLField(
        max_length=500,
        validators=[URLValidator(schemes=["http", "https"])],
        help_text="Where the operations are POSTed (http or https).",
    )
    kinds = serializers.ListField(
        child=KindField(max_length=32),
        required=False,
        allow_empty=True,
        max_length=50,
        help_text="Operation kinds delivered here; empty: every kind.",
    )

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "kinds",
            "active",
            "description",
            "scope",
            "created_by",
            "created_at",
        ]
        read_only_fields = ["id", "scope", "created_by", "created_at"]

    def validate_kinds(self, value: list[str]) -> list[str]:
        return sorted(set(value))


class WebhookSecretSerializer(WebhookEndpointSerializer):
    """An endpoint with its signing secret: answered once, on creation and on rotation."""

    secret = serializers.CharField(
        read_only=True, help_text="The signing secret (whsec_...); shown only now."
    )

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]
        read_only_fields = [*WebhookEndpointSerializer.Meta.read_only_fields, "secret"]


class WebhookDeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    """One operation owed to one endpoint: its payload and how sending went."""

    # Text rather than an enum in the schema: a second enum on a field named
    # "status" would rename the host's own StatusEnum there.
    status = serializers.CharField(
        read_only=True, help_text="pending, delivered (accepted with a 2xx) or failed."
    )
    operation_id = serializers.UUIDField(
        source="operation_ref", read_only=True, help_text="Also the webhook-id header."
    )

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "endpoint",
            "operation_id",
            "kind",
            "status",
            "attempts",
            "last_status_code",
            "last_error",
            "next_attempt_at",
            "delivered_at",
            "created_at",
            "payload",
        ]
        read_only_fields = fields


class WebhookResendSerializer(serializers.Serializer[Any]):
    """What a resend answers: the delivery, pending again."""

    delivery = WebhookDeliverySerializer(read_only=True)
