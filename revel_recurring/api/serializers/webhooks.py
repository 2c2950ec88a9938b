"""Webhook endpoints and their deliveries as the API reads and writes them."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ...models import WebhookDelivery, WebhookEndpoint
from ...records.kinds import KINDS
from ..errors import RULE_ERROR_CODE
from ..fields import StrictFieldsMixin


class TextOnlyField(serializers.CharField):
    """Text, and only text: a number or a boolean is refused, not turned into text."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class TrueOrFalseField(serializers.BooleanField):
    """JSON's true or false, nothing else ("yes", 1 and "on" are refused)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class KindField(serializers.ChoiceField):
    """One operation kind (``cancel``, ``plan``, ...): a kind the history knows."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=list(KINDS.items()), **kwargs)


class WebhookEndpointSerializer(StrictFieldsMixin, serializers.ModelSerializer[WebhookEndpoint]):
    """An endpoint: where operations of its kinds (none: every kind) are POSTed, signed."""

    url = TextOnlyField(
        max_length=500, help_text=_("Where the operations are POSTed (http or https).")
    )
    description = TextOnlyField(max_length=200, required=False, allow_blank=True)
    active = TrueOrFalseField(required=False, help_text=_("An inactive endpoint receives nothing."))
    kinds = serializers.ListField(
        child=KindField(),
        required=False,
        allow_empty=True,
        max_length=50,
        help_text=_("Operation kinds delivered here; empty: every kind."),
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

    def validate_url(self, value: str) -> str:
        # A rule the schema cannot state (a host name's length, its labels...):
        # its own error code, as the series' rules have.
        try:
            URLValidator(schemes=["http", "https"])(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(
                gettext("Enter an http or https URL."), code=RULE_ERROR_CODE
            ) from exc
        return value

    def validate_kinds(self, value: list[str]) -> list[str]:
        return sorted(set(value))


class WebhookSecretSerializer(WebhookEndpointSerializer):
    """An endpoint with its signing secret: answered once, on creation and on rotation."""

    secret = serializers.CharField(
        read_only=True, help_text=_("The signing secret (`whsec_...`); shown only now.")
    )

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]
        read_only_fields = [*WebhookEndpointSerializer.Meta.read_only_fields, "secret"]


class WebhookDeliverySerializer(serializers.ModelSerializer[WebhookDelivery]):
    """One operation owed to one endpoint: its payload and how sending went."""

    # Text rather than an enum in the schema: a second enum on a field named
    # "status" would rename the host's own StatusEnum there.
    status = serializers.CharField(
        read_only=True, help_text=_("pending, delivered (accepted with a 2xx) or failed.")
    )
    operation_id = serializers.UUIDField(
        source="operation_ref", read_only=True, help_text=_("Also the webhook-id header.")
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
