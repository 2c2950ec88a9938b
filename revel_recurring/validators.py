"""Validation of recurrence rule fields, shared by the model, the API and the admin.

Every problem is reported under the key of the field a person has to change, with a
message that says what would be accepted. The messages are read by organisers in
the admin and by API clients, so they speak of what the rule means ("the day of
the month") rather than of field names; the key says which field.
"""

from __future__ import annotations

import datetime as dt
import functools
import zoneinfo
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError

from .instants import describe_instant
from .rules import (
    FIELDS_USED_BY,
    OPTIONAL_RULE_FIELDS,
    RULE_FIELDS,
    Frequency,
    MonthlyType,
    RuleSpec,
    first_occurrence_after,
    is_aware,
    localize,
    to_utc,
)

# Weekday labels, 0 = Monday; the admin builds its weekday choices from them.
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

# What each optional field means, for "a daily rule does not use ..." messages.
_FIELD_WORDS = {
    "weekdays": "weekdays",
    "monthly_type": "a choice between day of month and weekday",
    "day_of_month": "a day of the month",
    "nth_weekday": "which weekday of the month",
    "weekday": "a day of the week",
}


# A series' window, in weeks; the model field, the services and check E006 use these.
WINDOW_WEEKS_MIN, WINDOW_WEEKS_MAX = 1, 52
# The integer columns (interval, count) are 32-bit signed on every backend.
MAX_INTERVAL = 2**31 - 1
# COUNT rules are walked from dtstart (dateutil counts from there), so the count
# bounds the work done inside the series lock; see docs/decisions.
MAX_COUNT = 10_000
# Far enough from year 1 and year 9999 that a zone offset, the one-day search
# margin and a year of window never leave Python's calendar.
EARLIEST = dt.datetime(1000, 1, 1, tzinfo=dt.UTC)
LATEST = dt.datetime(8999, 12, 31, 23, 59, 59, tzinfo=dt.UTC)
# Keys zoneinfo opens that are not IANA zone names: leap-second ("right/") and
# POSIX copies with other offsets, the POSIX default rules, the host's own
# setting, and the tz database's "Factory" placeholder.
_NOT_IANA_NAMES = frozenset({"posixrules", "localtime", "Factory"})
_NOT_IANA_PREFIXES = ("right/", "posix/")


def _is_int(value: object) -> bool:
    # bool is a subclass of int; True is not a weekday.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_set(name: str, value: object) -> bool:
    if name == "weekdays":
        return value not in (None, [], ())
    return value not in (None, "")


def validate_timezone(value: object) -> str:
    """Return the IANA zone name or raise a ValidationError.

    ``zoneinfo`` opens files under the tz database path; names with ``..`` or an
    absolute path raise ValueError there, so they are refused before it is asked.
    """
    if not isinstance(value, str) or not value.strip():
        raise ValidationError("Give a time zone name such as 'Europe/Vienna'.")
    name = value.strip()
    if name != value:
        # The stored value is used verbatim later; ZoneInfo(" Europe/Vienna") fails.
        raise ValidationError(f"Remove the spaces around the time zone name: use '{name}'.")
    if name.startswith("/") or ".." in name.split("/") or "\\" in name or "\x00" in name:
        raise ValidationError(f"'{value}' is not a time zone name; use one like 'Europe/Vienna'.")
    unknown = ValidationError(f"Unknown time zone '{value}'; use a name such as 'Europe/Vienna'.")
    if name in _NOT_IANA_NAMES or name.startswith(_NOT_IANA_PREFIXES):
        raise unknown
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise unknown from None
    if name not in _iana_names():
        raise unknown
    return name


@functools.cache
def _iana_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def _in_range(value: dt.datetime) -> bool:
    try:
        return EARLIEST <= value <= LATEST
    except OverflowError:
        return False


def _range_message(label: str) -> str:
    return (
        f"{label} must lie between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d} (UTC); "
        "dates outside that range cannot be scheduled."
    )


def validate_no_nul_characters(values: Mapping[str, Any]) -> None:
    """Refuse text containing NUL characters, keyed by field (PostgreSQL cannot store them)."""
    errors = {
        name: ["Remove the NUL character (\\x00) from this text."]
        for name, value in values.items()
        if isinstance(value, str) and "\x00" in value
    }
    if errors:
        raise ValidationError(errors)


