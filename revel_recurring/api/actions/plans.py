"""Change plans: see what a change of the schedule would do, then apply exactly that.

``recurrence-plan/`` answers the plan (nothing is written); ``recurrence-apply/``
applies it through ``update_series`` with its hash (the admin's confirmation page
makes the same call) while the hash still matches, else the 409 of a late plan
carries the fresh plan.
"""

from __future__ import annotations

from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...services.editing import update_series
from ...services.plans import EXTRA_DATES_KEY, HOLIDAYS_KEY, WINDOW_KEY, plan_recurrence_change
from ...services.plans.holidays_ahead import plan_holidays_ahead
from ..bodies import ACTION_BODIES
from ..plan_keys import plan_changes, plan_request
from ..plans import PlannedOccurrenceSerializer, RecurrencePlanAnswerSerializer, plan_answer
from ..reads import occurrence_rows
from ..schema import extend_schema
from ..serializers.actions import BookedDateSerializer, RecurrenceApplyResultSerializer
from ..serializers.occurrences import occurrence_data
from .base import SeriesViewBase


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
            "`shifted_from`); skipped dates a holiday skips have the reason `holiday`. "
            "`holidays_ahead` lists the holidays of the next twelve months on the dates "
            "as the change leaves them, with what becomes of each."
        ),
        responses={
            200: RecurrencePlanAnswerSerializer,
            **ACTION_BODIES["recurrence_plan"].responses(),
        },
    )
    @action(detail=True, methods=["post"], url_path="recurrence-plan")
    def recurrence_plan(self, request: Request, pk: str | None = None) -> Response:
        """The plan of a change of the rule, window, holidays or extra dates; nothing is
        written."""
        series = self.get_object()
        body = self._body()
        changes = plan_changes(body)
        # The plan of the change as it applies with this ``notify``: with people told,
        # booked dates that can move are shown moving.
        plan = plan_recurrence_change(series, changes, notify=body.get("notify"))
        request_ = plan_request(series, "recurrence", changes)
        return Response(plan_answer(plan, plan_holidays_ahead(series, changes), request_))

    @extend_schema(
        summary="Apply a planned change if the series is as the plan saw it (409 with the "
        "fresh plan otherwise); new dates are created at once",
        description=(
            "Send the same `recurrence`, `generation_window_weeks` and `holidays` as to "
            "`recurrence-plan/`, with its `hash` (`plan_hash` is the earlier name of the "
            "same field; both only when equal). A series changed since the plan answers "
            "409 with the fresh plan; a hash not answered for this body (mistyped, or of "
            "another change) a 400 on the hash. In one transaction: the rule, window, "
            "holiday settings and extra dates change, drifted dates are cancelled as "
            "`cancel_drift` says (booked ones kept unless `all`, and named), and the "
            "plan's new dates are materialized."
        ),
        responses={
            200: RecurrenceApplyResultSerializer,
            **ACTION_BODIES["recurrence_apply"].responses(),
        },
    )
    @action(detail=True, methods=["post"], url_path="recurrence-apply")
    def recurrence_apply(self, request: Request, pk: str | None = None) -> Response:
        """Apply the planned change, only if the series did not change since the plan."""
        series = self.get_object()
        body = self._body()
        changes = plan_changes(body)
        digest = self._plan_hash(
            plan_request(series, "recurrence", changes),
            body,
            plan=lambda: plan_recurrence_change(series, changes, notify=body.get("notify")),
        )
        assert digest is not None  # the body's serializer requires a hash
        rule_changes = dict(body.get("recurrence") or {})
        extra_dates = rule_changes.pop(EXTRA_DATES_KEY, None)
        applied = update_series(
            series,
            rule_changes=rule_changes,
            extra_dates=extra_dates,
            generation_window_weeks=body.get(WINDOW_KEY),
            holidays=body.get(HOLIDAYS_KEY),
            plan_hash=digest,
            cancel_drift=body["cancel_drift"],
            notify=body.get("notify"),
        ).applied
        assert applied is not None  # a plan hash was given
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
