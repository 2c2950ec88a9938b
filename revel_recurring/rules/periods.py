"""The period of a rule an instant falls in: FREQ x INTERVAL counted from DTSTART.

RFC 5545 expands a rule period by period: a WEEKLY rule with INTERVAL=2 has one
period every two weeks, starting with the week (beginning on WKST, Monday unless
the rule says otherwise: ours never does) that holds DTSTART; a MONTHLY rule one
every INTERVAL months from DTSTART's month, and so on. When a schedule changes, a
date that no longer fits the new rule moves to the new rule's date in the same
period (:mod:`revel_recurring.services.plans.partners`): "this week's class" stays
this week's class at its new time or day.

Counted on the wall clock of the rule's zone, like every date of the rule.
"""

from __future__ import annotations

import datetime as dt

from .spec import Frequency, RuleSpec

#: RFC 5545's default week start (WKST=MO), as ``date.weekday()`` numbers it.
WEEK_START = 0

#: The longest a period of one interval lasts, per frequency: how far to look for
#: the dates that share a period with an instant.
_LONGEST = {
    Frequency.DAILY: dt.timedelta(days=1),
    Frequency.WEEKLY: dt.timedelta(days=7),
    Frequency.MONTHLY: dt.timedelta(days=31),
    Frequency.YEARLY: dt.timedelta(days=366),
}


def period_of(spec: RuleSpec, instant: dt.datetime) -> int:
    """The number of the period of ``spec`` that ``instant`` falls in (0: DTSTART's).

    Negative for an instant in a period before DTSTART's. Two instants share a
    period exactly when their numbers are equal.
    """
    day = instant.astimezone(spec.zone).date()
    first = spec.dtstart.astimezone(spec.zone).date()
    return _units_between(spec.frequency, first, day) // spec.interval


#: How far a date may move at most: a period can be years long (a yearly rule with an
#: interval), but a date does not move to another year's.
SPAN_CAP = dt.timedelta(days=366)


def period_span(spec: RuleSpec) -> dt.timedelta:
    """How far from an instant to look for the instants sharing its period: the length of
    one period of ``spec``, at most :data:`SPAN_CAP`."""
    unit = _LONGEST[spec.frequency]
    return unit * min(spec.interval, SPAN_CAP // unit + 1) if spec.interval else unit


def _units_between(frequency: Frequency, first: dt.date, day: dt.date) -> int:
    """Whole frequency units (days, weeks from WKST, months, years) from ``first`` to ``day``."""
    if frequency is Frequency.DAILY:
        return (day - first).days
    if frequency is Frequency.WEEKLY:
        return (_week_start(day) - _week_start(first)).days // 7
    if frequency is Frequency.MONTHLY:
        return (day.year - first.year) * 12 + day.month - first.month
    return day.year - first.year


def _week_start(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=(day.weekday() - WEEK_START) % 7)


__all__ = ["SPAN_CAP", "WEEK_START", "period_of", "period_span"]
