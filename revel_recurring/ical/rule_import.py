"""Reading a recurrence rule out of iCalendar text (``rule_from_ical``).

The rule fields of this app express a subset of RFC 5545 RRULEs. What lies outside
it is refused, keyed by the offending part (``BYSETPOS``, ``FREQ``, ...), instead of
being approximated: an organiser who pasted "the last weekday of the month" must
not get "the last day of the month" without being told.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from .rule_parts import Errors, rule_fields

__all__ = ["rule_from_ical"]

# Properties of a VEVENT that change which dates happen and that a rule cannot hold.
_DATE_PROPERTIES = {
    "EXDATE": gettext_lazy(
        "excluded dates (EXDATE) are not part of a rule; cancel those occurrences "
        "once the series exists"
    ),
    "EXRULE": gettext_lazy("exclusion rules (EXRULE, deprecated by RFC 5545) cannot be expressed"),
}


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


def _zone_of(value: dt.datetime, errors: Errors) -> str | None:
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


def _dtstart(event: Any, errors: Errors) -> tuple[dt.datetime | None, str | None]:
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


def _extra_dates(event: Any, errors: Errors) -> list[dt.datetime]:
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
    errors = Errors()
    rule = _rule_of(event, errors)
    dtstart, zone = _dtstart(event, errors)
    extra_dates = _extra_dates(event, errors)
    if rule is None or "RRULE" in errors.by_part or dtstart is None or zone is None:
        errors.raise_if_any()
        raise AssertionError("unreachable")  # pragma: no cover - errors were recorded
    data = rule_fields(rule, dtstart, zone, errors)
    errors.raise_if_any()
    if extra_dates:
        data["extra_dates"] = extra_dates
    return data


def _rule_of(event: Any, errors: Errors) -> Any:
    """The one RRULE of ``event``, None when there is none or several (recorded in ``errors``).

    Also refuses the date properties a rule cannot hold and the lines icalendar
    could not read.
    """
    for name, message in _DATE_PROPERTIES.items():
        if name in event:
            errors.add(name, str(message))
    rule = event.get("RRULE")
    if rule is None:
        errors.add("RRULE", gettext("An RRULE is required."))
    elif isinstance(rule, list):
        errors.add("RRULE", gettext("Give one RRULE; several cannot be expressed."))
    for part, _problem in event.errors:
        errors.add(
            str(part),
            gettext("%(part)s could not be read; write it as RFC 5545 does.") % {"part": part},
        )
    return None if isinstance(rule, list) else rule
