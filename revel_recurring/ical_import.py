"""Reading a recurrence rule out of iCalendar text (``rule_from_ical``).

The rule fields of this app express a subset of RFC 5545 RRULEs. What lies outside
it is refused, keyed by the offending part (``BYSETPOS``, ``FREQ``, ...), instead of
being approximated: an organiser who pasted "the last weekday of the month" must
not get "the last day of the month" without being told.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
from dateutil import rrule as du
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from .rules import _DU_WEEKDAYS, Frequency, MonthlyType
from .rules import _ICAL_WEEKDAYS as _WEEKDAYS

__all__ = ["rule_from_ical"]

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
# Properties of a VEVENT that change which dates happen and that a rule cannot hold.
_DATE_PROPERTIES = {
    "EXDATE": gettext_lazy(
        "excluded dates (EXDATE) are not part of a rule; cancel those occurrences "
        "once the series exists"
    ),
    "EXRULE": gettext_lazy("exclusion rules (EXRULE, deprecated by RFC 5545) cannot be expressed"),
}


class _Errors:
    def __init__(self) -> None:
        self.by_part: dict[str, list[str]] = {}

    def add(self, part: str, message: str) -> None:
        # Each message names its part, for readers who see the messages without keys.
        text = message if part in message else f"{part}: {message}"
        self.by_part.setdefault(part, []).append(text)

    def raise_if_any(self) -> None:
        if self.by_part:
            raise ValidationError(self.by_part)


def _parse_event(text: str) -> Any:
    """The one VEVENT (or bare DTSTART/RRULE lines) in ``text``."""
    stripped = text.strip()
    if not stripped:
        raise ValidationError({"RRULE": [gettext("Give an RRULE line, with its DTSTART.")]})
    upper = stripped.upper()
    try:
        if upper.startswith("BEGIN:VCALENDAR"):
            calendar = icalendar.Calendar.from_ical(stripped)
            events = [e for e in calendar.walk("VEVENT") if "RRULE" in e]
            if len(events) != 1:
                raise ValidationError(
                    {
                        "VEVENT": [
                            gettext("Give one recurring VEVENT; found %(count)s with an RRULE.")
                            % {"count": len(events)}
                        ]
                    }
                )
            return events[0]
        if not upper.startswith("BEGIN:VEVENT"):
            lines = [line.strip() for line in stripped.splitlines() if line.strip()]
            stripped = "\r\n".join(["BEGIN:VEVENT", *lines, "END:VEVENT"])
        return icalendar.Event.from_ical(stripped)
    except ValueError as exc:
        raise ValidationError(
            # The parser's own words are English whatever the request's language:
            # the message says what is wrong in the reader's language instead.
            {"ical": [gettext("This is not iCalendar text (RFC 5545): it cannot be read.")]}
        ) from exc


def _zone_of(value: dt.datetime, errors: _Errors) -> str | None:
    tzinfo = value.tzinfo
    if tzinfo is None:
        errors.add(
            "DTSTART",
            gettext(
                "DTSTART has no time zone (a floating time); give TZID=<IANA zone> or a "
                "UTC time ending in Z."
            ),
        )
        return None
    if isinstance(tzinfo, ZoneInfo):
        return tzinfo.key
    if value.utcoffset() == dt.timedelta(0):
        return "UTC"
    errors.add(
        "DTSTART",
        gettext(
            "The TZID of DTSTART is not an IANA time zone name (such as Europe/Vienna); a"
            " series needs one to keep its wall-clock time across DST."
        ),
    )
    return None


def _dtstart(event: Any, errors: _Errors) -> tuple[dt.datetime | None, str | None]:
    if "DTSTART" not in event:
        errors.add(
            "DTSTART",
            gettext("DTSTART is required: the first occurrence and its time zone."),
        )
        return None, None
    value: Any = event["DTSTART"].dt
    if not isinstance(value, dt.datetime):
        errors.add(
            "DTSTART",
            gettext("DTSTART is a date without a time; a series needs a start time."),
        )
        return None, None
    zone = _zone_of(value, errors)
    if zone is None:
        return None, None
    return value.astimezone(ZoneInfo(zone)), zone


def _until(value: Any, zone: str, errors: _Errors) -> dt.datetime | None:
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


def _extra_dates(event: Any, errors: _Errors) -> list[dt.datetime]:
    """The RDATE instants of ``event`` in UTC, sorted, each once (RFC 5545 §3.8.5.2)."""
    properties = event.get("RDATE")
    if properties is None:
        return []
    found: set[dt.datetime] = set()
    for prop in properties if isinstance(properties, list) else [properties]:
        for item in prop.dts:
            value = item.dt
            if isinstance(value, tuple):
                errors.add(
                    "RDATE",
                    gettext("A period (VALUE=PERIOD) cannot be an extra date; give its start."),
                )
            elif not isinstance(value, dt.datetime):
                errors.add(
                    "RDATE",
                    gettext("%(value)s is a date without a time; an extra date needs one.")
                    % {"value": value},
                )
            elif value.tzinfo is None or value.utcoffset() is None:
                errors.add(
                    "RDATE",
                    gettext(
                        "%(value)s has no time zone (a floating time); give TZID=<IANA "
                        "zone> or a UTC time ending in Z."
                    )
                    % {"value": value.isoformat()},
                )
            else:
                found.add(value.astimezone(dt.UTC))
    return sorted(found)


def _single(rule: Any, part: str, errors: _Errors) -> Any:
    values = list(rule.get(part, []))
    if len(values) > 1:
        errors.add(
            part,
            gettext("Give one %(part)s value, got %(count)s.")
            % {"part": part, "count": len(values)},
        )
        return None
    return values[0] if values else None


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


def _weekdays(rule: Any, errors: _Errors) -> list[tuple[int | None, int]]:
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


def _frequency_parts(
    frequency: str, rule: Any, dtstart: dt.datetime, errors: _Errors
) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    weekdays = _weekdays(rule, errors)
    month_days = list(rule.get("BYMONTHDAY", []))
    months = list(rule.get("BYMONTH", []))
    if frequency == "DAILY" and weekdays:
        if any(n is not None for n, _ in weekdays):
            errors.add(
                "BYDAY",
                gettext("A DAILY rule takes plain weekdays (MO, TU, ...), no numbers."),
            )
        else:
            # Every day but only on these weekdays is a weekly rule on them.
            fields["frequency"] = Frequency.WEEKLY.value
            fields["weekdays"] = sorted({d for _, d in weekdays})
    elif frequency == "WEEKLY":
        if any(n is not None for n, _ in weekdays):
            errors.add(
                "BYDAY",
                gettext("A WEEKLY rule takes plain weekdays (MO, TU, ...), no numbers."),
            )
        fields["weekdays"] = sorted({d for _, d in weekdays})
    elif frequency == "MONTHLY":
        if weekdays and month_days:
            errors.add(
                "BYMONTHDAY",
                gettext("A weekday and a day of the month together cannot be expressed."),
            )
        elif weekdays:
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
                fields["monthly_type"] = MonthlyType.NTH_WEEKDAY.value
                fields["nth_weekday"], fields["weekday"] = weekdays[0]
        else:
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
                fields["monthly_type"] = MonthlyType.DAY_OF_MONTH.value
                fields["day_of_month"] = day
    elif weekdays:
        errors.add(
            "BYDAY",
            gettext("A %(frequency)s rule with weekdays cannot be expressed.")
            % {"frequency": frequency},
        )
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
    return fields


def rule_from_ical(text: str) -> dict[str, Any]:
    """Rule fields (as ``create_recurring_series(rule_data=...)`` takes them) from iCalendar.

    ``text`` is an ``RRULE`` line with its ``DTSTART`` (``DTSTART;TZID=Europe/Vienna:...``
    or a UTC time ending in ``Z``), a whole ``VEVENT``, or a ``VCALENDAR`` holding one
    recurring VEVENT. Raises ``ValidationError`` keyed by the part it cannot express
    (``FREQ`` for HOURLY, ``BYSETPOS``, ``BYMONTHDAY`` with several values, ``DTSTART``
    without a zone, ``EXDATE``, ...). The result is not yet validated as a rule: the
    services do that with the usual field-keyed messages.

    RDATE lines (extra dates) are accepted: the result then holds them under
    ``"extra_dates"`` (aware UTC datetimes, sorted, each once), which is not a rule
    field. Pop it before creating the series, and add each with
    ``services.extra_dates.add_extra_date``. Dates without a time, periods and
    floating times are refused under ``RDATE``.
    """
    event = _parse_event(text)
    errors = _Errors()
    for name, message in _DATE_PROPERTIES.items():
        if name in event:
            errors.add(name, str(message))
    rules = event.get("RRULE")
    if rules is None:
        errors.add("RRULE", gettext("An RRULE is required."))
    elif isinstance(rules, list):
        errors.add("RRULE", gettext("Give one RRULE; several cannot be expressed."))
    for part, _problem in event.errors:
        errors.add(
            str(part),
            gettext("%(part)s could not be read; write it as RFC 5545 does.") % {"part": part},
        )
    dtstart, zone = _dtstart(event, errors)
    extra_dates = _extra_dates(event, errors)
    unreadable = "RRULE" in errors.by_part
    if unreadable or rules is None or isinstance(rules, list) or dtstart is None or zone is None:
        errors.raise_if_any()
        raise AssertionError("unreachable")  # pragma: no cover - errors were recorded
    rule = rules
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
    frequency = str(_single(rule, "FREQ", errors) or "").upper()
    if frequency in _UNSUPPORTED_FREQUENCIES:
        errors.add(
            "FREQ",
            gettext("FREQ=%(frequency)s cannot be expressed: a series recurs at most daily.")
            % {"frequency": frequency},
        )
    elif frequency not in {f.value for f in Frequency}:
        errors.add("FREQ", gettext("FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY."))
    data: dict[str, Any] = {
        "frequency": frequency,
        "interval": _single(rule, "INTERVAL", errors) or 1,
        "dtstart": dtstart,
        "timezone": zone,
        "count": _single(rule, "COUNT", errors),
        "until": None,
        "weekdays": [],
    }
    until = _single(rule, "UNTIL", errors)
    if until is not None:
        data["until"] = _until(until, zone, errors)
    if frequency in {f.value for f in Frequency}:
        data.update(_frequency_parts(frequency, rule, dtstart, errors))
    wkst = _single(rule, "WKST", errors)
    if wkst is not None:
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
    errors.raise_if_any()
    if extra_dates:
        data["extra_dates"] = extra_dates
    return data
