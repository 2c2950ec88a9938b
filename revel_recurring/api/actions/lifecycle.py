"""Pause, resume and generate: the actions that switch or run a series' generation."""

from __future__ import annotations

from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...exceptions import SeriesNotReadyError
from ...services.generation import generate_series_events, generation_readiness
from ...services.lifecycle import pause_series, resume_series
from ..reads import occurrence_rows
from ..schema import WRITE_ERRORS, error_responses, extend_schema
from ..serializers.actions import GenerateResultSerializer
from ..serializers.occurrences import occurrence_data
from ..serializers.series import SeriesSerializer
from .base import SeriesViewBase


class LifecycleActionsMixin(SeriesViewBase):
    """``pause/``, ``resume/`` and ``generate/``."""

    @extend_schema(
        summary="Stop generating occurrences (idempotent)",
        request=None,
        responses={200: SeriesSerializer, **error_responses(403, 404)},
    )
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        """Stop generating occurrences; the materialized ones stay."""
        series = self.get_object()
        pause_series(series)
        return Response(self._represent(series))

    @extend_schema(
        summary="Generate again (idempotent); missed past dates are not created",
        request=None,
        responses={200: SeriesSerializer, **error_responses(403, 404)},
    )
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Generate again; dates missed while paused are not created."""
        series = self.get_object()
        resume_series(series)
        return Response(self._represent(series))

    @extend_schema(
        summary="Materialize the window now (or up to `until`); returns what was created",
        description=(
            "A series that cannot generate answers 409 with the reason as `detail`: it is "
            "paused, or has no recurrence rule or no template (the admin's *Generate now* "
            "shows the same sentence). A parked series generates, and is unparked when "
            "the run creates occurrences."
        ),
        responses={200: GenerateResultSerializer, **WRITE_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def generate(self, request: Request, pk: str | None = None) -> Response:
        """Materialize the rolling window now, or up to `until`."""
        series = self.get_object()
        body = self._body()
        readiness = generation_readiness(series)
        if not readiness.ready:
            raise SeriesNotReadyError(readiness.message)
        created = generate_series_events(series, until=body.get("until"))
        return Response(
            {
                "created": occurrence_data(occurrence_rows(created, series=series)),
                "series": self._represent(series),
            }
        )
