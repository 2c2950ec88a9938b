"""A change plan as the API shows it (``recurrence-plan/``, and the 409 of a late apply).

Read-only shapes of :class:`~revel_recurring.services.plans.RecurrencePlan`.
Outside the serializers package (like ``templates.py``) and importing nothing of
the API but its fields: ``errors.py`` renders the fresh plan of a
``PlanOutdatedError``, and the serializers package imports ``errors.py``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ..holiday_rules import HolidayOutcome
from ..services.plans import ExcludedBecause, RecurrencePlan
from ..services.plans.holidays_ahead import HolidayAhead
from .fields import AwareDateTimeField, EventIdField, EventStatusField
from .plan_keys import PlanRequest


class LocalDateTimeField(serializers.DateTimeField):
    """An instant shown with the offset of the zone it carries (the rule's), not in UTC."""

    def to_representation(self, value: dt.datetime) -> str:
        return value.isoformat()


class SortedNamesField(serializers.ListField):
    """A set of names as a sorted list (a frozenset has no stable order)."""

    child = serializers.CharField()

    def to_representation(self, data: Any) -> list[Any]:
        return super().to_representation(sorted(data))


class PlannedOccurrenceSerializer(serializers.Serializer[Any]):
    """A materialized future occurrence the plan judges, with its bookings."""

    id = EventIdField(help_text=_("The host event's id."))
    start = AwareDateTimeField(help_text=_("Its current start, UTC."))
    local = LocalDateTimeField(help_text=_("The same instant in the rule's zone, with offset."))
    display = serializers.CharField(
        help_text=_('The start for a person: "Thu 3 Dec 2026 18:30 (Europe/Berlin)".')
    )
    slot = AwareDateTimeField(
        allow_null=True, help_text=_("Its original slot (RECURRENCE-ID), UTC; null without one.")
    )
    status = EventStatusField(help_text=_("The host's status value."))
    is_modified = serializers.BooleanField(
        help_text=_(
            "Moved or edited by hand: judged by its slot, never cancelled by `cancel_drift`."
        )
    )
    bookings = serializers.IntegerField(help_text=_("How many bookings it holds."))
    booked = serializers.BooleanField(help_text=_("`bookings` > 0."))
    enrolled = serializers.IntegerField(
        help_text=_(
            "How many enrolled users are on it (booked through their enrolment, or "
            "holding a booking of their own), among `bookings`. A move keeps them (the "
            "same row) and so does a cancellation; 0 on a site without enrolments. Not "
            "covered by `hash`."
        )
    )
    moves_to = AwareDateTimeField(
        allow_null=True,
        help_text=_(
            "For a drifted date: where applying moves it, the same row at a new date "
            "(UTC): the new rule's date in the same period (weeks counted from Monday, "
            "months, years from the rule's start), or, after a holiday policy change, "
            "where its own date now takes place. Dates without bookings move under "
            "every `cancel_drift`; booked ones under `all` only. Null when it has "
            "nowhere to go (then it is cancelled as `cancel_drift` says)."
        ),
    )
    new_slot = AwareDateTimeField(
        allow_null=True,
        help_text=_(
            "With `moves_to` to a date of the new rule: the slot the date takes "
            "(its `recurrence_id` after the move), UTC. Null when the slot stays."
        ),
    )


class PlannedDateSerializer(serializers.Serializer[Any]):
    """A date of the new rule that generation would create."""

    start = AwareDateTimeField(help_text=_("UTC."))
    local = LocalDateTimeField(help_text=_("The same instant in the rule's zone, with offset."))
    display = serializers.CharField()
    shifted_from = AwareDateTimeField(
        allow_null=True,
        help_text=_("The rule's own date when a holiday moved the date here, UTC; else null."),
    )
    holiday = serializers.CharField(
        help_text=_("The holiday that moved or skipped the date, in the active language; or ''.")
    )
    beside = EventIdField(
        allow_null=True,
        help_text=_(
            "The id of a booked drifted date that would move here if it were moved: the "
            "new date is created beside it while it stays (`none`, `unbooked`), and not "
            "at all when it moves (`all`). Null for any other new date."
        ),
    )
    enrolled = serializers.IntegerField(
        help_text=_(
            "How many enrolled users creating the date would book (their enrolment "
            "covers its day); 0 for a date created as a draft. Not covered by `hash`."
        )
    )


class ExcludedDateSerializer(PlannedDateSerializer):
    """A date of the new rule that an exclusion skips."""

    # A skipped date books nobody.
    enrolled = None  # type: ignore[assignment]

    reason = serializers.ChoiceField(
        choices=[(reason.value, reason.value) for reason in ExcludedBecause],
        help_text=_(
            "`cancelled`: an occurrence on that date was cancelled; `exdate`: excluded "
            "without one (a deleted occurrence's slot, or set by hand); `holiday`: a "
            "holiday of the series' holiday calendar skips it (`holiday` names it)."
        ),
    )


class RecurrencePlanSerializer(serializers.Serializer[RecurrencePlan]):
    """What a change of the rule, window or extra dates would do; nothing was written."""

    changed = SortedNamesField(
        help_text=_(
            "The rule and window fields the change really alters, and `extra_dates` when "
            "it changes them; empty for none."
        )
    )
    cursor_reset = serializers.BooleanField(
        help_text=_("The generation cursor would be reset (the next run walks the new rule).")
    )
    description = serializers.CharField(help_text=_("The new rule as a sentence."))
    rrule_string = serializers.CharField()
    timezone = serializers.CharField(help_text=_("The new rule's IANA zone."))
    generation_window_weeks = serializers.IntegerField()
    horizon = AwareDateTimeField(help_text=_("The end of the window the plan looked at, UTC."))
    stay = PlannedOccurrenceSerializer(
        many=True, help_text=_("Future occurrences that still fit the new rule.")
    )
    drift = PlannedOccurrenceSerializer(
        many=True,
        help_text=_(
            "Future occurrences that would no longer fit, with their bookings and where "
            "each would move (`moves_to`). Applying moves those without bookings that "
            "can move, and cancels or keeps the others as `cancel_drift` says."
        ),
    )
    new = PlannedDateSerializer(
        many=True,
        help_text=_(
            "Dates applying would create at once, within the window, the booked drifted "
            "dates staying where they are (see `beside`); not those other dates move to."
        ),
    )
    cancelled_moves = PlannedOccurrenceSerializer(
        many=True,
        help_text=_(
            "Cancelled future dates that move with the schedule (`moves_to`) and stay "
            "cancelled there, so the new rule does not bring them back."
        ),
    )
    excluded = ExcludedDateSerializer(
        many=True, help_text=_("Dates of the new rule within the window that stay skipped.")
    )
    people_told = serializers.IntegerField(
        help_text=_(
            "How many people booked on the dates applying would move or cancel (for a "
            "split: on every booked date that changes series) would get one message each "
            "with `notify=all`; 0 when the site does not say who is booked. Not covered "
            "by `hash`."
        )
    )
    enrolled = serializers.IntegerField(
        help_text=_(
            "How many users are enrolled in the series from today on (for a split: the "
            "enrolments the continuation takes on from the split date); 0 on a site "
            "without enrolments. Not covered by `hash`."
        )
    )
    enrolled_new = serializers.IntegerField(
        help_text=_(
            "How many distinct enrolled users the `new` dates would book. Not covered by `hash`."
        )
    )
    hash = serializers.CharField(
        help_text=_(
            "Send it to `recurrence-apply/` (to `split/` for a split's plan) as `hash`, "
            "with the same body: the change applies only if it still matches. 80 "
            "characters; it names this request, so it fits no other change."
        )
    )


class HolidayAheadSerializer(serializers.Serializer[Any]):
    """A date of the new rule in the months ahead that falls on a holiday, and its fate."""

    day = serializers.DateField(help_text=_("The holiday, on the rule zone's calendar."))
    holiday = serializers.CharField(help_text=_("Its name, in the active language."))
    slot = AwareDateTimeField(help_text=_("The rule's date on the holiday, UTC."))
    display = serializers.CharField(help_text=_("The rule's date for a person."))
    outcome = serializers.ChoiceField(
        choices=[(outcome.value, outcome.value) for outcome in HolidayOutcome],
        help_text=_(
            "`skipped`: the date does not take place; `shifted`: it takes place at "
            "`start`, on the next free day; `kept`: the policy keeps it; `restored`: "
            "an organiser kept it on purpose."
        ),
    )
    start = AwareDateTimeField(
        allow_null=True, help_text=_("Where the date takes place, UTC; null when skipped.")
    )
    start_display = serializers.CharField(help_text=_("`start` for a person; '' when skipped."))
    no_free_day = serializers.BooleanField(
        help_text=_("Skipped because moving it found no free day in the week after.")
    )
    cancelled = serializers.BooleanField(
        help_text=_("An organiser cancelled the date already (it stays cancelled).")
    )


class RecurrencePlanAnswerSerializer(RecurrencePlanSerializer):
    """The plan, and the holidays of the months ahead on the dates the change leaves."""

    holidays_ahead = HolidayAheadSerializer(
        many=True,
        read_only=True,
        help_text=_(
            "The dates of the new rule in the next twelve months (also beyond the "
            "window) that fall on a holiday of the new calendar, with what the new policy "
            "does to each. Not covered by `hash`: empty without a holiday calendar."
        ),
    )


class SplitPlanAnswerSerializer(RecurrencePlanSerializer):
    """``split-plan/``'s answer: the continuation's plan, and the title of its dates."""

    title = serializers.CharField(
        allow_null=True,
        read_only=True,
        help_text=_(
            "The title each date of the continuation gets: the `template`'s when given, "
            "else a new `name`, else the dates' title as it is; null when the host's "
            "events have no title field."
        ),
    )


def split_plan_answer(
    plan: RecurrencePlan, title: str | None, request: PlanRequest | None = None
) -> dict[str, Any]:
    """``split-plan/``'s answer: the plan (:func:`plan_data`, its hash handed out for
    ``request``) and the dates' title."""
    return {**plan_data(plan, request), "title": title}


class PlanOutdatedSerializer(serializers.Serializer[Any]):
    """The 409 of a plan applied too late (``recurrence-apply/``, ``split/``): the series
    changed since the plan was made, and nothing was written."""

    detail = serializers.CharField()
    plan = RecurrencePlanSerializer(
        allow_null=True,
        required=False,
        help_text=_(
            "The fresh plan of the same change; review it and apply again with its "
            "`hash`. Null when the change no longer applies at all (`detail` says why: "
            "the date of a split was taken by another split, for one). Absent when the "
            "series cannot change at all (no rule, or no template to split)."
        ),
    )


#: The name of the 409 of ``split/`` before it became :class:`PlanOutdatedSerializer`.
SplitOutdatedSerializer = PlanOutdatedSerializer


def plan_data(plan: RecurrencePlan, request: PlanRequest | None = None) -> dict[str, Any]:
    """The JSON-ready plan, as a plain dict: serializer data would carry the plan as its
    ``instance``, which the browsable API then checks object permissions on.

    With ``request`` (the request the plan answers) its ``hash`` is the one the
    API hands out: the plan's digest and the request's check (:mod:`.plan_keys`).
    """
    data = dict(RecurrencePlanSerializer(plan).data)
    if request is not None:
        data["hash"] = request.key(plan.hash)
    return data


def plan_answer(
    plan: RecurrencePlan, ahead: tuple[HolidayAhead, ...], request: PlanRequest | None = None
) -> dict[str, Any]:
    """``recurrence-plan/``'s answer: the plan (:func:`plan_data`, its hash handed out for
    ``request``) and the holidays ahead."""
    return {
        **plan_data(plan, request),
        "holidays_ahead": HolidayAheadSerializer(ahead, many=True).data,
    }


__all__ = [
    "ExcludedDateSerializer",
    "HolidayAheadSerializer",
    "PlanOutdatedSerializer",
    "PlannedDateSerializer",
    "PlannedOccurrenceSerializer",
    "RecurrencePlanAnswerSerializer",
    "RecurrencePlanSerializer",
    "SplitOutdatedSerializer",
    "SplitPlanAnswerSerializer",
    "plan_answer",
    "plan_data",
    "split_plan_answer",
]
