"""A series' history: ``operations/``, ``operations/{operation_id}/`` and its ``rows/``.

Scoped like every route of the viewset: the series must be one the user may see
(a 404 otherwise), and an operation must be one of that series' (its own, or one
naming it through ``OperationSeries``: a split's continuation, the daily pass's
chunk). Each answer reads a fixed number of queries whatever the record's size:
the rows come page by page.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any
from urllib.parse import urlencode

from django.http import Http404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from ... import history
from ...models import OccurrenceChange, SeriesOperation
from ..filters import OperationFilter
from ..pagination import OperationPagination, OperationRowPagination
from ..schema import AWARE_DATETIME_INPUT, READ_ERRORS, error_responses, extend_schema
from ..serializers.history import (
    OperationDetailSerializer,
    OperationRowSerializer,
    OperationSerializer,
)
from .base import SeriesViewBase

_OPERATION_ID = OpenApiParameter(
    "operation_id", OpenApiTypes.UUID, OpenApiParameter.PATH, description="The operation's id."
)


class HistoryActionsMixin(SeriesViewBase):
    """``operations/``, ``operations/{operation_id}/`` and ``operations/{operation_id}/rows/``."""

    @extend_schema(
        summary="The series' history: its operations, newest first (filters: kind, since)",
        parameters=[
            OpenApiParameter("kind", OpenApiTypes.STR, description="Kind of operation."),
            OpenApiParameter("since", AWARE_DATETIME_INPUT, description="Done at or after."),
        ],
        responses={200: OperationSerializer(many=True), **error_responses(400, 403, 404)},
    )
    @action(detail=True, methods=["get"], pagination_class=OperationPagination)
    def operations(self, request: Request, pk: str | None = None) -> Response:
        """The operations on the series' dates, newest first: who, when, through what."""
        series = self.get_object()
        filterset = OperationFilter(
            request.query_params, queryset=history.series_operations(series.pk), request=request
        )
        if not filterset.is_valid():
            raise ValidationError(filterset.errors)
        page = self.paginate_queryset(filterset.qs)
        assert page is not None
        data = OperationSerializer(page, many=True, context=self._history_context(series)).data
        return self.get_paginated_response(data)

    @extend_schema(
        summary="One operation: kind, when, who, plan hash, rule before and after, counts",
        parameters=[_OPERATION_ID],
        responses={200: OperationDetailSerializer, **READ_ERRORS},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"operations/(?P<operation_id>[^/]+)",
        url_name="operation",
    )
    def operation(
        self, request: Request, pk: str | None = None, operation_id: str = ""
    ) -> Response:
        """One operation of the series, with links to its rows and to the change feed."""
        series = self.get_object()
        operation = self._operation(series.pk, operation_id)
        links, total = history.linked_series(operation.pk, first=series.pk)
        entries, first_entry = history.feed_entries(operation.pk)
        # The feed from the operation on: its first entry, should one be stamped earlier.
        start = min(filter(None, (operation.created_at, first_entry)))
        since = start.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
        feed = reverse("revel_recurring:series-occurrences", kwargs={"pk": series.pk})
        context = {
            **self._history_context(series),
            "counts": history.change_counts(operation.pk),
            "links": links,
            "links_total": total,
            "reverted_by": list(
                SeriesOperation.objects.filter(reverts_id=operation.pk)
                .order_by("created_at", "pk")
                .values_list("pk", flat=True)
            ),
            "feed_entries": entries,
            "feed_url": request.build_absolute_uri(
                f"{feed}?{urlencode({'modified_since': since})}"
            ),
        }
        return Response(OperationDetailSerializer(operation, context=context).data)

    @extend_schema(
        summary="The dates an operation touched, page by page: slot, start, status before/after",
        parameters=[_OPERATION_ID],
        responses={200: OperationRowSerializer(many=True), **error_responses(400, 403, 404)},
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"operations/(?P<operation_id>[^/]+)/rows",
        url_name="operation-rows",
        pagination_class=OperationRowPagination,
    )
    def operation_rows(
        self, request: Request, pk: str | None = None, operation_id: str = ""
    ) -> Response:
        """The rows of one operation in their recorded order, with people booked then."""
        series = self.get_object()
        operation = self._operation(series.pk, operation_id)
        rows: Any = history.operation_rows(operation.pk)
        page = self.paginate_queryset(rows)
        assert page is not None
        in_feed = frozenset(
            OccurrenceChange.objects.filter(
                operation_id=operation.pk, occurrence_pk__in=[row.occurrence_pk for row in page]
            )
            .order_by()
            .values_list("occurrence_pk", flat=True)
        )
        data = OperationRowSerializer(page, many=True, context={"in_feed": in_feed}).data
        return self.get_paginated_response(data)

    def _history_context(self, series: Any) -> dict[str, Any]:
        return {"request": self.request, "series_pk": series.pk}

    def _operation(self, series_pk: Any, operation_id: str) -> SeriesOperation:
        """The operation ``operation_id`` of the series, or a 404 (a malformed id too)."""
        return operation_of(series_pk, operation_id)


_UUID = re.compile(r"^\{?[0-9a-fA-F]{8}-?(?:[0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}\}?$")


def operation_of(series_pk: Any, operation_id: Any) -> SeriesOperation:
    """An operation the history of ``series_pk`` lists (its own, or one naming it: a
    split's continuation, a chunk), by id; a 404 for another series' or a malformed id."""
    text = str(operation_id)
    found = (
        history.series_operations(series_pk).filter(pk=uuid.UUID(text)).first()
        if _UUID.match(text)
        else None
    )
    if found is None:
        raise Http404
    return found
