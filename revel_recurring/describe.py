"""A recurrence rule as a sentence a person reads.

``describe_rule`` is shared by the API (the rule's ``description``), the admin, the
feeds and the notebooks. ``describe_series`` says what a series' dates are: its
rule, its extra dates and what its holidays do to them. The admin's list and
both sides of a change plan (the plan's ``description`` too) read it, as do the
example project's public pages. Every word goes through gettext and every time and date
is shown on the wall clock of the rule's own zone, which is named in the sentence:
"Every 2 weeks on Monday and Wednesday at 18:30 (Europe/Vienna), until 1 June 2027".
One date and time on its own is ``describe_instant``, which lives in ``instants.py``
(the validators use it, and they are below the models this module refers to) and
is importable from here as before.

The sentence is put together from whole phrases, each its own message, because in
other languages the words around a day change with the day: the article and the
ordinal agree with the weekday ("il secondo martedì", "la seconda domenica"), the
ordinal takes the case of its preposition ("am zweiten Dienstag"), the first of a
month is an ordinal where the other days are not ("le 1er juin", "le 2 juin"), and
an article elides before some numbers ("l'8 marzo", "fino all'11 giugno"). So "on
the second Tuesday" is one message of seventy, and a phrase around a day number has
a context for each kind of day some language words apart. Weekday and month names
are the catalogue's own (with a context), not Django's: Django's Italian ones are
capitalised, as at the start of a line.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.utils import formats
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy

from .instants import describe_instant
from .rules import Frequency, MonthlyType, RuleSpec, to_utc

if TYPE_CHECKING:
    from .models import EventSeries, RecurrenceRule

__all__ = ["describe_instant", "describe_rule", "describe_series", "describe_spec"]


def describe_rule(rule: RecurrenceRule) -> str:
    """The rule as one translatable sentence, in the rule's own zone."""
    return describe_spec(rule.to_spec())


def describe_series(series: EventSeries, rule: RecurrenceRule) -> str:
    """The dates of ``series`` under ``rule`` as one sentence: the rule, the series' extra
    dates and what its holidays do ("...; on holidays (Bayern, Germany) the next free
    day instead": the calendar named by its place, ``HolidayRule.place_name``).

    ``rule`` is the series' own rule, or the one a change would give it: a change
    plan describes the series now and after the change with this one function, so
    what the change leaves alone reads the same on both sides.
    """
    return describe_spec(series.dates_spec(rule))


def describe_spec(spec: RuleSpec) -> str:
    """``describe_rule`` for a :class:`~revel_recurring.rules.RuleSpec` (no model needed)."""
    start = spec.local_dtstart
    values = {"when": _recurrence(spec, start), "time": _time(start.time()), "zone": spec.timezone}
    if start.hour == 1:
        # "a la 1:30", "all'1:30": in Spanish and Italian the hour from one o'clock
        # is singular, every other one plural ("a las 18:30", "alle 18:30").
        sentence = pgettext("from 1:00 to 1:59", "%(when)s at %(time)s (%(zone)s)") % values
    else:
        sentence = _("%(when)s at %(time)s (%(zone)s)") % values
    if spec.count is not None:
        times = ngettext("once", "%(count)d times", spec.count) % {"count": spec.count}
        sentence = _("%(sentence)s, %(times)s") % {"sentence": sentence, "times": times}
    if spec.until is not None:
        until = to_utc(spec.until).astimezone(spec.zone).replace(tzinfo=None)
        sentence = _until(sentence, until, start.time())
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
    values = {"sentence": sentence, "calendar": holidays.place_name}
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
            "days": _join([str(_WEEKDAYS_OF_WEEKLY_RULE[d]) for d in days]),
        }
    if frequency is Frequency.MONTHLY:
        every = ngettext("Every month", "Every %(n)d months", n) % {"n": n}
        on_day = _day_in_month(spec, start)
    else:
        every = ngettext("Every year", "Every %(n)d years", n) % {"n": n}
        # A YEARLY rule recurs on dtstart's day and month (rules.build_rrule).
        values = {"day": start.day, "month": _MONTHS[start.month]}
        on_day = str(_ON_DAY_OF_YEAR[_kind_of_day(start.day)]) % values
    return pgettext("how often, then on which day", "%(every)s %(on_day)s") % {
        "every": every,
        "on_day": on_day,
    }


