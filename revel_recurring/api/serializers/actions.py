"""The bodies of the series' actions: what each one reads and what it answers."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ..fields import AwareDateTimeField, EventIdField, StrictFieldsMixin
from .occurrences import OccurrenceSerializer
from .series import SeriesSerializer


class GenerateRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    until = AwareDateTimeField(
        required=False,
        allow_null=True,
        help_text=_(
            "Generate up to here instead of the rolling window; at most "
            "REVEL_RECURRING_MAX_WINDOW_WEEKS ahead."
        ),
    )


class GenerateResultSerializer(serializers.Serializer[Any]):
    created = OccurrenceSerializer(many=True)
    series = SeriesSerializer()


class OccurrenceInstantSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    occurrence = AwareDateTimeField(
        help_text=_("The slot or the current start of the occurrence, any UTC offset.")
    )


class CancelOccurrenceRequestSerializer(OccurrenceInstantSerializer):
    include_booked = serializers.BooleanField(
        required=False,
        default=False,
        help_text=_(
            "Cancel the occurrence even though it holds bookings. Without it a booked "
            "occurrence is refused with a 409 naming its date."
        ),
    )


class OccurrenceActionResultSerializer(serializers.Serializer[Any]):
    occurrence = OccurrenceSerializer(
        allow_null=True, help_text=_("Null when the slot was not materialized.")
    )
    series = SeriesSerializer()


class CancelStaleRequestSerializer(StrictFieldsMixin, serializers.Serializer[Any]):
    ids = serializers.ListField(
        child=EventIdField(),
        required=False,
        max_length=1000,
        help_text=_("Only these occurrences, and only if they drift; omit for every drifted one."),
    )
    include_booked = serializers.BooleanField(
        required=False,
        default=False,
        help_text=_(
            "Also cancel drifted occurrences that hold bookings. Without it they are "
            "kept and named in `kept_booked`."
        ),
    )


class BookedDateSerializer(serializers.Serializer[Any]):
    """A booked occurrence an action left alone, named for a person."""

    id = EventIdField(help_text=_("The host event's id."))
    start = AwareDateTimeField(help_text=_("Its current start, UTC."))
    display = serializers.CharField(
        help_text=_('The start in the rule\'s zone: "Thu 3 Dec 2026 18:30 (Europe/Berlin)".')
    )


class CancelStaleResultSerializer(serializers.Serializer[Any]):
    cancelled = serializers.ListField(child=EventIdField())
    kept_booked = BookedDateSerializer(
        many=True,
        help_text=_(
            "Drifted occurrences kept because they hold bookings (empty with `include_booked`)."
        ),
    )
    series = SeriesSerializer()


class PropagateQuerySerializer(serializers.Serializer[Any]):
    propagate = serializers.ChoiceField(
        choices=("none", "future_unmodified", "all_future"), required=False, default="none"
    )


class ErrorSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField()
