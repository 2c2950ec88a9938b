"""A revert plan as the API shows it, the body of an apply, and its answer.

Read-only shapes of :class:`~revel_recurring.services.revert.RevertPlan`. Outside
the serializers package (like ``plans.py``), importing nothing of the API but its
fields: ``errors.py`` renders the fresh plan of a late revert.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ..services.revert import RevertPlan
from .fields import AwareDateTimeField, EventIdField, StrictFieldsMixin, notify_field


class RevertRowSerializer(serializers.Serializer[Any]):
    """One date the revert writes: as it is now, and as it will be."""

    id = EventIdField(help_text=_("The host event's id (kept: the same row goes back)."))
    action = serializers.CharField(
        help_text=_(
            "`restore`: the row goes back as it was before the operation; `remove`: the "
            "operation created it, the revert deletes it."
        )
    )
    change = serializers.CharField(help_text=_("What the operation did to it."))
    series_id = serializers.IntegerField(allow_null=True)
    start = AwareDateTimeField(allow_null=True, help_text=_("Its start now, UTC."))
    display = serializers.CharField()
    slot = AwareDateTimeField(allow_null=True)
    status = serializers.CharField(help_text=_("`live`, `cancelled` or `draft`, now."))
    target_series_id = serializers.IntegerField(allow_null=True)
    target_start = AwareDateTimeField(
        allow_null=True, help_text=_("Its start after the revert, UTC; null when removed.")
    )
    target_display = serializers.CharField()
    target_slot = AwareDateTimeField(allow_null=True)
    target_status = serializers.CharField(help_text=_("Its status after the revert."))
    bookings = serializers.IntegerField(help_text=_("How many bookings it holds now."))
    booked = serializers.BooleanField()


class SettingChangeSerializer(serializers.Serializer[Any]):
    """A rule field or schedule setting the revert puts back."""

    name = serializers.CharField()
    current = serializers.JSONField(allow_null=True)
    target = serializers.JSONField(allow_null=True)


class RevertPlanSerializer(serializers.Serializer[Any]):
    """What reverting an operation would do; nothing is written."""

    operation_id = serializers.UUIDField(help_text=_("The operation the revert undoes."))
    kind = serializers.CharField(help_text=_("Its kind (`plan`, `split`, ...)."))
    series_id = serializers.IntegerField()
    description = serializers.CharField(help_text=_("The rule the revert restores, in words."))
    rows = RevertRowSerializer(many=True)
    settings = SettingChangeSerializer(many=True)
    removes_series = serializers.IntegerField(
        allow_null=True, help_text=_("The continuation a reverted split deletes.")
    )
    hash = serializers.CharField(help_text=_("Send it back to apply exactly this plan."))


class RevertOutdatedSerializer(serializers.Serializer[Any]):
    """409 of a revert applied too late: why, and the fresh revert plan."""

    detail = serializers.CharField()
    plan = RevertPlanSerializer(allow_null=True)


class RevertRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    """The body of a revert: the hash of the plan shown, and who is told."""

    plan_hash = serializers.CharField(
        max_length=128,
        help_text=_(
            "The `hash` of the revert plan you showed. Anything changed since: 409 with "
            "the fresh plan."
        ),
    )
    notify = notify_field()


class RevertResultSerializer(serializers.Serializer[Any]):
    operation = serializers.UUIDField(
        allow_null=True, help_text=_("The revert's own record in the series' history.")
    )
    restored = serializers.ListField(child=EventIdField(), help_text=_("Ids of the rows put back."))
    removed = serializers.ListField(
        child=EventIdField(), help_text=_("Ids of the rows the operation created, deleted.")
    )
    removed_series = serializers.IntegerField(
        allow_null=True, help_text=_("The continuation deleted by reverting a split.")
    )


def revert_plan_data(plan: RevertPlan) -> dict[str, Any]:
    """The JSON-ready revert plan, as a plain dict."""
    return dict(RevertPlanSerializer(plan).data)


__all__ = [
    "RevertOutdatedSerializer",
    "RevertPlanSerializer",
    "RevertRequestSerializer",
    "RevertResultSerializer",
    "RevertRowSerializer",
    "revert_plan_data",
]