def _day_in_month(spec: RuleSpec, start: dt.datetime) -> str:
    if spec.monthly_type == MonthlyType.NTH_WEEKDAY and spec.weekday is not None:
        return str(_NTH_WEEKDAY[spec.nth_weekday or 1, spec.weekday])
    day = spec.day_of_month if spec.day_of_month is not None else start.day
    if day == -1:
        return pgettext("monthly rule", "on the last day")
    # English suffixes by rule (1st, 2nd, 3rd, 4th ... 11th, 12th, 13th ... 21st);
    # the first of the month on its own for French ("le 1er", "le 21").
    if day == 1:
        pattern = pgettext("monthly rule on day 1", "on the %(day)dst")
    elif day in (21, 31):
        pattern = pgettext("monthly rule on day 21 or 31", "on the %(day)dst")
    elif day in (2, 22):
        pattern = pgettext("monthly rule on day 2 or 22", "on the %(day)dnd")
    elif day in (3, 23):
        pattern = pgettext("monthly rule on day 3 or 23", "on the %(day)drd")
    else:
        pattern = pgettext("monthly rule on days 4 to 20 and 24 to 30", "on the %(day)dth")
    return pattern % {"day": day}


def _kind_of_day(day: int) -> str:
    # Day 1 is an ordinal in French and Italian ("1er", "1°"); Italian elides the
    # article before 8 and 11 ("l'8", "dall'11").
    if day == 1:
        return "1"
    return "8 or 11" if day in (8, 11) else "other"


def _until(sentence: str, until: dt.datetime, time_of_day: dt.time) -> str:
    values = {
        "sentence": sentence,
        "day": until.day,
        "month": _MONTHS[until.month],
        "year": until.year,
        "time": _time(until.time()),
    }
    if until.time() >= time_of_day:
        return str(_UNTIL[_kind_of_day(until.day)]) % values
    # 'until' falls before that day's occurrence, which therefore does not happen;
    # a bare date would promise it.
    return str(_UNTIL_WITH_TIME[_kind_of_day(until.day)]) % values


def _join(items: Sequence[str]) -> str:
    if len(items) == 1:
        return items[0]
    head = pgettext("list separator", ", ").join(items[:-1])
    return _("%(head)s and %(last)s") % {"head": head, "last": items[-1]}


def _time(value: dt.time) -> str:
    # Seconds only when the rule has them; "18:30" is what organisers write. The
    # format is the language's ("18:30 Uhr" around it in German, "18 h 30" in French).
    if value.second:
        return formats.time_format(value, pgettext("time of a rule, with seconds", "H:i:s"))
    return formats.time_format(value, pgettext("time of a rule", "H:i"))


# "Every week on Monday and Friday": each weekday as a weekly rule's list names it,
# with the article some languages put before each ("le lundi et le vendredi").
_WEEKDAYS_OF_WEEKLY_RULE: tuple[Promise, ...] = (
    pgettext_lazy("weekday in the list of a weekly rule", "Monday"),
    pgettext_lazy("weekday in the list of a weekly rule", "Tuesday"),
    pgettext_lazy("weekday in the list of a weekly rule", "Wednesday"),
    pgettext_lazy("weekday in the list of a weekly rule", "Thursday"),
    pgettext_lazy("weekday in the list of a weekly rule", "Friday"),
    pgettext_lazy("weekday in the list of a weekly rule", "Saturday"),
    pgettext_lazy("weekday in the list of a weekly rule", "Sunday"),
)

# Month names inside a date ("on 14 March", "until 1 June 2027").
_MONTHS: dict[int, Promise] = {
    1: pgettext_lazy("month in a date", "January"),
    2: pgettext_lazy("month in a date", "February"),
    3: pgettext_lazy("month in a date", "March"),
    4: pgettext_lazy("month in a date", "April"),
    5: pgettext_lazy("month in a date", "May"),
    6: pgettext_lazy("month in a date", "June"),
    7: pgettext_lazy("month in a date", "July"),
    8: pgettext_lazy("month in a date", "August"),
    9: pgettext_lazy("month in a date", "September"),
    10: pgettext_lazy("month in a date", "October"),
    11: pgettext_lazy("month in a date", "November"),
    12: pgettext_lazy("month in a date", "December"),
}

