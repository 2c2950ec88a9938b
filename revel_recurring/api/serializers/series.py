"""A series as the API shows it, and the bodies that create and change one."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ...models import EventSeries
from ...validators import WINDOW_WEEKS_MAX, WINDOW_WEEKS_MIN, validate_single_line
from ..fields import (
    AwareDateTimeField,
    EventIdField,
    EventStatusField,
    PrefilledFormMixin,
    StrictFieldsMixin,
    notify_field,
)
from ..plans import PlannedOccurrenceSerializer
from ..templates import template_serializer_class
from .holidays import HolidaySettingsSerializer, HolidaysSerializer
from .occurrences import OccurrenceSerializer
from .recurrence import (
    RecurrenceCreateSerializer,
    RecurrenceSerializer,
    RecurrenceUpdateSerializer,
    sends_ical,
)


class TemplateSummarySerializer(serializers.Serializer[Any]):
    id = EventIdField()
    display = serializers.CharField(help_text=_("The template as the host names it."))
    start = AwareDateTimeField(allow_null=True)
    end = AwareDateTimeField(
        allow_null=True,
        help_text=_("The host's end, or the start plus the host's duration; null for neither."),
    )
    status = EventStatusField()


class OccurrenceCountsSerializer(serializers.Serializer[Any]):
    total = serializers.IntegerField(help_text=_("Materialized occurrences, template excluded."))
    upcoming = serializers.IntegerField(
        help_text=_(
            "Those starting from now on, cancelled ones left out (as the admin's "
            "list and the event queryset's upcoming() count them)."
        )
    )
    by_status = serializers.DictField(child=serializers.IntegerField())


class SeriesLinkSerializer(serializers.Serializer[EventSeries]):
    """Another series, by id and URL (the two halves of a split)."""

    id = serializers.IntegerField(read_only=True)
    url = serializers.HyperlinkedIdentityField(view_name="revel_recurring:series-detail")


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
    extra_dates = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text=_(
            "Dates besides the rule's (RFC 5545 RDATE), ISO 8601 in UTC: set with "
            "`recurrence.extra_dates`, `add-date/` and `remove-date/`."
        ),
    )
    holidays = HolidaysSerializer(
        source="*",
        read_only=True,
        help_text=_(
            "The holiday calendar whose holidays skip or move the rule's dates; "
            "`country` empty for none."
        ),
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
    split_from = SeriesLinkSerializer(
        read_only=True,
        allow_null=True,
        help_text=_(
            "The series this one continues: it was split off that one, which ends before "
            "this one starts. Null for none."
        ),
    )
    continued_by = SeriesLinkSerializer(
        read_only=True,
        allow_null=True,
        help_text=_(
            "The series that continues this one after its last date (a split); null for none."
        ),
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
            "extra_dates",
            "holidays",
            "last_generated_until",
            "last_occurrence_index",
            "next_due_at",
            "parked_at",
            "parked_reason",
            "next_occurrence",
            "split_from",
            "continued_by",
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
        return TemplateSummarySerializer(
            {
                "id": template.pk,
                "display": str(template),
                "start": template.occurrence_start,
                "end": template.occurrence_end,
                "status": template.occurrence_status,
            }
        ).data

    @extend_schema_field(OccurrenceCountsSerializer)
    def get_occurrence_counts(self, series: EventSeries) -> dict[str, Any]:
        counts = self.context["extras"].counts.get(series.pk)
        return counts or {"total": 0, "upcoming": 0, "by_status": {}}


class SeriesUpdateResultSerializer(SeriesSerializer):
    """The answer of ``PATCH series/{id}/``: the series, and what the change did to its dates."""

    cursor_reset = serializers.BooleanField(
        read_only=True,
        help_text=_("The change reset the generation cursor; the next run walks the new rule."),
    )
    created = OccurrenceSerializer(
        many=True,
        read_only=True,
        help_text=_(
            "Occurrences generated at once because the rule or the window changed "
            "(empty otherwise, or for a paused series or one without a template)."
        ),
    )
    moved = OccurrenceSerializer(
        many=True,
        read_only=True,
        help_text=_(
            "Occurrences the change moved to the new schedule's date in the same week "
            "(month, year): the same rows, at their new date and `recurrence_id`. Only "
            "dates without bookings move; a PATCH cancels nothing."
        ),
    )
    drift = PlannedOccurrenceSerializer(
        many=True,
        read_only=True,
        help_text=_(
            "Future occurrences that still do not fit the rule, with their bookings: "
            "booked dates the PATCH did not move (`moves_to` says where a plan would "
            "move them) and dates the new schedule has no date for. The PATCH keeps "
            "them (`cancel-stale/` cancels those not edited by hand); "
            "`recurrence-plan/` and `recurrence-apply/` move or cancel them as ticked."
        ),
    )

    generation_error = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text=_(
            "Why the new dates could not be generated at once (the change itself is "
            "saved; the daily run tries again and parks the series if the cause "
            "persists). Null when they were, or when nothing was to generate."
        ),
    )

    class Meta(SeriesSerializer.Meta):
        fields: tuple[str, ...] = (  # type: ignore[assignment]
            *SeriesSerializer.Meta.fields,
            "cursor_reset",
            "created",
            "moved",
            "drift",
            "generation_error",
        )
        read_only_fields = fields  # type: ignore[assignment]


class SeriesCreateSerializer(
    PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[EventSeries]
):
    """``POST series/``: the series, its rule and its template in one body."""

    name = serializers.CharField(max_length=255, validators=[validate_single_line])
    description = serializers.CharField(allow_blank=True, required=False, max_length=20_000)
    recurrence = RecurrenceCreateSerializer()
    auto_publish = serializers.BooleanField(required=False, default=False)
    generation_window_weeks = serializers.IntegerField(
        min_value=WINDOW_WEEKS_MIN, max_value=WINDOW_WEEKS_MAX, required=False
    )
    holidays = HolidaySettingsSerializer(
        required=False,
        help_text=_("A holiday calendar and what its holidays do to the rule's dates."),
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["template"] = template_serializer_class()()
        return fields

    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        # Which form of the rule was sent (``recurrence.ical`` or the rule fields), so
        # the view keys the service's rule errors where the client put the rule. Not a
        # field (fields and docstring are published in the schema): no client sends it.
        value["rule_from_ical"] = sends_ical(data.get("recurrence"))
        return value


class SeriesUpdateSerializer(StrictFieldsMixin, serializers.Serializer[EventSeries]):
    """``PATCH series/{id}/``: any subset; ``recurrence`` may be partial.

    The series' whole representation, as a GET (or a PATCH) answered it, may be sent
    back: what the server derives is ignored, the other read-only keys (``id``,
    ``slug``, ``is_active``, ``exdates``, ``extra_dates``) when unchanged.
    """

    derived_keys = (
        "url",
        "last_generated_until",
        "last_occurrence_index",
        "next_due_at",
        "parked_at",
        "parked_reason",
        "next_occurrence",
        "split_from",
        "continued_by",
        "template",
        "occurrence_counts",
        "created_at",
        "updated_at",
        # Only in a PATCH's answer: what that change did.
        "cursor_reset",
        "created",
        "moved",
        "drift",
        "generation_error",
    )

    name = serializers.CharField(max_length=255, required=False, validators=[validate_single_line])
    description = serializers.CharField(allow_blank=True, required=False, max_length=20_000)
    recurrence = RecurrenceUpdateSerializer(required=False)
    auto_publish = serializers.BooleanField(required=False)
    notify = notify_field()
    generation_window_weeks = serializers.IntegerField(
        min_value=WINDOW_WEEKS_MIN, max_value=WINDOW_WEEKS_MAX, required=False
    )
    holidays = HolidaySettingsSerializer(
        required=False,
        help_text=_(
            "Holiday settings to change (any subset): a schedule change like a rule "
            "change, answered with `created` and `drift`."
        ),
    )
