"""Extra dates (RFC 5545 RDATE): ``add-date/`` and ``remove-date/``.

Every write goes through :mod:`revel_recurring.services.extra_dates`
(docs/decisions/0036-extra-dates.md).
"""

from __future__ import annotations

from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...services.extra_dates import add_extra_date, remove_extra_date
from ..schema import WRITE_ERRORS, extend_schema
from ..serializers.actions import OccurrenceActionResultSerializer
from ..serializers.series import SeriesSerializer
from .base import SeriesViewBase


class ExtraDateActionsMixin(SeriesViewBase):
    """``add-date/`` and ``remove-date/``."""

    @extend_schema(
        summary=(
            "Add an extra date (RFC 5545 RDATE) to the series; generated at once when it "
            "falls inside the window"
        ),
        description=(
            "The date must be aware, still to come, not before the rule's `dtstart` and "
            "not a date of the series already (400 keyed `instant`). The same permission "
            "as a PATCH. A series without a rule answers 409."
        ),
        responses={200: OccurrenceActionResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="add-date")
    def add_date(self, request: Request, pk: str | None = None) -> Response:
        """Add one extra date: `{"instant": "<aware ISO datetime>"}`."""
        series = self.get_object()
        body = self._body()
        event = add_extra_date(series, body["instant"])
        return self._occurrence_result(series, event)

    @extend_schema(
        summary=(
            "Remove an extra date; refused while an occurrence that takes place holds it "
            "(409 naming a booked one)"
        ),
        description=(
            "400 keyed `instant` when it is no extra date of the series, or when an "
            "occurrence without bookings still takes place on it (cancel or delete it "
            "first). A cancelled occurrence keeps its row."
        ),
        responses={200: SeriesSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="remove-date")
    def remove_date(self, request: Request, pk: str | None = None) -> Response:
        """Remove one extra date: `{"instant": "<aware ISO datetime>"}`."""
        series = self.get_object()
        body = self._body()
        remove_extra_date(series, body["instant"])
        return Response(self._represent(series))