_ON_DAY_OF_YEAR: dict[str, Promise] = {
    "1": pgettext_lazy("yearly rule on day 1 of a month", "on %(day)d %(month)s"),
    "8 or 11": pgettext_lazy("yearly rule on day 8 or 11 of a month", "on %(day)d %(month)s"),
    "other": pgettext_lazy("yearly rule on another day of a month", "on %(day)d %(month)s"),
}

_UNTIL: dict[str, Promise] = {
    "1": pgettext_lazy("until day 1 of a month", "%(sentence)s, until %(day)d %(month)s %(year)d"),
    "8 or 11": pgettext_lazy(
        "until day 8 or 11 of a month", "%(sentence)s, until %(day)d %(month)s %(year)d"
    ),
    "other": pgettext_lazy(
        "until another day of a month", "%(sentence)s, until %(day)d %(month)s %(year)d"
    ),
}

_UNTIL_WITH_TIME: dict[str, Promise] = {
    "1": pgettext_lazy(
        "until day 1 of a month", "%(sentence)s, until %(day)d %(month)s %(year)d, %(time)s"
    ),
    "8 or 11": pgettext_lazy(
        "until day 8 or 11 of a month",
        "%(sentence)s, until %(day)d %(month)s %(year)d, %(time)s",
    ),
    "other": pgettext_lazy(
        "until another day of a month",
        "%(sentence)s, until %(day)d %(month)s %(year)d, %(time)s",
    ),
}

