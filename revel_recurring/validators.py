"""Validation of recurrence rule fields, shared by the model, the API and the admin.

Every problem is reported under the key of the field a person has to change, with a
message that says what would be accepted. The messages are read by organisers in
the admin and by API clients, so they speak of what the rule means ("the day of
the month") rather than of field names; the key says which field.
"""

from __future__ import annotations

import datetime as dt
import functools
import unicodedata
import zoneinfo
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

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
_FIELD_WORDS: dict[str, Promise] = {
    "weekdays": pgettext_lazy("what a rule does not use", "weekdays"),
    "monthly_type": pgettext_lazy(
        "what a rule does not use", "a choice between day of month and weekday"
    ),
    "day_of_month": pgettext_lazy("what a rule does not use", "a day of the month"),
    "nth_weekday": pgettext_lazy("what a rule does not use", "which weekday of the month"),
    "weekday": pgettext_lazy("what a rule does not use", "a day of the week"),
}
# The rule those messages speak of, by frequency (and a monthly one by day of month).
_RULE_WORDS: dict[Frequency, Promise] = {
    Frequency.DAILY: pgettext_lazy("a rule that does not use a field", "A daily rule"),
    Frequency.WEEKLY: pgettext_lazy("a rule that does not use a field", "A weekly rule"),
    Frequency.MONTHLY: pgettext_lazy("a rule that does not use a field", "A monthly rule"),
    Frequency.YEARLY: pgettext_lazy("a rule that does not use a field", "A yearly rule"),
}
_MONTHLY_BY_DAY_WORDS = pgettext_lazy(
    "a rule that does not use a field", "A monthly rule by day of month"
)


# A series' window, in weeks; the model field, the services and check E006 use these.
WINDOW_WEEKS_MIN, WINDOW_WEEKS_MAX = 1, 52

#: The most extra dates (RDATE) a series holds, past ones included: the one limit of
#: add-date, PATCH, create, the change plan, the admin and the services, so a
#: series' representation always fits a PATCH body (decision 0046).
EXTRA_DATES_MAX = 500
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
        raise ValidationError(_("Give a time zone name such as 'Europe/Vienna'."))
    name = value.strip()
    if name != value:
        # The stored value is used verbatim later; ZoneInfo(" Europe/Vienna") fails.
        raise ValidationError(
            _("Remove the spaces around the time zone name: use '%(name)s'.") % {"name": name}
        )
    if name.startswith("/") or ".." in name.split("/") or "\\" in name or "\x00" in name:
        raise ValidationError(
            _("'%(value)s' is not a time zone name; use one like 'Europe/Vienna'.")
            % {"value": value}
        )
    unknown = ValidationError(
        _("Unknown time zone '%(value)s'; use a name such as 'Europe/Vienna'.") % {"value": value}
    )
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


#: Characters a name may not hold beyond the C0 and C1 controls (Unicode "Cc"):
#: the line and paragraph separators, which calendar apps and e-mail subjects break
#: lines at too.
_LINE_BREAKING = frozenset({"\u2028", "\u2029"})


def control_character_in(value: str) -> str | None:
    """The first control character (line feed, tab, NUL, DEL, ...) in ``value``, or None."""
    for char in value:
        if char in _LINE_BREAKING or unicodedata.category(char) == "Cc":
            return char
    return None


def _control_character_message(char: str) -> str:
    return _(
        "Remove the control character %(character)s (a line break, tab or the like): "
        "a name is one line of text."
    ) % {"character": f"U+{ord(char):04X}"}


class SingleLineValidator(RegexValidator):
    """Refuses a name or title holding a control character: the validator of one field.

    Names and titles are one line of text: a series' name is a feed's calendar
    name and a template's title every occurrence's SUMMARY, and calendar apps,
    e-mail subjects and admin lists show them on one line. Forms and serializers
    attach :data:`validate_single_line` to such a field;
    :func:`validate_single_line_values` applies it to several fields at once,
    keyed by field. A ``RegexValidator`` so that the API schema states it as the
    field's ``pattern`` (drf-spectacular reads it; ``+``, not ``*``: a blank value
    is the schema's other branch); the message names the character.
    """

    def __init__(self) -> None:
        super().__init__(regex=r"\A[^\x00-\x1f\x7f-\x9f\u2028\u2029]+\Z", code="control_character")

    def __call__(self, value: Any) -> None:
        if isinstance(value, str):
            char = control_character_in(value)
            if char is not None:
                raise ValidationError(_control_character_message(char), code=self.code)


