"""The parts of an RRULE, each read into the rule fields of a series or refused.

:func:`rule_fields` reads one RRULE (as icalendar parsed it) in named steps: the
parts no series can hold (:func:`_check_part_names`), the frequency, the plain
parts (INTERVAL, COUNT, UNTIL), what BYDAY, BYMONTHDAY and BYMONTH say for the
frequency (:func:`_frequency_parts`) and the week start (:func:`_check_wkst`).
Every refusal is recorded in :class:`Errors`, keyed by the part, so that one
answer names all of them.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any
from zoneinfo import ZoneInfo

from dateutil import rrule as du
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from ..rules import _DU_WEEKDAYS, Frequency, MonthlyType
from ..rules import _ICAL_WEEKDAYS as _WEEKDAYS

_UNSUPPORTED_FREQUENCIES = ("SECONDLY", "MINUTELY", "HOURLY")
_NEVER_EXPRESSIBLE = {
    "BYSETPOS": gettext_lazy("a position within the set (BYSETPOS)"),
    "BYHOUR": gettext_lazy("hours within the day (BYHOUR); a series has one start time"),
    "BYMINUTE": gettext_lazy("minutes within the hour (BYMINUTE); a series has one start time"),
    "BYSECOND": gettext_lazy("seconds within the minute (BYSECOND); a series has one start time"),
    "BYYEARDAY": gettext_lazy("days of the year (BYYEARDAY)"),
    "BYWEEKNO": gettext_lazy("week numbers (BYWEEKNO)"),
    "RSCALE": gettext_lazy("non-Gregorian calendars (RSCALE)"),
    "SKIP": gettext_lazy("the SKIP part of RFC 7529"),
}
_HANDLED = {"FREQ", "INTERVAL", "COUNT", "UNTIL", "BYDAY", "BYMONTHDAY", "BYMONTH", "WKST"}


class Errors:
    """The refusals found so far, keyed by the part they are about."""

    def __init__(self) -> None:
        self.by_part: dict[str, list[str]] = {}

    def add(self, part: str, message: str) -> None:
        # Each message names its part, for readers who see the messages without keys.
        text = message if part in message else f"{part}: {message}"
        self.by_part.setdefault(part, []).append(text)

    def raise_if_any(self) -> None:
        """Raise a ``ValidationError`` keyed by part when anything was refused."""
        if self.by_part:
            raise ValidationError(self.by_part)


def single(rule: Any, part: str, errors: Errors) -> Any:
    """The one value of ``part`` in ``rule``, None when absent or given several times."""
    values = list(rule.get(part, []))
    if len(values) > 1:
        errors.add(
            part,
            gettext("Give one %(part)s value, got %(count)s.")
            % {"part": part, "count": len(values)},
        )
        return None
    return values[0] if values else None


def _until_of(value: Any, zone: str, errors: Errors) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            # RFC 5545 §3.3.10 asks for UTC when DTSTART has a TZID; a local UNTIL is
            # read on the rule's wall clock, as most clients do.
            return value.replace(tzinfo=ZoneInfo(zone))
        return value
    if isinstance(value, dt.date):
        # A DATE: every occurrence on that day still counts.
        return dt.datetime.combine(value, dt.time(23, 59, 59), tzinfo=ZoneInfo(zone))
    errors.add(
        "UNTIL",
        gettext("UNTIL must be a date or a date and time, got %(value)s.") % {"value": repr(value)},
    )
    return None


def rule_fields(rule: Any, dtstart: dt.datetime, zone: str, errors: Errors) -> dict[str, Any]:
    """The rule fields ``rule`` (an RRULE icalendar read) gives from ``dtstart`` in ``zone``.

    What cannot be expressed is recorded in ``errors``; the fields are then incomplete.
    """
    _check_part_names(rule, errors)
    frequency = _frequency(rule, errors)
    data: dict[str, Any] = {
        "frequency": frequency,
        "interval": single(rule, "INTERVAL", errors) or 1,
        "dtstart": dtstart,
        "timezone": zone,
        "count": single(rule, "COUNT", errors),
        "until": None,
        "weekdays": [],
    }
    until = single(rule, "UNTIL", errors)
    if until is not None:
        data["until"] = _until_of(until, zone, errors)
    if frequency in {f.value for f in Frequency}:
        data.update(_frequency_parts(frequency, rule, dtstart, errors))
    _check_wkst(rule, data, errors)
    return data


def _check_part_names(rule: Any, errors: Errors) -> None:
    """Refuse the parts no series can hold, and those this reader does not know."""
    for part in rule:
        name = str(part).upper()
        if name in _NEVER_EXPRESSIBLE:
            errors.add(
                name,
                gettext("%(name)s cannot be expressed: %(reason)s.")
                % {"name": name, "reason": _NEVER_EXPRESSIBLE[name]},
            )
        elif name not in _HANDLED:
            errors.add(name, gettext("The rule part %(name)s is not supported.") % {"name": name})


def _frequency(rule: Any, errors: Errors) -> str:
    """FREQ, upper case; refused when a series cannot recur that way."""
    frequency = str(single(rule, "FREQ", errors) or "").upper()
    if frequency in _UNSUPPORTED_FREQUENCIES:
        errors.add(
            "FREQ",
            gettext("FREQ=%(frequency)s cannot be expressed: a series recurs at most daily.")
            % {"frequency": frequency},
        )
    elif frequency not in {f.value for f in Frequency}:
        errors.add("FREQ", gettext("FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY."))
    return frequency


def _frequency_parts(
    frequency: str, rule: Any, dtstart: dt.datetime, errors: Errors
) -> dict[str, Any]:
    """The fields BYDAY, BYMONTHDAY and BYMONTH give a rule of ``frequency``."""
    weekdays = _weekdays(rule, errors)
    month_days = list(rule.get("BYMONTHDAY", []))
    fields: dict[str, Any] = {}
    if frequency == "DAILY" and weekdays:
        fields = _daily_weekdays(weekdays, errors)
    elif frequency == "WEEKLY":
        fields = _weekly_weekdays(weekdays, errors)
    elif frequency == "MONTHLY":
        fields = _monthly_day(weekdays, month_days, dtstart, errors)
    elif weekdays:
        errors.add(
            "BYDAY",
            gettext("A %(frequency)s rule with weekdays cannot be expressed.")
            % {"frequency": frequency},
        )
    _check_days_and_months(frequency, month_days, list(rule.get("BYMONTH", [])), dtstart, errors)
    return fields


def _daily_weekdays(weekdays: list[tuple[int | None, int]], errors: Errors) -> dict[str, Any]:
    """Every day but only on these weekdays: a weekly rule on them."""
    if any(n is not None for n, _ in weekdays):
        errors.add(
            "BYDAY",
            gettext("A DAILY rule takes plain weekdays (MO, TU, ...), no numbers."),
        )
        return {}
    return {"frequency": Frequency.WEEKLY.value, "weekdays": sorted({d for _, d in weekdays})}


def _weekly_weekdays(weekdays: list[tuple[int | None, int]], errors: Errors) -> dict[str, Any]:
    """The weekdays of a weekly rule, which take no position."""
    if any(n is not None for n, _ in weekdays):
        errors.add(
            "BYDAY",
            gettext("A WEEKLY rule takes plain weekdays (MO, TU, ...), no numbers."),
        )
    return {"weekdays": sorted({d for _, d in weekdays})}


def _monthly_day(
    weekdays: list[tuple[int | None, int]],
    month_days: list[int],
    dtstart: dt.datetime,
    errors: Errors,
) -> dict[str, Any]:
    """A monthly rule's day: one weekday of the month, or one day of the month."""
    if weekdays and month_days:
        errors.add(
            "BYMONTHDAY",
            gettext("A weekday and a day of the month together cannot be expressed."),
        )
        return {}
    if weekdays:
        return _nth_weekday(weekdays, errors)
    return _day_of_month(month_days, dtstart, errors)


