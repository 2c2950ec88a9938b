"""A recurrence rule as a sentence a person reads.

``describe_rule`` is shared by the API (the rule's ``description``), the admin, the
feeds and the notebooks. Every word goes through gettext and every time and date
is shown on the wall clock of the rule's own zone, which is named in the sentence:
"Every 2 weeks on Monday and Wednesday at 18:30 (Europe/Vienna), until 1 June 2027".
One date and time on its own is ``describe_instant``, which lives in ``instants.py``
(the validators use it, and they are below the models this module refers to) and
is importable from here as before.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.utils import formats
from django.utils.dates import MONTHS, WEEKDAYS
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from .instants import describe_instant
from .rules import Frequency, MonthlyType, RuleSpec, to_utc

if TYPE_CHECKING:
    from .models import RecurrenceRule

__all__ = ["describe_instant", "describe_rule", "describe_spec"]


def describe_rule(rule: RecurrenceRule) -> str:
    """The rule as one translatable sentence, in the rule's own zone."""
    return describe_spec(rule.to_spec())


def describe_spec(spec: RuleSpec) -> str:
    """``describe_rule`` for a :class:`~revel_recurring.rules.RuleSpec` (no model needed)."""
    start = spec.local_dtstart
    sentence = _("%(when)s at %(time)s (%(zone)s)") % {
        "when": _recurrence(spec, start),
        "time": _time(start.time()),
        "zone": spec.timezone,
    }
    if spec.count is not None:
        times = ngettext("once", "%(count)d times", spec.count) % {"count": spec.count}
        sentence = _("%(sentence)s, %(times)s") % {"sentence": sentence, "times": times}
    if spec.until is not None:
        until = to_utc(spec.until).astimezone(spec.zone).replace(tzinfo=None)
        sentence = _("%(sentence)s, until %(until)s") % {
            "sentence": sentence,
            "until": _until(until, start.time()),
        }
    if spec.extra_dates:
        sentence = ngettext(
            "%(sentence)s, and on %(count)d more date",
            "%(sentence)s, and on %(count)d more dates",
            len(spec.extra_dates),
        ) % {"sentence": sentence, "count": len(spec.extra_dates)}
    return _with_holidays(sentence, spec)


def _with_holidays(sentence: str, spec: RuleSpec) -> str:
    """``sentence`` with what the holidays of the series' calendar do to its dates."""
    holidays = spec.holidays
    if holidays is None:
        return sentence
    values = {"sentence": sentence, "calendar": holidays.calendar_name}
    if holidays.policy == "skip":
        return _("%(sentence)s, except on holidays (%(calendar)s)") % values
    if holidays.policy == "shift":
        return _("%(sentence)s; on holidays (%(calendar)s) the next free day instead") % values
    return sentence


def _recurrence(spec: RuleSpec, start: dt.datetime) -> str:
    frequency, n = Frequency(spec.frequency), spec.interval
    if frequency is Frequency.DAILY:
        return ngettext("Every day", "Every %(n)d days", n) % {"n": n}
    if frequency is Frequency.WEEKLY:
        every = ngettext("Every week", "Every %(n)d weeks", n) % {"n": n}
        days = sorted(set(spec.weekdays)) or [start.weekday()]
        return _("%(every)s on %(days)s") % {
            "every": every,
            "days": _join([str(WEEKDAYS[d]) for d in days]),
        }
    if frequency is Frequency.MONTHLY:
        every = ngettext("Every month", "Every %(n)d months", n) % {"n": n}
        return _("%(every)s on %(day)s") % {"every": every, "day": _day_in_month(spec, start)}
    every = ngettext("Every year", "Every %(n)d years", n) % {"n": n}
    # A YEARLY rule recurs on dtstart's day and month (rules.build_rrule).
    day_and_month = pgettext("day and month of a yearly rule", "%(day)d %(month)s") % {
        "day": start.day,
        "month": MONTHS[start.month],
    }
    return _("%(every)s on %(date)s") % {"every": every, "date": day_and_month}


def _day_in_month(spec: RuleSpec, start: dt.datetime) -> str:
    if spec.monthly_type == MonthlyType.NTH_WEEKDAY and spec.weekday is not None:
        return _("the %(nth)s %(weekday)s") % {
            "nth": _nth(spec.nth_weekday or 1),
            "weekday": WEEKDAYS[spec.weekday],
        }
    day = spec.day_of_month if spec.day_of_month is not None else start.day
    if day == -1:
        return _("the last day")
    return _("the %(ordinal)s") % {"ordinal": _ordinal(day)}


def _nth(n: int) -> str:
    names = {
        1: pgettext("nth weekday of the month", "first"),
        2: pgettext("nth weekday of the month", "second"),
        3: pgettext("nth weekday of the month", "third"),
        4: pgettext("nth weekday of the month", "fourth"),
        5: pgettext("nth weekday of the month", "fifth"),
        -1: pgettext("nth weekday of the month", "last"),
        -2: pgettext("nth weekday of the month", "second-to-last"),
        -3: pgettext("nth weekday of the month", "third-to-last"),
        -4: pgettext("nth weekday of the month", "fourth-to-last"),
        -5: pgettext("nth weekday of the month", "fifth-to-last"),
    }
    return names[n]


def _ordinal(day: int) -> str:
    # English suffixes by rule; each pattern is its own message so that a language
    # with other ordinal forms can translate them all to, say, "%(day)d.".
    if 11 <= day % 100 <= 13:
        pattern = pgettext("ordinal 11, 12, 13", "%(day)dth")
    else:
        pattern = {
            1: pgettext("ordinal ending in 1", "%(day)dst"),
            2: pgettext("ordinal ending in 2", "%(day)dnd"),
            3: pgettext("ordinal ending in 3", "%(day)drd"),
        }.get(day % 10, pgettext("ordinal ending in 0, 4-9", "%(day)dth"))
    return pattern % {"day": day}


def _join(items: Sequence[str]) -> str:
    if len(items) == 1:
        return items[0]
    head = pgettext("list separator", ", ").join(items[:-1])
    return _("%(head)s and %(last)s") % {"head": head, "last": items[-1]}


def _time(value: dt.time) -> str:
    # Seconds only when the rule has them; "18:30" is what organisers write.
    fmt = "H:i:s" if value.second else "H:i"
    return formats.time_format(value, fmt)


def _until(until: dt.datetime, time_of_day: dt.time) -> str:
    date = formats.date_format(until, pgettext("date of a rule's until", "j F Y"))
    if until.time() >= time_of_day:
        return date
    # 'until' falls before that day's occurrence, which therefore does not happen;
    # a bare date would promise it.
    return _("%(date)s, %(time)s") % {"date": date, "time": _time(until.time())}