#: The one instance forms, serializers and the services use.
validate_single_line = SingleLineValidator()


def validate_single_line_values(values: Mapping[str, Any], names: Iterable[str]) -> None:
    """:func:`validate_single_line` on each of ``names`` in ``values``, keyed by field.

    The services call it with the names and titles of what they write (the series'
    name and slug, the host's single-line text fields: ``host_model.single_line_fields``).
    """
    errors: dict[str, list[str]] = {}
    for name in names:
        value = values.get(name)
        char = control_character_in(value) if isinstance(value, str) else None
        if char is not None:
            errors[name] = [_control_character_message(char)]
    if errors:
        raise ValidationError(errors)


def validate_no_nul_characters(values: Mapping[str, Any]) -> None:
    """Refuse text containing NUL characters, keyed by field (PostgreSQL cannot store them)."""
    errors = {
        name: [_("Remove the NUL character (\\x00) from this text.")]
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
            _("Choose how often the series repeats (%(choices)s), got %(value)r.")
            % {"choices": choices, "value": frequency_raw},
        )

    interval = data.get("interval", 1)
    if not _is_int(interval) or not 1 <= interval <= MAX_INTERVAL:
        add(
            "interval",
            _(
                "Give how many days, weeks, months or years apart the dates are: a whole "
                "number from 1 to %(max)d, got %(value)r."
            )
            % {"max": MAX_INTERVAL, "value": interval},
        )

    if frequency is not None:
        used = FIELDS_USED_BY[frequency]
        for name in OPTIONAL_RULE_FIELDS:
            if name not in used and _is_set(name, data.get(name)):
                add(
                    name,
                    _("%(rule)s does not use %(field)s; leave it empty.")
                    % {"rule": _RULE_WORDS[frequency], "field": _FIELD_WORDS[name]},
                )
        if frequency is Frequency.WEEKLY:
            _check_weekdays(data.get("weekdays"), add)
        if frequency is Frequency.MONTHLY:
            _check_monthly(data, add)

    dtstart = data.get("dtstart")
    if not isinstance(dtstart, dt.datetime):
        add("dtstart", _("Give the date and time of the first occurrence."))
        dtstart = None
    elif not is_aware(dtstart):
        add("dtstart", _("Give the start with its time zone offset (such as +01:00)."))
        dtstart = None
    elif not _in_range(dtstart):
        add("dtstart", _range_message("start"))
        dtstart = None
    else:
        # Stored and read to the whole second (see RecurrenceRule.save); validate
        # the value that will be used.
        dtstart = dtstart.replace(microsecond=0)

    until, count = data.get("until"), data.get("count")
    if until is not None and count is not None:
        add("until", _("Give an end or a number of dates, not both."))
    if until is not None:
        if not isinstance(until, dt.datetime) or not is_aware(until):
            add("until", _("Give the end as a date and time with its time zone offset."))
        elif not _in_range(until):
            add("until", _range_message("end"))
        elif dtstart is not None and until <= dtstart:
            add("until", _("The end must be later than the start."))
    if count is not None and (not _is_int(count) or not 1 <= count <= MAX_COUNT):
        add(
            "count",
            _("Give the number of dates as a whole number from 1 to %(max)d, got %(value)r.")
            % {"max": MAX_COUNT, "value": count},
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
        _(
            "The start is given as %(given)s in %(given_zone)s, but the rule's time zone is "
            "%(zone)s, where that is %(local)s; occurrences would be at %(local)s "
            "%(zone)s. Give the start in %(zone)s (or as UTC), or set the rule's "
            "time zone to %(given_zone)s."
        )
        % {
            "given": f"{dtstart:%H:%M}",
            "given_zone": key,
            "zone": zone_name,
            "local": f"{local:%H:%M}",
        },
    )