def validate_rule(data: Mapping[str, Any]) -> None:
    """Validate a full set of rule fields; raise ValidationError keyed by field.

    ``data`` holds the model's field names: frequency, interval, weekdays,
    monthly_type, day_of_month, nth_weekday, weekday, dtstart, until, count,
    timezone. Missing optional keys count as unset.
    """
    errors: dict[str, list[str]] = {}

    def add(key: str, message: str) -> None:
        errors.setdefault(key, []).append(message)

    frequency_raw = data.get("frequency")
    try:
        frequency: Frequency | None = Frequency(str(frequency_raw or ""))
    except ValueError:
        frequency = None
        choices = ", ".join(f.value for f in Frequency)
        add(
            "frequency",
            f"Choose how often the series repeats ({choices}), got {frequency_raw!r}.",
        )

    interval = data.get("interval", 1)
    if not _is_int(interval) or not 1 <= interval <= MAX_INTERVAL:
        add(
            "interval",
            f"Give how many days, weeks, months or years apart the dates are: a whole "
            f"number from 1 to {MAX_INTERVAL}, got {interval!r}.",
        )

    if frequency is not None:
        used = FIELDS_USED_BY[frequency]
        for name in OPTIONAL_RULE_FIELDS:
            if name not in used and _is_set(name, data.get(name)):
                add(
                    name,
                    f"A {frequency.value.lower()} rule does not use {_FIELD_WORDS[name]}; "
                    "leave it empty.",
                )
        if frequency is Frequency.WEEKLY:
            _check_weekdays(data.get("weekdays"), add)
        if frequency is Frequency.MONTHLY:
            _check_monthly(data, add)

    dtstart = data.get("dtstart")
    if not isinstance(dtstart, dt.datetime):
        add("dtstart", "Give the date and time of the first occurrence.")
        dtstart = None
    elif not is_aware(dtstart):
        add("dtstart", "Give the start with its time zone offset (such as +01:00).")
        dtstart = None
    elif not _in_range(dtstart):
        add("dtstart", _range_message("The start"))
        dtstart = None
    else:
        # Stored and read to the whole second (see RecurrenceRule.save); validate
        # the value that will be used.
        dtstart = dtstart.replace(microsecond=0)

    until, count = data.get("until"), data.get("count")
    if until is not None and count is not None:
        add("until", "Give an end or a number of dates, not both.")
    if until is not None:
        if not isinstance(until, dt.datetime) or not is_aware(until):
            add("until", "Give the end as a date and time with its time zone offset.")
        elif not _in_range(until):
            add("until", _range_message("The end"))
        elif dtstart is not None and until <= dtstart:
            add("until", "The end must be later than the start.")
    if count is not None and (not _is_int(count) or not 1 <= count <= MAX_COUNT):
        add(
            "count",
            f"Give the number of dates as a whole number from 1 to {MAX_COUNT}, got {count!r}.",
        )

    zone_name: str | None = None
    try:
        zone_name = validate_timezone(data.get("timezone"))
    except ValidationError as exc:
        for message in exc.messages:
            add("timezone", message)
    if dtstart is not None and zone_name is not None:
        _check_dtstart_wall_clock(dtstart, zone_name, add)

    if errors:
        raise ValidationError(errors)
    assert dtstart is not None
    _check_produces_occurrences({**data, "dtstart": dtstart})


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
                "interval": (
                    f"This rule never produces an occurrence: no month or year it lands "
                    f"on every {spec.interval} steps has the requested day. Change the "
                    f"interval or the day."
                )
            }
        )
    until = data.get("until")
    if until is not None and first > until:
        raise ValidationError(
            {
                "until": (
                    f"The first date of this rule is {describe_instant(first, spec.timezone)}, "
                    "after the end; the series would have no date at all. Move the end later."
                )
            }
        )


def _check_dtstart_wall_clock(dtstart: dt.datetime, zone_name: str, add: Any) -> None:
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
            f"{wall_clock:%Y-%m-%d %H:%M} happens twice in {zone_name} (the clocks go back) "
            f"and a rule always means the first one, {first:%H:%M} UTC; start at that "
            "instant or at another time.",
        )


# Zones that only say "this is an instant", never a wall clock the organiser meant.
_INSTANT_ZONES = frozenset({"UTC", "Etc/UTC", "Etc/GMT", "GMT", "Zulu", "Etc/Zulu"})


def validate_dtstart_zone(dtstart: dt.datetime, zone_name: str) -> None:
    """Refuse a start typed in another named zone than the rule's (ValidationError on dtstart).

    A rule recurs at dtstart's wall clock *in the rule's zone*: 18:00 Europe/London
    for a Europe/Vienna rule would put every occurrence at 19:00 Vienna, not at the
    hour the organiser typed. UTC and fixed offsets are read as instants (the API
    sends those), and a zone with the same wall clock at that moment is accepted.
    The services call it where an organiser gives a new start; it is not part of
    :func:`validate_rule`, because a stored rule whose zone is changed later keeps
    its instant on purpose.
    """
    errors: list[str] = []
    _check_dtstart_zone(dtstart, zone_name, lambda key, message: errors.append(message))
    if errors:
        raise ValidationError({"dtstart": errors})


