"""Dates beyond the window: ``materialize-date/`` makes one a row, so it can be booked.

The write is :func:`revel_recurring.services.beyond_window.materialize_date`
(docs/decisions/0063-dates-beyond-the-window.md); the dates are listed by
``occurrences/?beyond_window=true``.
"""

from __future__ import annotations

from rest_framework import status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...services.beyond_window import materialize_date
from ..bodies import ACTION_BODIES
from ..reads import occurrence_rows
from ..schema import extend_schema
from ..serializers.actions import MaterializeDateResultSerializer
from ..serializers.occurrences import OccurrenceSerializer
from .base import SeriesViewBase


class BeyondWindowActionsMixin(SeriesViewBase):
    """``materialize-date/``."""

    @extend_schema(
        summary=(
            "Materialize one date of the series now, however far beyond the window "
            "(to book it); idempotent"
        ),
        description=(
            "Under the series lock, exactly that date becomes a row built from the "
            "template as the daily pass builds every date (enrolled users booked on it); "
            "201 with the new row, 200 with the row that held it already. 400 keyed "
            "`start` for a date in the past, no date of the series, or an excluded or "
            "cancelled one; 409 for a paused series or one without a rule or template. "
            "The same permission as a PATCH. The window reaching the date later keeps "
            "this row."
        ),
        responses={
            200: MaterializeDateResultSerializer,
            201: MaterializeDateResultSerializer,
            **ACTION_BODIES["materialize_date"].responses(),
        },
    )
    @action(detail=True, methods=["post"], url_path="materialize-date")
    def materialize_date(self, request: Request, pk: str | None = None) -> Response:
        """Materialize one date: `{"start": "<aware ISO datetime>"}`."""
        series = self.get_object()
        body = self._body()
        result = materialize_date(series, body["start"])
        rows = occurrence_rows([result.occurrence], series=series)
        return Response(
            {
                "occurrence": OccurrenceSerializer(rows[0]).data,
                "created": result.created,
                "series": self._represent(series),
            },
            status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK,
        )
