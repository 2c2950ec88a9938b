"""Enrolments in the API: who sees and changes which, and the ``enrolments/`` routes.

An enrolment books a user on every date of a series from a day on
(:mod:`revel_recurring.services.enrolments`). Who may do what follows the series:

- a user sees and changes their own enrolments in the series they may see
  (``get_visible_series``), and enrols themselves in any of them;
- an organiser (the series is in ``get_editable_series``) sees and changes every
  enrolment of the series, and enrols any user who may see it;
- anything else is a 404, as a series outside what the user may see; a site whose
  event model has no ``book_enrolled`` hook has no enrolment routes (404).

``enrolments/`` lists the requesting user's own enrolments across series; one
enrolment's routes (``enrolments/{id}/``, ``end/``, ``skip/``, ``take-back/``,
``dates/``) answer for the user and the organisers of its series. Creating one is
``POST series/{id}/enrolments/`` (``actions/enrolments.py``).
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Q, QuerySet
from django.utils.translation import gettext
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema_view
from rest_framework import exceptions, mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ErrorDetail
from rest_framework.parsers import JSONParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..adapter import get_adapter
from ..models import Enrolment, EnrolmentDate, EventSeries
from ..services.enrolments import end_enrolment, host_enrols, skip_date, take_back_date
from .bodies import ENROLMENT_BODIES
from .errors import RULE_ERROR_CODE, translate
from .fields import FORM_BODY
from .metadata import ActionMetadata
from .pagination import StrictPagination
from .schema import READ_ERRORS, error_responses, extend_schema
from .serializers.enrolments import (
    EnrolmentDateSerializer,
    EnrolmentEndResultSerializer,
    EnrolmentSerializer,
)


class EnrolmentPagination(StrictPagination):
    page_size = 50
    max_page_size = 500


def require_enrolments() -> None:
    """A 404 on a site whose event model books no enrolled users (no ``book_enrolled``)."""
    if not host_enrols():
        raise exceptions.NotFound(gettext("This site offers no enrolments."))


def user_key(user: Any) -> str:
    """A user's key as enrolments store it: the primary key as text."""
    return str(user.pk)


def visible_enrolments(user: Any) -> QuerySet[Enrolment]:
    """The enrolments ``user`` may see and change: their own in the series they may
    see, and every one of the series they organise (may edit)."""
    adapter = get_adapter()
    visible = adapter.get_visible_series(user).values("pk")
    editable = adapter.get_editable_series(user).values("pk")
    return Enrolment.objects.filter(series__in=visible).filter(
        Q(user_pk=user_key(user)) | Q(series__in=editable)
    )


def organises(user: Any, series: EventSeries) -> bool:
    """Whether ``user`` organises ``series`` (may edit it): they manage its enrolments."""
    return get_adapter().get_editable_series(user).filter(pk=series.pk).exists()


def _unknown_user() -> exceptions.ValidationError:
    return exceptions.ValidationError(
        {"user": [ErrorDetail(gettext("No user has this key."), code="does_not_exist")]}
    )


def enrolled_user(key: str, series: EventSeries) -> Any:
    """The user ``key`` names, who must be able to see ``series`` (a 400 on ``user`` if not)."""
    model = get_user_model()
    try:
        pk = model._meta.pk.to_python(key.strip())
    except DjangoValidationError:
        raise _unknown_user() from None
    user = model._default_manager.filter(pk=pk).first()
    if user is None:
        raise _unknown_user()
    if not get_adapter().get_visible_series(user).filter(pk=series.pk).exists():
        raise exceptions.ValidationError(
            {
                "user": [
                    ErrorDetail(
                        gettext("This user may not see this series, so cannot be enrolled."),
                        code=RULE_ERROR_CODE,
                    )
                ]
            }
        )
    return user


