"""The next slots of a series' rule and what became of each (a read, no writes).

Shared by the API's ``preview/`` and whoever else wants to show a schedule: each
slot is *materialized* (a host event holds it as its original slot, even if it
was moved), *excluded* (cancelled, deleted or skipped by a holiday, see
:mod:`~revel_recurring.exclusions`; this wins over materialized, since a
cancelled occurrence will not take place) or *pending* (generation will create
it when the slot enters the window). A slot a holiday touched names it, and one
a holiday moved says where it takes place (:func:`holiday_of`).
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass
from typing import Literal

from django.utils import timezone

from . import rules
from .exclusions import ExclusionReason, excluded_between
from .holiday_placement import HolidayPlacer
from .holiday_rules import HolidayFate, HolidayOutcome
from .models import EventSeries, RecurrenceRule, get_event_model

SlotState = Literal["materialized", "excluded", "pending"]


@dataclass(frozen=True)
class UpcomingSlot:
    """One slot: its UTC instant, the same instant on the rule zone's clock, its state.

    ``excluded_because`` says why an excluded slot is excluded (None otherwise).
    ``holiday`` names the holiday on the slot's day in the active language ("" for
    none); ``starts_at`` is where the date takes place: the slot itself, the day a
    holiday moved it to, or None for an excluded slot.
    """

    start: dt.datetime
    local_start: dt.datetime
    state: SlotState
    excluded_because: ExclusionReason | None = None
    holiday: str = ""
    starts_at: dt.datetime | None = None


def holiday_of(placer: HolidayPlacer | None, slot: dt.datetime) -> tuple[HolidayFate | None, str]:
    """What a holiday did to ``slot`` and the holiday's name in the active language.

    ``(None, "")`` when no holiday touched it or the series has no calendar.
    ``placer`` is the series' (``Exclusions.holidays``, ``exclusions.holiday_placer``);
    answered without a query.
    """
    fate = None if placer is None else placer.fate(slot)
    if fate is None or placer is None or placer.rule is None:
        return None, ""
    return fate, placer.rule.name_on(fate.day) or ""


def shifted_start(fate: HolidayFate | None) -> dt.datetime | None:
    """Where a holiday moved a date to, None when it did not move it."""
    if fate is None or fate.outcome is not HolidayOutcome.SHIFTED:
        return None
    return fate.start


def upcoming_slots(
    series: EventSeries, *, count: int, now: dt.datetime | None = None
) -> list[UpcomingSlot]:
    """The first ``count`` slots of the rule at or after ``now`` (three queries at most).

    Empty for a series without a rule or an exhausted one. ``count`` is taken as
    given; callers facing the public cap it.
    """
    if series.recurrence_rule_id is None or count < 1:
        return []
    rule = series.recurrence_rule
    if rule is None:
        rule = RecurrenceRule.objects.get(pk=series.recurrence_rule_id)
    spec = series.dates_spec(rule)
    moment = rules.to_utc(now) if now is not None else timezone.now()
    floor = moment.astimezone(spec.zone).replace(tzinfo=None) - dt.timedelta(days=1)
    instants = list(
        itertools.islice(
            (s for s in rules.iter_occurrences(spec, start_wall_clock=floor) if s >= moment),
            count,
        )
    )
    if not instants:
        return []
    taken = set(
        get_event_model()
        ._default_manager.filter(
            series_id=series.pk,
            is_template=False,
            recurrence_id__gte=instants[0],
            recurrence_id__lte=instants[-1],
        )
        .values_list("recurrence_id", flat=True)
    )
    taken = {rules.to_utc(value) for value in taken if value is not None}
    excluded = excluded_between(series, instants[0], instants[-1], rule=rule)
    result = []
    for instant in instants:
        reason = excluded.reason(instant)
        state: SlotState = (
            "excluded" if reason is not None else "materialized" if instant in taken else "pending"
        )
        fate, holiday = holiday_of(excluded.holidays, instant)
        starts_at = None if reason is not None else shifted_start(fate) or instant
        result.append(
            UpcomingSlot(instant, instant.astimezone(spec.zone), state, reason, holiday, starts_at)
        )
    return result


__all__ = ["SlotState", "UpcomingSlot", "holiday_of", "shifted_start", "upcoming_slots"]
