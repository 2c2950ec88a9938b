"""Change plans: see what a change of the schedule would do, then apply exactly that.

``recurrence-plan/`` answers the plan (nothing is written); ``recurrence-apply/``
applies it while its hash still matches, else answers 409 with the fresh plan.
A plain ``PATCH series/{id}/`` (no plan) also materializes the new dates and names
the drift: :meth:`PlanActionsMixin._dates_after_change`.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import OpenApiResponse
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from ...exceptions import RecurrenceError
from ...holiday_settings import HOLIDAY_FIELDS
from ...models import RULE_FIELDS, EventSeries
from ...services.generation import generate_series_events, generation_readiness
from ...services.plans import (
    HOLIDAYS_KEY,
    WINDOW_KEY,
    PlannedOccurrence,
    apply_recurrence_plan,
    current_drift,
    plan_recurrence_change,
)
from ..errors import update_errors
from ..plans import (
    PlannedOccurrenceSerializer,
    PlanOutdatedSerializer,
    RecurrencePlanSerializer,
    plan_data,
)
from ..reads import occurrence_rows
from ..schema import error_responses, extend_schema
from ..serializers.actions import BookedDateSerializer, RecurrenceApplyResultSerializer
from ..serializers.occurrences import OccurrenceRow, occurrence_data
from .base import SeriesViewBase

logger = logging.getLogger(__name__)

#: The fields whose change moves the series' dates (and is followed by a generation run).
SCHEDULE_FIELDS = frozenset({*RULE_FIELDS, WINDOW_KEY, *HOLIDAY_FIELDS.values()})

PLAN_OUTDATED = OpenApiResponse(
    PlanOutdatedSerializer,
    description=(
        "The series changed since the plan was made: nothing was written; `plan` is "
        "the fresh plan, to show and apply again with its `hash`. Without `plan`: the "
        "series has no rule to change."
    ),
)


class PlanActionsMixin(SeriesViewBase):
    """``recurrence-plan/`` and ``recurrence-apply/``."""

    @extend_schema(
        summary="What changing the rule, window, holidays or extra dates would do: dates that "
        "stay, drift (with bookings), new and skipped dates, and the plan's hash. Writes nothing",
        description=(
            "The body takes `recurrence` (with `extra_dates`, the whole new set), "
            "`generation_window_weeks` and `holidays` as `PATCH series/{id}/` does, with "
            "the same 400s; an extra date given twice is a 400 too. An occurrence on an "
            "extra date left out is drift. The same permission as a PATCH. A series "
            "without a rule answers 409. New dates a holiday moved name it (`holiday`, "
            "`shifted_from`); skipped dates a holiday skips have the reason `holiday`."
        ),
        responses={200: RecurrencePlanSerializer, **error_responses(400, 403, 404, 409, 415)},
    )
    @action(detail=True, methods=["post"], url_path="recurrence-plan")
    def recurrence_plan(self, request: Request, pk: str | None = None) -> Response:
        """The plan of a change of the rule, window, holidays or extra dates; nothing is
        written."""
        series = self.get_object()
        try:
            plan = plan_recurrence_change(series, _changes(self._body()))
        except DjangoValidationError as exc:
            raise ValidationError(update_errors(exc)) from exc
        return Response(plan_data(plan))

    @extend_schema(
        summary="Apply a planned change if the series is as the plan saw it (409 with the "
        "fresh plan otherwise); new dates are created at once",
        description=(
            "Send the same `recurrence`, `generation_window_weeks` and `holidays` as to "
            "`recurrence-plan/`, with its `hash`. In one transaction: the rule, window, "
            "holiday settings and extra dates change, drifted dates are cancelled as "
            "`cancel_drift` says (booked ones kept unless `all`, and named), and the "
            "plan's new dates are materialized."
        ),
        responses={
            200: RecurrenceApplyResultSerializer,
            **error_responses(400, 403, 404, 415),
            409: PLAN_OUTDATED,
        },
    )
    @action(detail=True, methods=["post"], url_path="recurrence-apply")
    def recurrence_apply(self, request: Request, pk: str | None = None) -> Response:
        """Apply the planned change, only if the series did not change since the plan."""
        series = self.get_object()
        body = self._body()
        try:
            applied = apply_recurrence_plan(
                series, body["plan_hash"], _changes(body), cancel_drift=body["cancel_drift"]
            )
        except DjangoValidationError as exc:
            raise ValidationError(update_errors(exc)) from exc
        return Response(
            {
                "changed": sorted(applied.changed),
                "cursor_reset": applied.cursor_reset,
                "created": occurrence_data(occurrence_rows(applied.created, series=series)),
                "cancelled": applied.cancelled,
                "moved": applied.moved,
                "kept_booked": BookedDateSerializer(applied.kept_booked, many=True).data,
                "kept_modified": PlannedOccurrenceSerializer(applied.kept_modified, many=True).data,
                "series": self._represent(series),
            }
        )

    def _dates_after_change(
        self, series: EventSeries, changed: frozenset[str]
    ) -> tuple[list[OccurrenceRow], tuple[PlannedOccurrence, ...], str | None]:
        """After a PATCH: the dates generated at once (when the rule or window changed and
        the series can generate), the series' drift with bookings, and why the
        generation failed (None when it did not)."""
        created: list[Any] = []
        error = None
        if changed & SCHEDULE_FIELDS and generation_readiness(series).ready:
            try:
                created = generate_series_events(series)
            except RecurrenceError as exc:
                # The change is committed: answering an error would tell the client
                # it failed. The daily pass tries again (and parks the series when
                # the cause persists); the answer says why nothing was created.
                logger.warning("Generating series %s after a PATCH failed: %s", series.pk, exc)
                error = str(exc)
        return occurrence_rows(created, series=series), current_drift(series), error


def _changes(body: dict[str, Any]) -> dict[str, Any]:
    """A plan action's body as the plan services' ``changes``."""
    changes = dict(body.get("recurrence") or {})
    if body.get(WINDOW_KEY) is not None:
        changes[WINDOW_KEY] = body[WINDOW_KEY]
    if body.get(HOLIDAYS_KEY):
        changes[HOLIDAYS_KEY] = dict(body[HOLIDAYS_KEY])
    return changes
