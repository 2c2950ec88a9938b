"""The rule of a series as the API reads and writes it: the RFC 5545 fields, or ``ical``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ...describe import describe_rule
from ...ical import rule_from_ical
from ...models import RecurrenceRule
from ...services.extra_dates import EXTRA_DATES_KEY
from ...validators import EXTRA_DATES_MAX
from ..errors import drf_errors
from ..fields import MAX_POSITIVE_INT, AwareDateTimeField, StrictFieldsMixin


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


def extra_dates_field(help_text: Any) -> serializers.ListField:
    """``recurrence.extra_dates``: aware instants, written only (the series shows them)."""
    return serializers.ListField(
        child=AwareDateTimeField(),
        write_only=True,
        required=False,
        max_length=EXTRA_DATES_MAX,
        help_text=help_text,
    )


class RecurrenceUpdateSerializer(RecurrenceSerializer):
    """The ``recurrence`` of ``PATCH series/{id}/``: any subset of the rule fields, and
    ``extra_dates``, the whole new set of the series' extra dates."""

    # The rule as text, from the fields: sent back as read, whatever the fields say.
    derived_keys = ("rrule_string", "description")

    extra_dates = extra_dates_field(
        _(
            "The series' extra dates (RFC 5545 RDATE) as they should be: those not there "
            "yet are added, those left out removed (409 naming a booked one, and nothing "
            "is written). Omit to leave them as they are. Shown as the series' "
            "`extra_dates`."
        )
    )


class RecurrenceChangeSerializer(RecurrenceSerializer):
    """A change of a series' rule: any subset of its fields, as ``PATCH series/{id}/`` reads it.

    A split's actions read the continuation's ``recurrence`` with it, so a field
    is refused with the same message (and the same key) there as in a PATCH.
    """

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        for name in _REQUIRED_RULE_FIELDS:
            fields[name].required = False
        return fields

    def to_internal_value(self, data: Any) -> Any:
        refused = EXTRA_DATES_KEY not in self.fields
        if refused and isinstance(data, Mapping) and EXTRA_DATES_KEY in data:
            # A split carries the extra dates from its date on: named, rather than
            # answered as an unknown field.
            message = str(
                _(
                    "Extra dates are not part of this change; send them with "
                    "PATCH series/{id}/ (recurrence.extra_dates), recurrence-plan/ "
                    "or add-date/ and remove-date/."
                )
            )
            raise serializers.ValidationError({EXTRA_DATES_KEY: [message]})
        return super().to_internal_value(data)


class RecurrencePlanChangeSerializer(RecurrenceChangeSerializer):
    """The ``recurrence`` of a change plan (``recurrence-plan/``, ``recurrence-apply/``):
    the rule fields as a PATCH reads them, and ``extra_dates`` as a PATCH takes them."""

    extra_dates = extra_dates_field(
        _(
            "The series' extra dates (RFC 5545 RDATE) as they should be: those not there "
            "yet are planned as new dates, an occurrence on one left out as drift (kept "
            "unless `cancel_drift` says otherwise). Omit to leave them as they are."
        )
    )


def sends_ical(data: object) -> bool:
    """Whether a rule body is the ``{"ical": "..."}`` form rather than the rule fields."""
    return isinstance(data, Mapping) and "ical" in data


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
            "whole VEVENT; RDATE lines (with a time) become the series' extra dates."
        ),
    )
    extra_dates = extra_dates_field(
        _(
            "Dates of the series besides the rule's (RFC 5545 RDATE), any UTC offset: "
            "each still to come, not before `dtstart` and not a date of the rule. "
            "`count` and `until` bound the rule's own dates only."
        )
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        for name in _REQUIRED_RULE_FIELDS:
            fields[name].required = False
        return fields

    def to_internal_value(self, data: Any) -> Any:
        if not sends_ical(data):
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
            data = rule_from_ical(text)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"ical": drf_errors(exc)}) from exc
        # RDATE lines come back under "extra_dates", as the fields' form sends them:
        # the view adds them once the series exists, in the same transaction.
        return data
