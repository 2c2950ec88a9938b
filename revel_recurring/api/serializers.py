"""Serializers of the REST API: shapes only. The rules of a recurrence (``validators.py``)
and of the host's event (``full_clean``) are applied by the services, whose errors the
views key by field.

Every datetime is read with its UTC offset (naive values are refused) and written
in UTC with ``Z``. Write serializers refuse unknown and read-only keys by name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail
from rest_framework.settings import api_settings

from ..adapter import get_adapter
from ..describe import describe_rule
from ..ical import rule_from_ical
from ..models import EventSeries, OccurrenceChange, RecurrenceRule, get_event_model
from ..validators import WINDOW_WEEKS_MAX, WINDOW_WEEKS_MIN
from .fields import MAX_POSITIVE_INT, AwareDateTimeField, EventIdField, StrictFieldsMixin
from .templates import DefaultTemplateSerializer, default_template_serializer_class, template_fields

#: The error code of a message from a rule of the series (``validators.py``, the
#: services) that carries no code of its own: input of the right shape that the
#: domain refuses, which no schema can state. Codes show in ``exc.get_codes()``
#: for hosts whose exception handler renders them.
RULE_ERROR_CODE = "rule"


def _details(errors: list[DjangoValidationError]) -> list[str]:
    return [
        ErrorDetail(message, code=error.code or RULE_ERROR_CODE)
        for error in errors
        for message in error.messages
    ]


def drf_errors(exc: DjangoValidationError) -> dict[str, Any] | list[str]:
    """A Django ValidationError as DRF's error body (``__all__`` -> non_field_errors).

    Each message keeps its Django code (``max_length`` from the host's model, ...);
    one without a code gets :data:`RULE_ERROR_CODE`.
    """
    if hasattr(exc, "error_dict"):
        return {
            (api_settings.NON_FIELD_ERRORS_KEY if key == NON_FIELD_ERRORS else key): _details(
                errors
            )
            for key, errors in exc.error_dict.items()
        }
    return _details(exc.error_list)


class RecurrenceSerializer(StrictFieldsMixin, serializers.Serializer[RecurrenceRule]):
    """The rule of a series: RFC 5545 fields in an IANA zone, plus two read-only forms."""

    frequency = serializers.ChoiceField(choices=RecurrenceRule.Frequency.choices)
    interval = serializers.IntegerField(min_value=1, max_value=MAX_POSITIVE_INT, required=False)
    weekdays = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=6),
        max_length=7,
        required=False,
        help_text=_("WEEKLY only: 0 = Monday .. 6 = Sunday; empty means dtstart's weekday."),
    )
    monthly_type = serializers.ChoiceField(
        choices=RecurrenceRule.MonthlyType.choices, allow_blank=True, required=False
    )
    day_of_month = serializers.IntegerField(
        min_value=-1, max_value=31, allow_null=True, required=False
    )
    nth_weekday = serializers.IntegerField(
        min_value=-5, max_value=5, allow_null=True, required=False
    )
    weekday = serializers.IntegerField(min_value=0, max_value=6, allow_null=True, required=False)
    dtstart = AwareDateTimeField(
        help_text=_("The first occurrence; its wall clock in `timezone` is kept.")
    )
    until = AwareDateTimeField(allow_null=True, required=False, help_text=_("Inclusive."))
    count = serializers.IntegerField(
        min_value=1, max_value=MAX_POSITIVE_INT, allow_null=True, required=False
    )
    timezone = serializers.CharField(max_length=64, help_text=_("IANA name, e.g. Europe/Vienna."))
    rrule_string = serializers.CharField(read_only=True)
    description = serializers.SerializerMethodField(
        help_text=_("The rule as a sentence, in the rule's own zone.")
    )

    def get_description(self, rule: RecurrenceRule) -> str:
        return describe_rule(rule)


_REQUIRED_RULE_FIELDS = ("frequency", "dtstart", "timezone")


class RecurrenceCreateSerializer(RecurrenceSerializer):
    """The rule of a new series: the structured fields, or ``ical`` (RFC 5545 text).

    ``{"ical": "DTSTART;TZID=Europe/Vienna:20270104T183000\\nRRULE:FREQ=WEEKLY"}``
    (or a whole VEVENT) is read by :func:`revel_recurring.ical.rule_from_ical`; what
    the rule fields cannot express is a 400 under ``recurrence.ical``, keyed by the
    offending part (``BYSETPOS``, ``FREQ``, ...).
    """

    ical = serializers.CharField(
        write_only=True,
        required=False,
        max_length=20_000,
        trim_whitespace=False,
        help_text=_(
            "Instead of the other fields: an RRULE with its DTSTART (TZID or UTC), or a "
            "whole VEVENT."
        ),
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        for name in _REQUIRED_RULE_FIELDS:
            fields[name].required = False
        return fields

    def to_internal_value(self, data: Any) -> Any:
        if not (isinstance(data, Mapping) and "ical" in data):
            missing = {
                name: [str(_("This field is required."))]
                for name in _REQUIRED_RULE_FIELDS
                if isinstance(data, Mapping) and name not in data
            }
            try:
                value = super().to_internal_value(data)
            except serializers.ValidationError as exc:
                if missing and isinstance(exc.detail, dict):
                    raise serializers.ValidationError({**missing, **exc.detail}) from exc
                raise
            if missing:
                raise serializers.ValidationError(missing)
            return value
        others = sorted(str(key) for key in data if key != "ical")
        if others:
            message = str(_("Give either 'ical' or the rule fields, not both."))
            raise serializers.ValidationError({key: [message] for key in others})
        try:
            text = self.fields["ical"].run_validation(data["ical"])
        except serializers.ValidationError as exc:
            raise serializers.ValidationError({"ical": exc.detail}) from exc
        try:
            return rule_from_ical(text)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"ical": drf_errors(exc)}) from exc


class TemplateSummarySerializer(serializers.Serializer[Any]):
    id = EventIdField()
    display = serializers.CharField(help_text=_("The template as the host names it."))
    start = AwareDateTimeField(allow_null=True)
    end = AwareDateTimeField(allow_null=True)
    status = serializers.CharField()


class OccurrenceCountsSerializer(serializers.Serializer[Any]):
    total = serializers.IntegerField(help_text=_("Materialized occurrences, template excluded."))
    upcoming = serializers.IntegerField(
        help_text=_(
            "Those starting from now on, cancelled ones left out (as the admin's "
            "list and the event queryset's upcoming() count them)."
        )
    )
    by_status = serializers.DictField(child=serializers.IntegerField())


class SeriesSerializer(serializers.ModelSerializer[EventSeries]):
    """A series as the API shows it.

    The template summary and the counts come from ``context["extras"]``, filled by
    the viewset with two queries per page (never per row).
    """

    url = serializers.HyperlinkedIdentityField(view_name="revel_recurring:series-detail")
    recurrence = RecurrenceSerializer(source="recurrence_rule", read_only=True, allow_null=True)
    exdates = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text=_("Excluded slots (cancelled or deleted), ISO 8601 in UTC."),
    )
    last_generated_until = AwareDateTimeField(
        read_only=True, allow_null=True, help_text=_("The cursor: materialized up to here.")
    )
    next_due_at = AwareDateTimeField(read_only=True, allow_null=True)
    parked_at = AwareDateTimeField(
        read_only=True,
        allow_null=True,
        help_text=_(
            "When the daily pass stopped generating this series after a failure a retry "
            "cannot fix; null while it generates. `resume/`, a `generate/` that creates "
            "occurrences or a template edit unparks it."
        ),
    )
    parked_reason = serializers.CharField(
        read_only=True, help_text=_("Why generation failed; empty while the series generates.")
    )
    next_occurrence = AwareDateTimeField(
        read_only=True,
        allow_null=True,
        help_text=_("Start of the next materialized, not cancelled occurrence."),
    )
    template = serializers.SerializerMethodField()
    occurrence_counts = serializers.SerializerMethodField()
    created_at = AwareDateTimeField(read_only=True)
    updated_at = AwareDateTimeField(read_only=True)

    class Meta:
        model = EventSeries
        fields = (
            "id",
            "url",
            "name",
            "slug",
            "description",
            "is_active",
            "auto_publish",
            "generation_window_weeks",
            "recurrence",
            "exdates",
            "last_generated_until",
            "last_occurrence_index",
            "next_due_at",
            "parked_at",
            "parked_reason",
            "next_occurrence",
            "template",
            "occurrence_counts",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields

    @extend_schema_field(TemplateSummarySerializer(allow_null=True))
    def get_template(self, series: EventSeries) -> dict[str, Any] | None:
        template = self.context["extras"].templates.get(series.pk)
        if template is None:
            return None
        model = type(template)
        end = model.RECURRING_END_FIELD
        return TemplateSummarySerializer(
            {
                "id": template.pk,
                "display": str(template),
                "start": template.occurrence_start,
                "end": getattr(template, end) if end else None,
                "status": template.occurrence_status,
            }
        ).data

    @extend_schema_field(OccurrenceCountsSerializer)
    def get_occurrence_counts(self, series: EventSeries) -> dict[str, Any]:
        counts = self.context["extras"].counts.get(series.pk)
        return counts or {"total": 0, "upcoming": 0, "by_status": {}}


class SeriesUpdateResultSerializer(SeriesSerializer):
    cursor_reset = serializers.BooleanField(
        read_only=True,
        help_text=_("The change reset the generation cursor; the next run walks the new rule."),
    )

    class Meta(SeriesSerializer.Meta):
        fields: tuple[str, ...] = (*SeriesSerializer.Meta.fields, "cursor_reset")  # type: ignore[assignment]
        read_only_fields = fields  # type: ignore[assignment]


class SeriesCreateSerializer(StrictFieldsMixin, serializers.Serializer[EventSeries]):
    """``POST series/``: the series, its rule and its template in one body."""

    name = serializers.CharField(max_length=255)
    description = serializers.CharField(allow_blank=True, required=False, max_length=20_000)
    recurrence = RecurrenceCreateSerializer()
    auto_publish = serializers.BooleanField(required=False, default=False)
    generation_window_weeks = serializers.IntegerField(
        min_value=WINDOW_WEEKS_MIN, max_value=WINDOW_WEEKS_MAX, required=False
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["template"] = get_adapter().get_template_serializer_class()()
        return fields


class SeriesUpdateSerializer(StrictFieldsMixin, serializers.Serializer[EventSeries]):
    """``PATCH series/{id}/``: any subset; ``recurrence`` may be partial."""

    name = serializers.CharField(max_length=255, required=False)
    description = serializers.CharField(allow_blank=True, required=False, max_length=20_000)
    recurrence = RecurrenceSerializer(required=False)
    auto_publish = serializers.BooleanField(required=False)
    generation_window_weeks = serializers.IntegerField(
        min_value=WINDOW_WEEKS_MIN, max_value=WINDOW_WEEKS_MAX, required=False
    )


@dataclass(frozen=True)
class OccurrenceRow:
    """One row of ``occurrences/``: a live host event or the tombstone of a deleted one."""

    id: Any
    recurrence_id: dt.datetime | None
    occurrence_index: int | None
    start: dt.datetime | None
    end: dt.datetime | None
    status: str | None
    is_modified: bool
    drifted: bool
    cancelled: bool
    deleted: bool
    has_bookings: bool = False

    @classmethod
    def of(cls, event: Any, *, drifted: bool = False, booked: bool = False) -> OccurrenceRow:
        """The row of a live event; ``booked`` comes from one ``booked_among`` call per page."""
        model = type(event)
        end = model.RECURRING_END_FIELD
        status = event.occurrence_status
        return cls(
            id=event.pk,
            recurrence_id=event.recurrence_id,
            occurrence_index=event.occurrence_index,
            start=event.occurrence_start,
            end=getattr(event, end) if end else None,
            status=status,
            is_modified=event.is_modified,
            drifted=drifted,
            cancelled=status == model.RECURRING_STATUS_CANCELLED,
            deleted=False,
            has_bookings=booked,
        )

    @classmethod
    def tombstone(cls, change: OccurrenceChange) -> OccurrenceRow:
        return cls(
            id=get_event_model()._meta.pk.to_python(change.occurrence_pk),
            recurrence_id=change.recurrence_id,
            occurrence_index=change.occurrence_index,
            start=None,
            end=None,
            status=None,
            is_modified=False,
            drifted=False,
            cancelled=True,
            deleted=True,
        )


class OccurrenceSerializer(serializers.Serializer[OccurrenceRow]):
    id = EventIdField(help_text=_("The host event's id (of the deleted row for a tombstone)."))
    recurrence_id = AwareDateTimeField(
        allow_null=True, help_text=_("The original slot (RFC 5545 RECURRENCE-ID); never moves.")
    )
    occurrence_index = serializers.IntegerField(allow_null=True)
    start = AwareDateTimeField(allow_null=True, help_text=_("Null for a deleted occurrence."))
    end = AwareDateTimeField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    is_modified = serializers.BooleanField(help_text=_("Edited on its own since generation."))
    drifted = serializers.BooleanField(help_text=_("Future, unmodified, and off the current rule."))
    cancelled = serializers.BooleanField()
    deleted = serializers.BooleanField(help_text=_("A tombstone: the row was deleted."))
    has_bookings = serializers.BooleanField(
        help_text=_(
            "The host says this occurrence holds bookings; cancel-stale and "
            "cancel-occurrence leave it alone unless `include_booked` is true."
        )
    )


def occurrence_data(rows: Iterable[OccurrenceRow]) -> Any:
    """The JSON-ready list of occurrence rows."""
    return OccurrenceSerializer(list(rows), many=True).data  # type: ignore[arg-type]


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


class DriftSerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField()
    occurrences = OccurrenceSerializer(many=True)


class PreviewSlotSerializer(serializers.Serializer[Any]):
    start = AwareDateTimeField(help_text=_("UTC."))
    local_start = serializers.DateTimeField(help_text=_("The same instant in the rule's zone."))
    state = serializers.ChoiceField(choices=("materialized", "excluded", "pending"))

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return {
            "start": AwareDateTimeField().to_representation(instance.start),
            "local_start": instance.local_start.isoformat(),
            "state": instance.state,
        }


class PreviewSerializer(serializers.Serializer[Any]):
    timezone = serializers.CharField(allow_null=True)
    count = serializers.IntegerField()
    slots = PreviewSlotSerializer(many=True)


class PreviewQuerySerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField(
        min_value=1,
        required=False,
        default=10,
        help_text=_("How many: 1 or more (default 10); more than 100 is capped at 100."),
    )


class PropagateQuerySerializer(serializers.Serializer[Any]):
    propagate = serializers.ChoiceField(
        choices=("none", "future_unmodified", "all_future"), required=False, default="none"
    )


class ErrorSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField()


__all__ = [
    "AwareDateTimeField",
    "DefaultTemplateSerializer",
    "OccurrenceRow",
    "OccurrenceSerializer",
    "RecurrenceSerializer",
    "SeriesCreateSerializer",
    "SeriesSerializer",
    "SeriesUpdateSerializer",
    "default_template_serializer_class",
    "drf_errors",
    "template_fields",
]
