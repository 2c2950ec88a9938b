"""The bodies and answers of the enrolment routes: an enrolment, its dates, and the changes.

An enrolment books a user on every date of a series from a day on
(:mod:`revel_recurring.services.enrolments`). Users and dates are the host's: a
user is named by its primary key as text (``user``), a date by the host event's
id (``occurrence``, typed as the host's key). Days are on the series' wall clock.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ...instants import EARLIEST, LATEST
from ...models import Enrolment, EnrolmentDate
from ..errors import RULE_ERROR_CODE
from ..fields import EventIdField, PrefilledFormMixin, StrictFieldsMixin

#: The days an enrolment may name: the years every instant of the API may take.
FIRST_DAY = EARLIEST.date()
LAST_DAY = LATEST.date() - dt.timedelta(days=1)


class DayField(serializers.DateField):
    """A day (``YYYY-MM-DD``) in the years the API reads instants in (1900 to 2999).

    A day outside them is refused with the rule code: the schema states the
    format, not the range.
    """

    def to_internal_value(self, value: Any) -> dt.date:
        day: dt.date = super().to_internal_value(value)
        if not FIRST_DAY <= day <= LAST_DAY:
            raise serializers.ValidationError(
                gettext("Give a day between %(first)s and %(last)s.")
                % {"first": FIRST_DAY.isoformat(), "last": LAST_DAY.isoformat()},
                code=RULE_ERROR_CODE,
            )
        return day


class EnrolmentSerializer(serializers.ModelSerializer[Enrolment]):
    """One user enrolled in one series."""

    user = serializers.CharField(
        source="user_pk", read_only=True, help_text=_("The user's primary key, as text.")
    )
    created_by = serializers.CharField(
        source="created_by_pk",
        read_only=True,
        help_text=_("Who enrolled them (a user's primary key as text); empty when not known."),
    )
    ended = serializers.SerializerMethodField(
        help_text=_("Whether the enrolment was ended (it books no dates after `ends_on`).")
    )

    class Meta:
        model = Enrolment
        fields = (
            "id",
            "series",
            "user",
            "starts_on",
            "ends_on",
            "created_at",
            "created_by",
            "ended_at",
            "ended",
        )
        read_only_fields = fields

    def get_ended(self, enrolment: Enrolment) -> bool:
        return enrolment.ended_at is not None


class EnrolmentCreateSerializer(PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]):
    """``POST series/{id}/enrolments/``: who, from which day, until which day."""

    user = serializers.CharField(
        required=False,
        max_length=64,
        help_text=_(
            "The user to enrol (their primary key). Leave it out to enrol yourself; "
            "only an organiser of the series enrols someone else."
        ),
    )
    starts_on = DayField(
        required=False,
        help_text=_("The first day booked, on the series' clock (default: today)."),
    )
    ends_on = DayField(
        required=False,
        allow_null=True,
        help_text=_("The last day booked (default: none, every date to come)."),
    )


class RefusedDateSerializer(serializers.Serializer[Any]):
    occurrence = EventIdField(help_text=_("The host event's id."))
    reason = serializers.CharField(help_text=_("Why the site could not book it (full, closed...)."))


class EnrolmentResultSerializer(serializers.Serializer[Any]):
    """An enrolment as the change left it, with the dates it booked and refused at once."""

    enrolment = EnrolmentSerializer()
    booked = serializers.ListField(
        child=EventIdField(), help_text=_("The dates booked for the user by this request.")
    )
    refused = RefusedDateSerializer(
        many=True, help_text=_("The dates the site could not book, and why.")
    )


class EnrolmentEndSerializer(PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]):
    """``POST enrolments/{id}/end/``: the last day booked."""

    on = DayField(
        required=False,
        help_text=_(
            "The last day the enrolment books, on the series' clock (default: yesterday: "
            "every date from today on is released)."
        ),
    )


class EnrolmentEndResultSerializer(serializers.Serializer[Any]):
    enrolment = EnrolmentSerializer()
    released = serializers.IntegerField(
        help_text=_("How many dates still to come, booked through the enrolment, were released.")
    )


class OneDateSerializer(PrefilledFormMixin, StrictFieldsMixin, serializers.Serializer[Any]):
    """``skip/`` and ``take-back/``: one date of the series, by the host event's id."""

    occurrence = EventIdField(help_text=_("The host event's id of a date still to come."))


class EnrolmentStateField(serializers.ChoiceField):
    """An enrolled date's state (``EnrolmentDate.State``), read-only; its own schema
    component (``api/schema.py``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        super().__init__(choices=EnrolmentDate.State.choices, **kwargs)


class EnrolmentDateSerializer(serializers.ModelSerializer[EnrolmentDate]):
    """What became of one date for the enrolled user."""

    state = EnrolmentStateField(
        help_text=_(
            "booked (through the enrolment), held (their own booking), skipped, refused "
            "(see reason) or released (the enrolment ended)."
        )
    )
    occurrence = EventIdField(
        source="occurrence_pk", read_only=True, help_text=_("The host event's id.")
    )

    class Meta:
        model = EnrolmentDate
        fields = ("occurrence", "starts_at", "state", "reason", "updated_at")
        read_only_fields = fields


__all__ = [
    "DayField",
    "EnrolmentCreateSerializer",
    "EnrolmentDateSerializer",
    "EnrolmentEndResultSerializer",
    "EnrolmentEndSerializer",
    "EnrolmentResultSerializer",
    "EnrolmentSerializer",
    "OneDateSerializer",
    "RefusedDateSerializer",
]
