"""The holidays of the coming twelve months on a series' dates, and what becomes of each.

A change plan lists the dates of its generation window (eight weeks by default),
so a change of the holiday settings made in March says nothing of Ascension Day
in May. :func:`plan_holidays_ahead` lists, for the series as a change would
leave it (rule, extra dates, holiday calendar and policy), every date of the
rule in the next :data:`AHEAD_MONTHS` months that falls on a holiday, with its
fate: skipped, moved to another day, or kept. The plan page and the API's
``recurrence-plan/`` answer show it beside the plan; it is not part of the plan
(its hash does not cover it: applying changes nothing beyond the window).

Reads nothing but the series and its rule (one query when not loaded): one
expansion of the rule over the months ahead
(:meth:`~revel_recurring.holiday_placement.HolidayPlacer.fates_between`), the
holiday names from the installed ``holidays`` package in the active language.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dateutil.relativedelta import relativedelta

from ... import rules
from ...exclusions import excluded_between
from ...holiday_placement import HolidayPlacer
from ...holiday_rules import HolidayOutcome
from ...holiday_settings import (
    holiday_settings_of,
    normalize_holiday_settings,
    set_holiday_settings,
)
from ...instants import describe_instant
from ...models import EventSeries, RecurrenceRule
from ..schedule_change import merge_rule_changes
from ..toolbox.plumbing import now_utc
from .changes import Changes, split_changes

#: How many months ahead the holidays on a series' dates are listed.
AHEAD_MONTHS = 12


@dataclass(frozen=True)
class HolidayAhead:
    """A date of the rule on a holiday, and what becomes of it.

    ``outcome`` is ``skipped`` (``no_free_day`` when a ``shift`` found no free day
    in reach), ``shifted`` (the date takes place at ``start``), ``kept`` (the
    policy keeps it) or ``restored`` (an organiser kept it on purpose).
    """

    #: The holiday: the slot's day on the rule zone's wall clock.
    day: dt.date
    #: Its name in the active language.
    holiday: str
    #: The rule's own date on it (UTC).
    slot: dt.datetime
    #: The slot for a person: "Thu 6 May 2027 18:30 (Europe/Berlin)".
    display: str
    outcome: HolidayOutcome
    #: Where the date takes place (UTC): the slot, another day when shifted; None when skipped.
    start: dt.datetime | None
    #: ``start`` for a person, "" when skipped.
    start_display: str = ""
    no_free_day: bool = False
    #: An organiser cancelled the date already (its slot is an exdate of the series).
    cancelled: bool = False


def plan_holidays_ahead(
    series: EventSeries,
    changes: Mapping[str, Any] | None = None,
    *,
    now: dt.datetime | None = None,
    months: int = AHEAD_MONTHS,
) -> tuple[HolidayAhead, ...]:
    """The holidays of the next ``months`` months on the dates of ``series`` as ``changes``
    (a change plan's, :func:`~revel_recurring.services.plans.plan_recurrence_change`)
    would leave it, in date order; empty without a rule or a holiday calendar.

    ``ValidationError`` keyed by field for changes the validators refuse, as the
    plan raises it.
    """
    moment = now_utc(now)
    requested = split_changes(changes)
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    if rule is None:
        return ()
    target, new_rule = changed_series(series, rule, requested)
    return holidays_ahead(target, new_rule, now=moment, months=months)


def changed_series(
    series: EventSeries, rule: RecurrenceRule, changes: Changes
) -> tuple[EventSeries, RecurrenceRule]:
    """Unsaved copies of ``series`` and ``rule`` with ``changes``' rule fields, holiday
    settings and extra dates (what decides where the dates fall)."""
    if changes.rule:
        merged, _changed = merge_rule_changes(rule, changes.rule)
        new_rule = RecurrenceRule(**merged)
        new_rule.normalize()
    else:
        new_rule = rule
    target = copy.copy(series)
    if changes.holidays:
        settings = normalize_holiday_settings(changes.holidays, current=holiday_settings_of(series))
        set_holiday_settings(target, settings)
    if changes.extra_dates is not None:
        target.extra_dates = rules.normalize_exdates(changes.extra_dates)
    return target, new_rule


def holidays_ahead(
    series: EventSeries,
    rule: RecurrenceRule,
    *,
    now: dt.datetime,
    months: int = AHEAD_MONTHS,
) -> tuple[HolidayAhead, ...]:
    """The holidays of the next ``months`` months on the dates of ``series`` under ``rule``
    (the series' own, or the one a change would give it), in date order. No query."""
    spec = series.dates_spec(rule)
    holiday_rule = spec.holidays
    if holiday_rule is None:
        return ()
    start = rules.to_utc(now)
    end = start + relativedelta(months=months)
    # The stored exclusions only (the pending ones are folded in under the lock soon).
    cancelled = excluded_between(series, start, end, pending=(), rule=rule).instants
    zone = rule.timezone
    found = []
    for fate in HolidayPlacer(spec).fates_between(start, end):
        takes_place = fate.takes_place
        found.append(
            HolidayAhead(
                day=fate.day,
                holiday=holiday_rule.name_on(fate.day) or "",
                slot=fate.slot,
                display=describe_instant(fate.slot, zone),
                outcome=fate.outcome,
                start=fate.start if takes_place else None,
                start_display=describe_instant(fate.start, zone) if takes_place else "",
                no_free_day=fate.no_free_day,
                cancelled=fate.slot in cancelled,
            )
        )
    return tuple(found)


__all__ = [
    "AHEAD_MONTHS",
    "HolidayAhead",
    "HolidayOutcome",
    "changed_series",
    "holidays_ahead",
    "plan_holidays_ahead",
]