def _nth_weekday(weekdays: list[tuple[int | None, int]], errors: Errors) -> dict[str, Any]:
    """One weekday of the month with its position (1FR, -1FR)."""
    if len(weekdays) > 1:
        errors.add(
            "BYDAY",
            gettext("Give one weekday of the month (such as 1FR), not several."),
        )
    elif weekdays[0][0] is None:
        errors.add(
            "BYDAY",
            gettext(
                "Every such weekday of the month cannot be expressed; give its "
                "position (1FR for the first Friday, -1FR for the last)."
            ),
        )
    elif not (1 <= abs(weekdays[0][0]) <= 5):
        errors.add(
            "BYDAY",
            gettext("The position of the weekday must be 1 to 5 or -1 to -5."),
        )
    else:
        return {
            "monthly_type": MonthlyType.NTH_WEEKDAY.value,
            "nth_weekday": weekdays[0][0],
            "weekday": weekdays[0][1],
        }
    return {}


def _day_of_month(month_days: list[int], dtstart: dt.datetime, errors: Errors) -> dict[str, Any]:
    """One day of the month (-1 for the last), DTSTART's when BYMONTHDAY gives none."""
    day = month_days[0] if month_days else dtstart.day
    if len(month_days) > 1:
        errors.add("BYMONTHDAY", gettext("Give one day of the month, not several."))
    elif not (1 <= day <= 31 or day == -1):
        errors.add(
            "BYMONTHDAY",
            gettext("The day of the month must be 1 to 31 or -1 (the last), got %(day)s.")
            % {"day": day},
        )
    else:
        return {"monthly_type": MonthlyType.DAY_OF_MONTH.value, "day_of_month": day}
    return {}


