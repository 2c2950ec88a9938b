""" "This and following": plan a split of a series, then split it.

``split-plan/`` answers the plan of the continuation (nothing is written);
``split/`` splits, with the plan's hash when the client showed a plan, and answers
both halves (201, ``Location`` of the continuation). A late split is the 409 of a
late plan (``errors.py``): with the fresh plan, or ``plan`` null when the split no
longer applies.
"""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from ...holiday_settings import HOLIDAY_KEYS
from ...services.splits import plan_split, split_series, split_title
from ..bodies import ACTION_BODIES
from ..fields import AwareDateTimeField
from ..plan_keys import plan_request
from ..plans import SplitPlanAnswerSerializer, split_plan_answer
from ..reads import occurrence_rows
from ..schema import extend_schema
from ..serializers.actions import BookedDateSerializer, SplitResultSerializer
from ..serializers.occurrences import occurrence_data
from .base import SeriesViewBase

_INSTANT = AwareDateTimeField()

_BODY = (
    "`at` is one of the series' dates, still to come and not its first (a 400 on "
    "`at` otherwise). `recurrence` changes the continuation's rule as a PATCH does "
    "(400s under `recurrence`); `template` changes its template, propagatable fields "
    "only (400s under `template`); `name` names it (the original's by default) and, "
    "unless `template` gives a title, its dates; `holidays` changes its holiday "
    "settings (400s under `holidays`). The same permission as a PATCH."
)


class SplitActionsMixin(SeriesViewBase):
    """``split-plan/`` and ``split/``."""

    @extend_schema(
        summary="What splitting the series at a date would do: the dates that would move "
        "(drift with bookings), the continuation's new dates, and the plan's hash. "
        "Writes nothing",
        description=_BODY + " A series without a rule or template answers 409.",
        responses={200: SplitPlanAnswerSerializer, **ACTION_BODIES["split_plan"].responses()},
    )
    @action(detail=True, methods=["post"], url_path="split-plan")
    def split_plan(self, request: Request, pk: str | None = None) -> Response:
        """The plan of a split; nothing is written."""
        series = self.get_object()
        body = self._body()
        arguments = _arguments(body)
        # As split/ applies it with this ``notify`` (booked dates move when people are told).
        plan = plan_split(series, **arguments, notify=body.get("notify"))
        title = split_title(series, name=arguments["name"], template=arguments["template"])
        return Response(split_plan_answer(plan, title, plan_request(series, "split", arguments)))

    @extend_schema(
        summary="This and following: the series ends before `at`, a new series continues "
        "from it with the moved dates (same ids, bookings kept) and the changes",
        description=(
            _BODY + " In one transaction: the original's rule ends at its last date "
            "before `at`; the occurrences from `at` on move to the continuation, which "
            "is generated to its window. With `hash` (from `split-plan/`, for the same "
            "body; `plan_hash` is its earlier name) the split applies only if the series "
            "is as the plan saw it: 409 with the fresh plan otherwise, and a 400 on the "
            "hash when it was not answered for this body."
        ),
        responses={201: SplitResultSerializer, **ACTION_BODIES["split"].responses()},
    )
    @action(detail=True, methods=["post"])
    def split(self, request: Request, pk: str | None = None) -> Response:
        """Split the series at `at`; 201 with both halves, `Location` the continuation."""
        series = self.get_object()
        body = self._body()
        arguments = _arguments(body)
        digest = self._plan_hash(
            plan_request(series, "split", arguments),
            body,
            plan=lambda: plan_split(series, **arguments, notify=body.get("notify")),
        )
        result = split_series(
            series,
            plan_hash=digest,
            cancel_drift=body.get("cancel_drift", "none"),
            notify=body.get("notify"),
            **arguments,
        )
        continuation = self._represent(result.continuation)
        return Response(
            {
                "original": self._represent(series),
                "continuation": continuation,
                "at": _INSTANT.to_representation(result.at),
                "last_before": _INSTANT.to_representation(result.last_before),
                "moved": result.moved,
                "moved_cancelled": result.moved_cancelled,
                "rescheduled": result.rescheduled,
                "cancelled": result.cancelled,
                "created": occurrence_data(
                    occurrence_rows(result.created, series=result.continuation)
                ),
                "kept_booked": BookedDateSerializer(result.kept_booked, many=True).data,
            },
            status=status.HTTP_201_CREATED,
            # The serializer's url is DRF's Hyperlink, a str subclass that WSGI
            # servers (wsgiref, runserver) refuse as a header value after the
            # split has committed: the header gets a plain str.
            headers={"Location": str(continuation["url"])},
        )


def _arguments(body: dict[str, Any]) -> dict[str, Any]:
    """A split body as the split services' keyword arguments."""
    return {
        "at": body["at"],
        "recurrence": dict(body.get("recurrence") or {}),
        "template": dict(body.get("template") or {}),
        "name": body.get("name"),
        "holidays": {
            key: value for key, value in (body.get("holidays") or {}).items() if key in HOLIDAY_KEYS
        },
    }