def _check_dtstart_zone(dtstart: dt.datetime, zone_name: str, add: Any) -> None:
    zone_name = validate_timezone(zone_name)
    key = getattr(dtstart.tzinfo, "key", None)
    if not key or key == zone_name or key in _INSTANT_ZONES:
        return
    local = dtstart.astimezone(zoneinfo.ZoneInfo(zone_name))
    if local.replace(tzinfo=None) == dtstart.replace(tzinfo=None):
        return  # same wall clock (e.g. Europe/Berlin for Europe/Vienna)
    add(
        "dtstart",
        f"The start is given as {dtstart:%H:%M} in {key}, but the rule's time zone is "
        f"{zone_name}, where that is {local:%H:%M}; occurrences would be at {local:%H:%M} "
        f"{zone_name}. Give the start in {zone_name} (or as UTC), or set the rule's "
        f"time zone to {key}.",
    )


def _check_weekdays(value: object, add: Any) -> None:
    if value in (None, []):
        return
    if not isinstance(value, (list, tuple)):
        add("weekdays", "Give the weekdays as a list of numbers from 0 (Monday) to 6 (Sunday).")
        return
    for item in value:
        if not _is_int(item) or not 0 <= item <= 6:
            add("weekdays", f"Each weekday must be 0 (Monday) to 6 (Sunday), got {item!r}.")
    if len(set(map(repr, value))) != len(value):
        add("weekdays", "Give each weekday once.")


def _check_monthly(data: Mapping[str, Any], add: Any) -> None:
    monthly_type = data.get("monthly_type")
    day_of_month = data.get("day_of_month")
    nth_weekday, weekday = data.get("nth_weekday"), data.get("weekday")
    choose = "Choose whether the monthly rule is by day of month or by weekday"
    if monthly_type in (None, ""):
        add("monthly_type", f"{choose}.")
        return
    try:
        kind = MonthlyType(monthly_type)
    except ValueError:
        add("monthly_type", f"{choose}, got {monthly_type!r}.")
        return
    if kind is MonthlyType.DAY_OF_MONTH:
        if day_of_month is None:
            add("day_of_month", "Give the day of the month: 1 to 31, or -1 for the last day.")
        elif not _is_int(day_of_month) or not (1 <= day_of_month <= 31 or day_of_month == -1):
            add(
                "day_of_month",
                f"The day of the month must be 1 to 31, or -1 for the last day, "
                f"got {day_of_month!r}.",
            )
        for name, value in (("nth_weekday", nth_weekday), ("weekday", weekday)):
            if value is not None:
                add(
                    name,
                    f"A monthly rule by day of month does not use {_FIELD_WORDS[name]}; "
                    "leave it empty.",
                )
        return
    if day_of_month is not None:
        add(
            "day_of_month",
            "A monthly rule by weekday does not use a day of the month; leave it empty.",
        )
    if nth_weekday is None:
        add(
            "nth_weekday",
            "Choose which weekday of the month: 1 to 5 (first to fifth), or -1 to -5 "
            "counting from the month's end (-1 is the last).",
        )
    elif not _is_int(nth_weekday) or nth_weekday == 0 or not -5 <= nth_weekday <= 5:
        add(
            "nth_weekday",
            f"Which weekday of the month must be 1 to 5, or -1 to -5 from the month's end, "
            f"got {nth_weekday!r}.",
        )
    if weekday is None:
        add("weekday", "Choose the day of the week: 0 (Monday) to 6 (Sunday).")
    elif not _is_int(weekday) or not 0 <= weekday <= 6:
        add("weekday", f"The day of the week must be 0 (Monday) to 6 (Sunday), got {weekday!r}.")


def validate_generation_window_weeks(value: object) -> None:
    """The one check of a series' window: a whole number of weeks from 1 to 52.

    The services run it keyed through :func:`validate_series_options`; the model
    field checks the same bounds (:data:`WINDOW_WEEKS_MIN`, :data:`WINDOW_WEEKS_MAX`)
    with its own validators, once (see docs/decisions/0016-one-source-per-fact.md).
    """
    if not _is_int(value) or not WINDOW_WEEKS_MIN <= value <= WINDOW_WEEKS_MAX:  # type: ignore[operator]
        raise ValidationError(
            f"Generate {WINDOW_WEEKS_MIN} to {WINDOW_WEEKS_MAX} weeks ahead, got {value!r}."
        )


def validate_series_options(*, generation_window_weeks: object = None) -> None:
    """The series options a service was given, keyed by option name (None: not given)."""
    if generation_window_weeks is None:
        return
    try:
        validate_generation_window_weeks(generation_window_weeks)
    except ValidationError as exc:
        raise ValidationError({"generation_window_weeks": exc.messages}) from None


def validate_rule_keys(data: Mapping[str, Any]) -> None:
    """Refuse keys that are not rule fields, each under its own key."""
    unknown = sorted(set(data) - set(RULE_FIELDS))
    if unknown:
        allowed = ", ".join(RULE_FIELDS)
        raise ValidationError(
            {name: f"'{name}' is not a recurrence rule field; use {allowed}." for name in unknown}
        )