class EnrolmentPermission(BasePermission):
    """Signed-in users only; which enrolments they reach is the queryset's business."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        return bool(user and user.is_authenticated)


@extend_schema_view(
    list=extend_schema(
        summary="Your own enrolments, in every series you may see",
        responses={200: EnrolmentSerializer(many=True), **error_responses(400, 403, 404)},
    ),
    retrieve=extend_schema(
        summary="One enrolment: yours, or one of a series you organise",
        responses={200: EnrolmentSerializer, **READ_ERRORS},
    ),
)
class EnrolmentViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[Enrolment]
):
    """Enrolments: a user booked on every date of a series from a day on."""

    schema = AutoSchema()
    permission_classes = [EnrolmentPermission]
    parser_classes = [JSONParser]
    pagination_class = EnrolmentPagination
    metadata_class = ActionMetadata
    #: Each action's body (read by ``get_serializer_class``, ``handle_exception`` and OPTIONS).
    action_bodies = ENROLMENT_BODIES
    lookup_value_regex = "[^/]+"
    #: The request's body as the action's serializer validated it (``handle_exception``).
    validated_body: dict[str, Any] = {}

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        require_enrolments()

    def get_queryset(self) -> QuerySet[Enrolment]:
        user = self.request.user
        if getattr(self, "swagger_fake_view", False) or not user.is_authenticated:
            return Enrolment.objects.none()
        if self.action == "list":
            visible = get_adapter().get_visible_series(user).values("pk")
            mine = Enrolment.objects.filter(user_pk=user_key(user), series__in=visible)
            return mine.order_by("series_id", "pk")
        return visible_enrolments(user).order_by("pk")

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        body = ENROLMENT_BODIES.get(self.action or "")
        return body.serializer_class() if body is not None else EnrolmentSerializer

    def get_serializer_context(self) -> dict[str, Any]:
        # The browsable API's form of end/ holds a body that works as it stands ({}:
        # ended from today); skip/ and take-back/ leave the date for the person to name.
        context = dict(super().get_serializer_context())
        context[FORM_BODY] = lambda: {} if self.action == "end" else None
        return context

    def handle_exception(self, exc: Exception) -> Response:
        # As the series viewset: the only place a service error gets its status.
        body = ENROLMENT_BODIES.get(self.action or "")
        keys = body.keys if body is not None else None
        return super().handle_exception(translate(exc, keys=keys, body=self.validated_body))

    def _body(self) -> dict[str, Any]:
        serializer = self.get_serializer(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        self.validated_body = dict(serializer.validated_data)
        return dict(self.validated_body)

    @extend_schema(
        summary=(
            "End an enrolment after the day `on` (default: yesterday); the dates to come "
            "that it booked after that day are released"
        ),
        responses={200: EnrolmentEndResultSerializer, **ENROLMENT_BODIES["end"].responses()},
    )
    @action(detail=True, methods=["post"])
    def end(self, request: Request, pk: str | None = None) -> Response:
        """End the enrolment: `{"on"?: "YYYY-MM-DD"}`, the last day it books."""
        enrolment = self.get_object()
        body = self._body()
        result = end_enrolment(enrolment, on=body.get("on"))
        return Response(
            {
                "enrolment": EnrolmentSerializer(result.enrolment).data,
                "released": result.released,
            }
        )

    @extend_schema(
        summary="Skip one date: the site releases the booking on it; no later run books it again",
        responses={200: EnrolmentDateSerializer, **ENROLMENT_BODIES["skip"].responses()},
    )
    @action(detail=True, methods=["post"])
    def skip(self, request: Request, pk: str | None = None) -> Response:
        """Skip one date still to come: `{"occurrence": <the host event's id>}`."""
        enrolment = self.get_object()
        body = self._body()
        date = skip_date(enrolment, body["occurrence"])
        return Response(EnrolmentDateSerializer(date).data)

    @extend_schema(
        summary=(
            "Take a skipped date back while it is open and to come: booked again, or "
            "refused with the site's reason"
        ),
        responses={200: EnrolmentDateSerializer, **ENROLMENT_BODIES["take_back"].responses()},
    )
    @action(detail=True, methods=["post"], url_path="take-back")
    def take_back(self, request: Request, pk: str | None = None) -> Response:
        """Take back a skipped date: `{"occurrence": <the host event's id>}`."""
        enrolment = self.get_object()
        body = self._body()
        date = take_back_date(enrolment, body["occurrence"])
        return Response(EnrolmentDateSerializer(date).data)

    @extend_schema(
        summary=(
            "What became of each date for the enrolled user: booked, held (their own "
            "booking), skipped, refused (with the reason) or released"
        ),
        responses={200: EnrolmentDateSerializer(many=True), **error_responses(400, 403, 404)},
    )
    @action(detail=True, methods=["get"])
    def dates(self, request: Request, pk: str | None = None) -> Response:
        """The enrolled user's dates of the series, in start order."""
        enrolment = self.get_object()
        rows = EnrolmentDate.objects.filter(
            series_id=enrolment.series_id, user_pk=enrolment.user_pk
        ).order_by("starts_at", "pk")
        # Another model than the viewset's: the paginator pages any queryset.
        page: list[EnrolmentDate] | None = self.paginate_queryset(cast(Any, rows))
        assert page is not None
        return self.get_paginated_response(EnrolmentDateSerializer(page, many=True).data)


__all__ = [
    "EnrolmentPagination",
    "EnrolmentPermission",
    "EnrolmentViewSet",
    "enrolled_user",
    "organises",
    "require_enrolments",
    "user_key",
    "visible_enrolments",
]
