"""Reverting an operation of a series' history: see its inverse, then apply exactly that.

``GET operations/{operation}/revert/`` answers the revert's plan (nothing is
written); ``POST`` with its ``plan_hash`` applies it. A refusal (the kind cannot
be undone, reverted already, something changed since) is a 400 on ``operation``
naming why; a plan outdated since it was shown the 409 of a late plan, with the
fresh revert plan. Both need the right to change the series.
"""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...adapter import get_adapter
from ...context import acting
from ...services.revert import apply_revert, plan_revert
from ..bodies import ACTION_BODIES
from ..reverts import RevertPlanSerializer, RevertResultSerializer, revert_plan_data
from ..schema import extend_schema
from .base import SeriesViewBase
from .history import operation_of


class RevertActionsMixin(SeriesViewBase):
    """``operations/{operation}/revert/``: the plan (GET) and the apply (POST)."""

    @extend_schema(
        methods=["GET"],
        summary="What reverting an operation of the series would do: the dates put back "
        "or removed, the rule and settings restored, and the plan's hash. Writes nothing",
        description=(
            "Plans, splits, moves, cancellations of the dates off the schedule and holiday "
            "policy changes can be reverted. A 400 on `operation` says why one cannot: "
            "its kind, reverted already, a later operation on the series, a date edited "
            "or booked since. The same permission as a PATCH."
        ),
        responses={200: RevertPlanSerializer, **ACTION_BODIES["revert"].responses()},
    )
    @extend_schema(
        methods=["POST"],
        summary="Revert an operation as its plan showed it (409 with the fresh plan when "
        "anything changed since)",
        description=(
            "Send the `plan_hash` of the revert plan. In one transaction: the dates go "
            "back (same ids, starts, slots, statuses), the dates the operation created "
            "are deleted, the rule and schedule settings are restored, and a reverted "
            "split's continuation is deleted. The revert is recorded as an operation "
            "(kind `revert`); the people booked on changed dates are told once."
        ),
        responses={200: RevertResultSerializer, **ACTION_BODIES["revert"].responses()},
    )
    @action(
        detail=True,
        methods=["get", "post"],
        url_path=r"operations/(?P<operation_id>[^/]+)/revert",
        url_name="operation-revert",
    )
    def revert(self, request: Request, pk: str | None = None, operation_id: str = "") -> Response:
        """The plan of reverting an operation (GET), or the revert itself (POST)."""
        series = self.get_object()
        if not get_adapter().get_editable_series(request.user).filter(pk=series.pk).exists():
            raise exceptions.PermissionDenied()
        record = operation_of(series.pk, operation_id)
        if request.method == "GET":
            return Response(revert_plan_data(plan_revert(record)))
        body = self._body()
        with acting(request.user, face="api"):
            result = apply_revert(record, plan_hash=body["plan_hash"], notify=body.get("notify"))
        return Response(
            {
                "operation": result.operation_id,
                "restored": result.restored,
                "removed": result.removed,
                "removed_series": result.removed_series,
            }
        )
