"""A rule's fields checked together: :func:`validate_rule`, one named step per field.

Every problem is reported under the key of the field a person has to change, with a
message that says what would be accepted. The messages are read by organisers in
the admin and by API clients, so they speak of what the rule means ("the day of
the month") rather than of field names; the key says which field.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..instants import describe_instant
from ..rules import (
    RULE_FIELDS,
    Frequency,
    RuleSpec,
    first_occurrence_after,
    is_aware,
    localize,
    to_utc,
)
from .days import Add, check_days
from .limits import EARLIEST, LATEST, MAX_COUNT, MAX_INTERVAL, in_range, is_whole_number
from .zones import validate_timezone

# Weekday labels, 0 = Monday; the admin builds its weekday choices from them.
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def validate_rule(data: Mapping[str, Any]) -> None:
    """Validate a full set of rule fields; raise ValidationError keyed by field.

    ``data`` holds the model's field names: frequency, interval, weekdays,
    monthly_type, day_of_month, nth_weekday, weekday, dtstart, until, count,
    timezone. Missing optional keys count as unset. Every field is checked and
    every problem reported at once; only a rule without one is then asked whether
    it has a date at all.
    """
    errors: dict[str, list[str]] = {}

    def add(key: str, message: str) -> None:
        errors.setdefault(key, []).append(message)

    frequency = _check_frequency(data.get("frequency"), add)
    _check_interval(data.get("interval", 1), add)
    if frequency is not None:
        check_days(frequency, data, add)
    dtstart = _check_dtstart(data.get("dtstart"), add)
    _check_end(data.get("until"), data.get("count"), dtstart, add)
    zone_name = _check_zone(data.get("timezone"), add)
    if dtstart is not None and zone_name is not None:
        _check_dtstart_wall_clock(dtstart, zone_name, add)
    if errors:
        raise ValidationError(errors)
    assert dtstart is not None
    _check_produces_occurrences({**data, "dtstart": dtstart})


def _check_frequency(value: object, add: Add) -> Frequency | None:
    """The rule's frequency, or None (reported) when ``value`` names none."""
    try:
        return Frequency(str(value or ""))
    except ValueError:
        choices = ", ".join(f.value for f in Frequency)
        add(
            "frequency",
            _("Choose how often the series repeats (%(choices)s), got %(value)r.")
            % {"choices": choices, "value": value},
        )
        return None


def _check_interval(value: Any, add: Add) -> None:
    if not is_whole_number(value) or not 1 <= value <= MAX_INTERVAL:
        add(
            "interval",
            _(
                "Give how many days, weeks, months or years apart the dates are: a whole "
                "number from 1 to %(max)d, got %(value)r."
            )
            % {"max": MAX_INTERVAL, "value": value},
        )


def _check_dtstart(value: object, add: Add) -> dt.datetime | None:
    """The start as it will be used (whole seconds), or None (reported) when unusable."""
    if not isinstance(value, dt.datetime):
        add("dtstart", _("Give the date and time of the first occurrence."))
        return None
    if not is_aware(value):
        add("dtstart", _("Give the start with its time zone offset (such as +01:00)."))
        return None
    if not in_range(value):
        add("dtstart", _range_message("start"))
        return None
    # Stored and read to the whole second (see RecurrenceRule.save); validate
    # the value that will be used.
    return value.replace(microsecond=0)


def _check_end(until: Any, count: Any, dtstart: dt.datetime | None, add: Add) -> None:
    """An end instant after the start or a number of dates, not both."""
    if until is not None and count is not None:
        add("until", _("Give an end or a number of dates, not both."))
    if until is not None:
        if not isinstance(until, dt.datetime) or not is_aware(until):
            add("until", _("Give the end as a date and time with its time zone offset."))
        elif not in_range(until):
            add("until", _range_message("end"))
        elif dtstart is not None and until <= dtstart:
            add("until", _("The end must be later than the start."))
    if count is not None and (not is_whole_number(count) or not 1 <= count <= MAX_COUNT):
        add(
            "count",
            _("Give the number of dates as a whole number from 1 to %(max)d, got %(value)r.")
            % {"max": MAX_COUNT, "value": count},
        )


def _check_zone(value: object, add: Add) -> str | None:
    """The rule's zone name, or None (each problem reported) when it names no IANA zone."""
    try:
        return validate_timezone(value)
    except ValidationError as exc:
        for message in exc.messages:
            add("timezone", message)
        return None


def _range_message(which: str) -> str:
    values = {"earliest": f"{EARLIEST:%Y-%m-%d}", "latest": f"{LATEST:%Y-%m-%d}"}
    if which == "start":
        message = _(
            "The start must lie between %(earliest)s and %(latest)s (UTC); "
            "dates outside that range cannot be scheduled."
        )
    else:
        message = _(
            "The end must lie between %(earliest)s and %(latest)s (UTC); "
            "dates outside that range cannot be scheduled."
        )
    return message % values


def _check_produces_occurrences(data: Mapping[str, Any]) -> None:
    """A rule every field of which is valid may still have no occurrence at all.

    "Day 31 every 12 months" from April never meets a 31st; "weekly on Monday"
    from a Tuesday until the Wednesday after has nothing in between. Such a series
    would silently never generate; say so on the field to change.
    """
    # Without until and count: a first occurrence beyond until is reported below,
    # on the field to change, rather than as "no occurrence at all".
    spec = RuleSpec.from_fields({**data, "until": None, "count": None})
    first = first_occurrence_after(spec, spec.dtstart, inclusive=True)
    if first is None:
        raise ValidationError(
            {
                "interval": _(
                    "This rule never produces an occurrence: no month or year it lands "
                    "on every %(interval)d steps has the requested day. Change the "
                    "interval or the day."
                )
                % {"interval": spec.interval}
            }
        )
    until = data.get("until")
    if until is not None and first > until:
        raise ValidationError(
            {
                "until": _(
                    "The first date of this rule is %(first)s, after the end; the series "
                    "would have no date at all. Move the end later."
                )
                % {"first": describe_instant(first, spec.timezone)}
            }
        )


def _check_dtstart_wall_clock(dtstart: dt.datetime, zone_name: str, add: Add) -> None:
    # A rule recurs on dtstart's wall clock in its zone and reads an ambiguous wall
    # clock as the first instant (as DTSTART;TZID does in RFC 5545). A dtstart on the
    # *second* 01:30 of a fall-back day would therefore yield a first occurrence an
    # hour before dtstart, which a window starting at dtstart then never generates.
    zone = zoneinfo.ZoneInfo(zone_name)
    wall_clock = dtstart.astimezone(zone).replace(tzinfo=None)
    first = localize(wall_clock, zone)
    if first != to_utc(dtstart):
        add(
            "dtstart",
            _(
                "%(wall_clock)s happens twice in %(zone)s (the clocks go back) and a rule "
                "always means the first one, %(first)s UTC; start at that instant or at "
                "another time."
            )
            % {
                "wall_clock": f"{wall_clock:%Y-%m-%d %H:%M}",
                "zone": zone_name,
                "first": f"{first:%H:%M}",
            },
        )


def validate_rule_keys(data: Mapping[str, Any]) -> None:
    """Refuse keys that are not rule fields, each under its own key."""
    unknown = sorted(set(data) - set(RULE_FIELDS))
    if unknown:
        allowed = ", ".join(RULE_FIELDS)
        raise ValidationError(
            {
                name: _("'%(name)s' is not a recurrence rule field; use %(allowed)s.")
                % {"name": name, "allowed": allowed}
                for name in unknown
            }
        )