# Which weekday of the month, the weekday and the preposition in one message each:
# see the module's docstring for why these are seventy.
_NTH_WEEKDAY: dict[tuple[int, int], Promise] = {
    (1, 0): pgettext_lazy("monthly rule", "on the first Monday"),
    (1, 1): pgettext_lazy("monthly rule", "on the first Tuesday"),
    (1, 2): pgettext_lazy("monthly rule", "on the first Wednesday"),
    (1, 3): pgettext_lazy("monthly rule", "on the first Thursday"),
    (1, 4): pgettext_lazy("monthly rule", "on the first Friday"),
    (1, 5): pgettext_lazy("monthly rule", "on the first Saturday"),
    (1, 6): pgettext_lazy("monthly rule", "on the first Sunday"),
    (2, 0): pgettext_lazy("monthly rule", "on the second Monday"),
    (2, 1): pgettext_lazy("monthly rule", "on the second Tuesday"),
    (2, 2): pgettext_lazy("monthly rule", "on the second Wednesday"),
    (2, 3): pgettext_lazy("monthly rule", "on the second Thursday"),
    (2, 4): pgettext_lazy("monthly rule", "on the second Friday"),
    (2, 5): pgettext_lazy("monthly rule", "on the second Saturday"),
    (2, 6): pgettext_lazy("monthly rule", "on the second Sunday"),
    (3, 0): pgettext_lazy("monthly rule", "on the third Monday"),
    (3, 1): pgettext_lazy("monthly rule", "on the third Tuesday"),
    (3, 2): pgettext_lazy("monthly rule", "on the third Wednesday"),
    (3, 3): pgettext_lazy("monthly rule", "on the third Thursday"),
    (3, 4): pgettext_lazy("monthly rule", "on the third Friday"),
    (3, 5): pgettext_lazy("monthly rule", "on the third Saturday"),
    (3, 6): pgettext_lazy("monthly rule", "on the third Sunday"),
    (4, 0): pgettext_lazy("monthly rule", "on the fourth Monday"),
    (4, 1): pgettext_lazy("monthly rule", "on the fourth Tuesday"),
    (4, 2): pgettext_lazy("monthly rule", "on the fourth Wednesday"),
    (4, 3): pgettext_lazy("monthly rule", "on the fourth Thursday"),
    (4, 4): pgettext_lazy("monthly rule", "on the fourth Friday"),
    (4, 5): pgettext_lazy("monthly rule", "on the fourth Saturday"),
    (4, 6): pgettext_lazy("monthly rule", "on the fourth Sunday"),
    (5, 0): pgettext_lazy("monthly rule", "on the fifth Monday"),
    (5, 1): pgettext_lazy("monthly rule", "on the fifth Tuesday"),
    (5, 2): pgettext_lazy("monthly rule", "on the fifth Wednesday"),
    (5, 3): pgettext_lazy("monthly rule", "on the fifth Thursday"),
    (5, 4): pgettext_lazy("monthly rule", "on the fifth Friday"),
    (5, 5): pgettext_lazy("monthly rule", "on the fifth Saturday"),
    (5, 6): pgettext_lazy("monthly rule", "on the fifth Sunday"),
    (-1, 0): pgettext_lazy("monthly rule", "on the last Monday"),
    (-1, 1): pgettext_lazy("monthly rule", "on the last Tuesday"),
    (-1, 2): pgettext_lazy("monthly rule", "on the last Wednesday"),
    (-1, 3): pgettext_lazy("monthly rule", "on the last Thursday"),
    (-1, 4): pgettext_lazy("monthly rule", "on the last Friday"),
    (-1, 5): pgettext_lazy("monthly rule", "on the last Saturday"),
    (-1, 6): pgettext_lazy("monthly rule", "on the last Sunday"),
    (-2, 0): pgettext_lazy("monthly rule", "on the second-to-last Monday"),
    (-2, 1): pgettext_lazy("monthly rule", "on the second-to-last Tuesday"),
    (-2, 2): pgettext_lazy("monthly rule", "on the second-to-last Wednesday"),
    (-2, 3): pgettext_lazy("monthly rule", "on the second-to-last Thursday"),
    (-2, 4): pgettext_lazy("monthly rule", "on the second-to-last Friday"),
    (-2, 5): pgettext_lazy("monthly rule", "on the second-to-last Saturday"),
    (-2, 6): pgettext_lazy("monthly rule", "on the second-to-last Sunday"),
    (-3, 0): pgettext_lazy("monthly rule", "on the third-to-last Monday"),
    (-3, 1): pgettext_lazy("monthly rule", "on the third-to-last Tuesday"),
    (-3, 2): pgettext_lazy("monthly rule", "on the third-to-last Wednesday"),
    (-3, 3): pgettext_lazy("monthly rule", "on the third-to-last Thursday"),
    (-3, 4): pgettext_lazy("monthly rule", "on the third-to-last Friday"),
    (-3, 5): pgettext_lazy("monthly rule", "on the third-to-last Saturday"),
    (-3, 6): pgettext_lazy("monthly rule", "on the third-to-last Sunday"),
    (-4, 0): pgettext_lazy("monthly rule", "on the fourth-to-last Monday"),
    (-4, 1): pgettext_lazy("monthly rule", "on the fourth-to-last Tuesday"),
    (-4, 2): pgettext_lazy("monthly rule", "on the fourth-to-last Wednesday"),
    (-4, 3): pgettext_lazy("monthly rule", "on the fourth-to-last Thursday"),
    (-4, 4): pgettext_lazy("monthly rule", "on the fourth-to-last Friday"),
    (-4, 5): pgettext_lazy("monthly rule", "on the fourth-to-last Saturday"),
    (-4, 6): pgettext_lazy("monthly rule", "on the fourth-to-last Sunday"),
    (-5, 0): pgettext_lazy("monthly rule", "on the fifth-to-last Monday"),
    (-5, 1): pgettext_lazy("monthly rule", "on the fifth-to-last Tuesday"),
    (-5, 2): pgettext_lazy("monthly rule", "on the fifth-to-last Wednesday"),
    (-5, 3): pgettext_lazy("monthly rule", "on the fifth-to-last Thursday"),
    (-5, 4): pgettext_lazy("monthly rule", "on the fifth-to-last Friday"),
    (-5, 5): pgettext_lazy("monthly rule", "on the fifth-to-last Saturday"),
    (-5, 6): pgettext_lazy("monthly rule", "on the fifth-to-last Sunday"),
}
