"""Webhook endpoints in the API: ``webhooks/`` and ``webhook-deliveries/``.

Who reaches which endpoint is the adapter's ``get_webhook_scope(user)``: a user
with a scope sees and registers the endpoints of that scope (``""``, the whole
site, sees them all); one without (None) is refused (403); another scope's
endpoint, and its deliveries, are a 404. The secret is answered once, when the
endpoint is created and when it is rotated (``rotate-secret/``).
``webhooks/{id}/deliveries/`` is an endpoint's delivery log, newest first;
``webhook-deliveries/{id}/resend/`` sends one again, with the same payload and
``webhook-id``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..adapter import get_adapter
from ..models import WebhookDelivery, WebhookEndpoint
from ..services.webhooks import resend_webhook_deliveries, rotate_webhook_secret
from .errors import translate
from .pagination import StrictPagination
from .schema import READ_ERRORS, error_responses, extend_schema
from .serializers.webhooks import (
    WebhookDeliverySerializer,
    WebhookEndpointSerializer,
    WebhookSecretSerializer,
)


class WebhookPagination(StrictPagination):
    page_size = 50
    max_page_size = 500


def webhook_scope(user: Any) -> str | None:
    """The scope ``user`` manages webhooks for; None: none."""
    if not (user and user.is_authenticated):
        return None
    return get_adapter().get_webhook_scope(user)


def endpoints_of(user: Any) -> QuerySet[WebhookEndpoint]:
    """The endpoints ``user`` may see and change: their scope's (every one for ``""``)."""
    scope = webhook_scope(user)
    if scope is None:
        return WebhookEndpoint.objects.none()
    if scope == "":
        return WebhookEndpoint.objects.all()
    return WebhookEndpoint.objects.filter(scope=scope)


class WebhookPermission(BasePermission):
    """Signed-in users with a webhook scope (the adapter's ``get_webhook_scope``)."""

    message: Any = gettext_lazy("You may not manage webhooks.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        return webhook_scope(request.user) is not None


class _WebhookViewBase(viewsets.GenericViewSet[Any]):
    schema = AutoSchema()
    permission_classes = [WebhookPermission]
    parser_classes = [JSONParser]
    pagination_class = WebhookPagination
    lookup_value_regex = "[^/]+"

    def handle_exception(self, exc: Exception) -> Response:
        # As the series viewset: a database or service error gets its status here.
        return super().handle_exception(translate(exc))


@extend_schema_view(
    list=extend_schema(
        summary="The webhook endpoints you manage",
        responses={200: WebhookEndpointSerializer(many=True), **error_responses(400, 403, 404)},
    ),
    retrieve=extend_schema(
        summary="One webhook endpoint", responses={200: WebhookEndpointSerializer, **READ_ERRORS}
    ),
    create=extend_schema(
        summary="Register a webhook endpoint; the answer holds its secret, shown only then",
        responses={201: WebhookSecretSerializer, **error_responses(400, 403, 415)},
    ),
    update=extend_schema(
        summary="Change a webhook endpoint",
        responses={200: WebhookEndpointSerializer, **error_responses(400, 403, 404, 415)},
    ),
    partial_update=extend_schema(
        summary="Change some fields of a webhook endpoint",
        responses={200: WebhookEndpointSerializer, **error_responses(400, 403, 404, 415)},
    ),
    destroy=extend_schema(
        summary="Remove a webhook endpoint and its delivery log",
        responses={204: None, **READ_ERRORS},
    ),
)
class WebhookEndpointViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    mixins.ListModelMixin,
    _WebhookViewBase,
):
    """Webhook endpoints: a URL that receives one signed JSON payload per operation."""

    def get_queryset(self) -> QuerySet[WebhookEndpoint]:
        if getattr(self, "swagger_fake_view", False):
            return WebhookEndpoint.objects.none()
        return endpoints_of(self.request.user).order_by("pk")

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        if self.action == "create":
            return WebhookSecretSerializer
        if self.action == "deliveries":
            return WebhookDeliverySerializer
        if self.action == "rotate_secret":
            return WebhookSecretSerializer
        return WebhookEndpointSerializer

    def perform_create(self, serializer: serializers.BaseSerializer[Any]) -> None:
        user = self.request.user
        serializer.save(scope=webhook_scope(user) or "", created_by=str(user.pk))

    @extend_schema(
        summary="An endpoint's delivery log, newest first",
        responses={200: WebhookDeliverySerializer(many=True), **error_responses(400, 403, 404)},
    )
    @action(detail=True, methods=["get"])
    def deliveries(self, request: Request, pk: str | None = None) -> Response:
        """The deliveries of this endpoint, newest first, page by page."""
        endpoint = self.get_object()
        rows = WebhookDelivery.objects.filter(endpoint=endpoint).order_by("-created_at", "-pk")
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(WebhookDeliverySerializer(page, many=True).data)

    @extend_schema(
        summary="Give the endpoint a new secret; the answer holds it, shown only then",
        request=None,
        responses={200: WebhookSecretSerializer, **READ_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request: Request, pk: str | None = None) -> Response:
        """A new signing secret for this endpoint; the old one stops at once."""
        endpoint = self.get_object()
        rotate_webhook_secret(endpoint)
        return Response(WebhookSecretSerializer(endpoint).data)


@extend_schema_view(
    retrieve=extend_schema(
        summary="One webhook delivery", responses={200: WebhookDeliverySerializer, **READ_ERRORS}
    ),
)
class WebhookDeliveryViewSet(mixins.RetrieveModelMixin, _WebhookViewBase):
    """Deliveries of the endpoints you manage: read one, send it again."""

    serializer_class = WebhookDeliverySerializer

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        if getattr(self, "swagger_fake_view", False):
            return WebhookDelivery.objects.none()
        endpoints = endpoints_of(self.request.user).values("pk")
        return WebhookDelivery.objects.filter(endpoint__in=endpoints).order_by("pk")

    @extend_schema(
        summary="Send a delivery again: the same payload and webhook-id, a fresh attempt",
        request=None,
        responses={202: WebhookDeliverySerializer, **READ_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def resend(self, request: Request, pk: str | None = None) -> Response:
        """Queue this delivery again (whatever its status); answers it, pending."""
        delivery = self.get_object()
        resend_webhook_deliveries([delivery.pk])
        delivery.refresh_from_db()
        return Response(WebhookDeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)