def _check_weekdays(value: object, add: Any) -> None:
    if value in (None, []):
        return
    if not isinstance(value, (list, tuple)):
        add("weekdays", _("Give the weekdays as a list of numbers from 0 (Monday) to 6 (Sunday)."))
        return
    for item in value:
        if not _is_int(item) or not 0 <= item <= 6:
            add(
                "weekdays",
                _("Each weekday must be 0 (Monday) to 6 (Sunday), got %(value)r.")
                % {"value": item},
            )
    if len(set(map(repr, value))) != len(value):
        add("weekdays", _("Give each weekday once."))


def _check_monthly(data: Mapping[str, Any], add: Any) -> None:
    monthly_type = data.get("monthly_type")
    day_of_month = data.get("day_of_month")
    nth_weekday, weekday = data.get("nth_weekday"), data.get("weekday")
    if monthly_type in (None, ""):
        add("monthly_type", _("Choose whether the monthly rule is by day of month or by weekday."))
        return
    try:
        kind = MonthlyType(monthly_type)
    except ValueError:
        add(
            "monthly_type",
            _("Choose whether the monthly rule is by day of month or by weekday, got %(value)r.")
            % {"value": monthly_type},
        )
        return
    if kind is MonthlyType.DAY_OF_MONTH:
        if day_of_month is None:
            add("day_of_month", _("Give the day of the month: 1 to 31, or -1 for the last day."))
        elif not _is_int(day_of_month) or not (1 <= day_of_month <= 31 or day_of_month == -1):
            add(
                "day_of_month",
                _("The day of the month must be 1 to 31, or -1 for the last day, got %(value)r.")
                % {"value": day_of_month},
            )
        for name, value in (("nth_weekday", nth_weekday), ("weekday", weekday)):
            if value is not None:
                add(
                    name,
                    _("%(rule)s does not use %(field)s; leave it empty.")
                    % {"rule": _MONTHLY_BY_DAY_WORDS, "field": _FIELD_WORDS[name]},
                )
        return
    if day_of_month is not None:
        add(
            "day_of_month",
            _("A monthly rule by weekday does not use a day of the month; leave it empty."),
        )
    if nth_weekday is None:
        add(
            "nth_weekday",
            _(
                "Choose which weekday of the month: 1 to 5 (first to fifth), or -1 to -5 "
                "counting from the month's end (-1 is the last)."
            ),
        )
    elif not _is_int(nth_weekday) or nth_weekday == 0 or not -5 <= nth_weekday <= 5:
        add(
            "nth_weekday",
            _(
                "Which weekday of the month must be 1 to 5, or -1 to -5 from the month's end, "
                "got %(value)r."
            )
            % {"value": nth_weekday},
        )
    if weekday is None:
        add("weekday", _("Choose the day of the week: 0 (Monday) to 6 (Sunday)."))
    elif not _is_int(weekday) or not 0 <= weekday <= 6:
        add(
            "weekday",
            _("The day of the week must be 0 (Monday) to 6 (Sunday), got %(value)r.")
            % {"value": weekday},
        )


def validate_generation_window_weeks(value: object) -> None:
    """The one check of a series' window: a whole number of weeks from 1 to 52.

    The services run it keyed through :func:`validate_series_options`; the model
    field checks the same bounds (:data:`WINDOW_WEEKS_MIN`, :data:`WINDOW_WEEKS_MAX`)
    with its own validators, once (see docs/decisions/0016-one-source-per-fact.md).
    """
    if not _is_int(value) or not WINDOW_WEEKS_MIN <= value <= WINDOW_WEEKS_MAX:  # type: ignore[operator]
        raise ValidationError(
            _("Generate %(min)d to %(max)d weeks ahead, got %(value)r.")
            % {"min": WINDOW_WEEKS_MIN, "max": WINDOW_WEEKS_MAX, "value": value}
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
            {
                name: _("'%(name)s' is not a recurrence rule field; use %(allowed)s.")
                % {"name": name, "allowed": allowed}
                for name in unknown
            }
        )
