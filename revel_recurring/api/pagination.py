"""Page-number pagination that refuses a page size it cannot read."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request


class StrictPagination(PageNumberPagination):
    """``page_size`` must be a whole number of at least 1 (capped at the maximum), or empty.

    DRF falls back to the default size for a page_size it cannot read; a client
    asking for ``page_size=abc`` gets a 400 naming it instead.
    """

    page_size_query_param = "page_size"

    def get_page_size(self, request: Request) -> int | None:
        raw = request.query_params.get(self.page_size_query_param)
        # Empty means not given, as for every optional query parameter of the API
        # (the browsable API's forms send empty fields; DRF reads page= the same way).
        if raw:
            try:
                size = int(raw)
            except ValueError:
                size = 0
            if size < 1:
                raise ValidationError(
                    {"page_size": [gettext("Give a whole number of at least 1.")]}
                )
        return super().get_page_size(request)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        # The schema states what get_page_size and DRF's paginator refuse: a page or
        # a page size below 1 (a size above the maximum is capped, not refused).
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["schema"].get("type") == "integer":
                parameter["schema"]["minimum"] = 1
        return parameters


class SeriesPagination(StrictPagination):
    page_size = 20
    max_page_size = 100


class OccurrencePagination(StrictPagination):
    page_size = 50
    max_page_size = 500


class OperationPagination(StrictPagination):
    """A series' operations, newest first."""

    page_size = 20
    max_page_size = 100


class OperationRowPagination(StrictPagination):
    """One operation's rows: a 10,000-row record is read page by page."""

    page_size = 100
    max_page_size = 500