def _check_days_and_months(
    frequency: str, month_days: list[int], months: list[int], dtstart: dt.datetime, errors: Errors
) -> None:
    """Refuse days of the month and months a rule of ``frequency`` cannot be limited to."""
    if frequency in ("DAILY", "WEEKLY") and month_days:
        errors.add(
            "BYMONTHDAY",
            gettext("A %(frequency)s rule limited to days of the month cannot be expressed.")
            % {"frequency": frequency},
        )
    if frequency == "YEARLY" and month_days not in ([], [dtstart.day]):
        errors.add(
            "BYMONTHDAY",
            gettext("A yearly rule recurs on the day of DTSTART; other days cannot be expressed."),
        )
    if months and (frequency != "YEARLY" or months != [dtstart.month]):
        errors.add(
            "BYMONTH",
            gettext(
                "Only a yearly rule in the month of DTSTART can be expressed; other months cannot."
            ),
        )


def _check_wkst(rule: Any, data: dict[str, Any], errors: Errors) -> None:
    """Refuse a week start other than Monday where it would give other dates."""
    wkst = single(rule, "WKST", errors)
    if wkst is None:
        return
    code = str(wkst).upper()
    if code not in _WEEKDAYS:
        errors.add(
            "WKST",
            gettext("WKST must be a weekday (MO .. SU), got %(wkst)s.") % {"wkst": repr(wkst)},
        )
    elif (
        not errors.by_part
        and data["frequency"] == Frequency.WEEKLY.value
        and data["weekdays"]
        and isinstance(data["interval"], int)
        and data["interval"] > 1
        and _wkst_changes_dates(data, _WEEKDAYS.index(code))
    ):
        errors.add(
            "WKST",
            gettext(
                "WKST=%(code)s gives other dates than a week starting on Monday for "
                "this rule; a week start other than Monday cannot be expressed."
            )
            % {"code": code},
        )


def _weekday(text: str) -> tuple[int | None, int] | None:
    """'TU' -> (None, 1); '-2MO' -> (-2, 0); None for text that is not a BYDAY value."""
    code = str(text).upper()
    day = code[-2:]
    if day not in _WEEKDAYS:
        return None
    prefix = code[:-2]
    if not prefix:
        return None, _WEEKDAYS.index(day)
    try:
        return int(prefix), _WEEKDAYS.index(day)
    except ValueError:
        return None


def _weekdays(rule: Any, errors: Errors) -> list[tuple[int | None, int]]:
    """The BYDAY values of ``rule`` as (position or None, weekday), each unreadable one refused."""
    parsed = []
    for value in rule.get("BYDAY", []):
        weekday = _weekday(value)
        if weekday is None:
            errors.add(
                "BYDAY",
                gettext("%(value)s is not a weekday (MO, TU, ... or 1MO, -1FR).")
                % {"value": repr(value)},
            )
        else:
            parsed.append(weekday)
    return parsed


def _wkst_changes_dates(data: dict[str, Any], wkst: int) -> bool:
    """Whether a week start other than Monday (ours) would give other dates.

    It matters only to a WEEKLY rule with an interval above 1 and several weekdays;
    comparing the first occurrences decides it, as the pattern repeats every period.
    """
    start = data["dtstart"].replace(tzinfo=None)
    common: dict[str, Any] = {
        "freq": du.WEEKLY,
        "dtstart": start,
        "interval": data["interval"],
        "byweekday": [_DU_WEEKDAYS[d] for d in data["weekdays"]],
    }
    ours = du.rrule(wkst=du.MO, **common)
    theirs = du.rrule(wkst=_DU_WEEKDAYS[wkst], **common)
    return list(itertools.islice(ours, 30)) != list(itertools.islice(theirs, 30))
