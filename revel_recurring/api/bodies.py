"""Each action's body: its input serializer, the keys of its errors, its documented errors.

One row per action that reads a body. The series viewset reads its input
serializer from here (``get_serializer_class``, where the views' ``_body()`` and
drf-spectacular find it) and its error keys (``handle_exception``, through
:func:`~revel_recurring.api.errors.translate`, the only place a service error
gets its status and body); the action's ``extend_schema`` documents
:meth:`ActionBody.responses`, so the schema states the error answers declared here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework.serializers import BaseSerializer

from . import serializers as s
from .errors import ErrorKeys, create_keys, field_keys, split_keys, update_keys
from .plans import PlanOutdatedSerializer
from .reverts import RevertOutdatedSerializer, RevertRequestSerializer
from .schema import error_responses
from .serializers.enrolments import (
    EnrolmentCreateSerializer,
    EnrolmentEndSerializer,
    OneDateSerializer,
)
from .templates import template_serializer_class

SerializerClass = type[BaseSerializer[Any]]

#: The one 409 of a plan applied too late, for ``recurrence-apply/`` and ``split/``.
PLAN_OUTDATED = OpenApiResponse(
    PlanOutdatedSerializer,
    description=(
        "Nothing was written: the series changed since the plan was made. `plan` is "
        "the fresh plan, to show and apply again with its `hash`; null when the change "
        "no longer applies (`detail` says why). Without `plan`: the series has no rule "
        "(or, to split, no template) to change."
    ),
)


#: The 409 of a revert applied too late.
REVERT_OUTDATED = OpenApiResponse(
    RevertOutdatedSerializer,
    description=(
        "Nothing was written: the series changed since the revert plan was made. `plan` "
        "is the fresh revert plan, to show and apply again with its `hash`."
    ),
)


@dataclass(frozen=True)
class ActionBody:
    """What an action reads and how it answers bad input.

    ``serializer``: the input serializer, or a function answering it (the template's
    depends on the host's model). ``keys``: where a service's ``ValidationError``
    goes in the 400 body. ``codes``: the error statuses the schema documents (401 and
    503 are added); ``conflict``: the action's own 409, documented instead of the
    plain one.
    """

    serializer: SerializerClass | Callable[[], SerializerClass]
    keys: ErrorKeys = field_keys
    codes: tuple[int, ...] = (400, 403, 404, 409, 415)
    conflict: OpenApiResponse | None = None

    def serializer_class(self) -> SerializerClass:
        """The input serializer class."""
        if isinstance(self.serializer, type):
            return self.serializer
        return self.serializer()

    def responses(self) -> dict[int, OpenApiResponse]:
        """The error answers the schema documents for the action."""
        if self.conflict is None:
            return error_responses(*self.codes)
        return {**error_responses(*self.codes), 409: self.conflict}


_PLANNED = (400, 403, 404, 415)

#: The body of every action that reads one, by the viewset's action name.
ACTION_BODIES: dict[str, ActionBody] = {
    "create": ActionBody(s.SeriesCreateSerializer, create_keys, (400, 403, 409, 415)),
    "partial_update": ActionBody(s.SeriesUpdateSerializer, update_keys),
    "generate": ActionBody(s.GenerateRequestSerializer),
    "cancel_stale": ActionBody(s.CancelStaleRequestSerializer),
    "cancel_occurrence": ActionBody(s.CancelOccurrenceRequestSerializer),
    "restore_occurrence": ActionBody(s.RestoreOccurrenceSerializer),
    "add_date": ActionBody(s.ExtraDateRequestSerializer),
    "remove_date": ActionBody(s.ExtraDateRequestSerializer),
    "materialize_date": ActionBody(s.MaterializeDateRequestSerializer),
    "recurrence_plan": ActionBody(s.RecurrencePlanRequestSerializer, update_keys),
    "recurrence_apply": ActionBody(
        s.RecurrenceApplyRequestSerializer, update_keys, _PLANNED, PLAN_OUTDATED
    ),
    "split_plan": ActionBody(s.SplitPlanRequestSerializer, split_keys),
    "split": ActionBody(s.SplitRequestSerializer, split_keys, _PLANNED, PLAN_OUTDATED),
    "template": ActionBody(template_serializer_class),
    "enrolments": ActionBody(EnrolmentCreateSerializer, codes=(400, 403, 404, 415)),
    "revert": ActionBody(RevertRequestSerializer, field_keys, _PLANNED, REVERT_OUTDATED),
}

#: The body of each action of the enrolment viewset (``api/enrolments.py``) that reads one.
ENROLMENT_BODIES: dict[str, ActionBody] = {
    "end": ActionBody(EnrolmentEndSerializer, codes=(400, 404, 415)),
    "skip": ActionBody(OneDateSerializer, codes=(400, 404, 415)),
    "take_back": ActionBody(OneDateSerializer, codes=(400, 404, 415)),
}


__all__ = ["ACTION_BODIES", "ENROLMENT_BODIES", "PLAN_OUTDATED", "ActionBody"]
