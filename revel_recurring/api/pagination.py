"""Page-number pagination that refuses a page size it cannot read."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request


class StrictPagination(PageNumberPagination):
    """``page_size`` must be a whole number of at least 1 (capped at the maximum).

    DRF falls back to the default size for a page_size it cannot read; a client
    asking for ``page_size=abc`` gets a 400 naming it instead.
    """

    page_size_query_param = "page_size"

    def get_page_size(self, request: Request) -> int | None:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is not None:
            try:
                size = int(raw)
            except ValueError:
                size = 0
            if size < 1:
                raise ValidationError({"page_size": ["Give a whole number of at least 1."]})
        return super().get_page_size(request)


class SeriesPagination(StrictPagination):
    page_size = 20
    max_page_size = 100


class OccurrencePagination(StrictPagination):
    page_size = 50
    max_page_size = 500
