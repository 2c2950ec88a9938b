"""The series' template event: read it, change it, push changes onto its occurrences."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from ...services.propagation import update_template
from ..schema import READ_ERRORS, WRITE_ERRORS, extend_schema
from ..serializers.actions import PropagateQuerySerializer
from ..templates import template_serializer_class
from .base import SeriesViewBase


class TemplateActionMixin(SeriesViewBase):
    """``template/``: GET the template, PATCH it (``?propagate=`` reaches occurrences)."""

    @extend_schema(
        methods=["GET"],
        summary="The template event of the series",
        responses={200: template_serializer_class(), **READ_ERRORS},
    )
    @extend_schema(
        methods=["PATCH"],
        summary="Change the template; `propagate` pushes propagatable fields to occurrences",
        parameters=[
            OpenApiParameter(
                "propagate",
                OpenApiTypes.STR,
                enum=["none", "future_unmodified", "all_future"],
                description=(
                    "`none` (default): the template only. `future_unmodified`: also future "
                    "occurrences not edited on their own. `all_future`: every future one. "
                    "With a scope, every field must be propagatable."
                ),
            )
        ],
        responses={
            200: inline_serializer(
                "TemplateUpdateResult",
                {
                    "template": template_serializer_class()(),
                    "updated_occurrences": serializers.IntegerField(),
                },
            ),
            **WRITE_ERRORS,
        },
    )
    @action(detail=True, methods=["get", "patch"])
    def template(self, request: Request, pk: str | None = None) -> Response:
        """The template event; PATCH with `?propagate=` to reach occurrences."""
        series = self.get_object()
        template = series.get_template()
        if template is None:
            raise NotFound(gettext("Series %(id)s has no template.") % {"id": series.pk})
        if request.method == "GET":
            return Response(self.get_serializer(template).data)
        query = PropagateQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        scope = query.validated_data["propagate"]
        serializer = self.get_serializer(template, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        # update_template refuses non-propagatable fields itself (keyed by field).
        updated = update_template(series, dict(serializer.validated_data), propagate=scope)
        return Response(
            {
                "template": self.get_serializer(series.get_template()).data,
                "updated_occurrences": updated,
            }
        )
