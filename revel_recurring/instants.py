"""Instants and text: the one parser of a typed date and time, and the one way to show one.

:func:`parse_aware_instant` reads a date and time someone typed. The API's
date-time fields and date filters, the admin's date buttons, the management
commands and the tasks' ``now`` all read through it, so they accept the same
spellings (ISO 8601 / RFC 3339 with ``Z`` or an offset; a space for ``T``; minutes
without seconds) and refuse the same mistakes in the same words. A value without a
UTC offset is refused, never read in the server's zone: a schedule an hour off is
worse than an error. Each way in shows the error its own way (a 400 keyed by the
field, a form error, a ``CommandError``) from :class:`InvalidInstantError`'s
``message``.

:func:`describe_instant` shows an instant to a person, on the wall clock of the
series' zone, named: "Tue 2 Feb 2027 18:30 (Europe/Vienna)". Everything that names
one date in words (admin pages and messages, the services' errors and so the API's
messages, the booked dates, the commands, the example site) goes through it.

Not here: the exdates the app stores itself (``rules.parse_instant`` and
``rules.format_instant`` read and write that storage form), and the admin series
form's start and until (a date and a time *in the rule's zone*, which
``rules.localize`` turns into an instant).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django import forms
from django.utils import formats
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext, pgettext

from . import rules

UTC = dt.UTC
# Instants accepted as input. Every event schedule fits; near the ends of Python's
# datetime range, the day-sized arithmetic of rule maths would overflow.
EARLIEST = dt.datetime(1900, 1, 1, tzinfo=UTC)
LATEST = dt.datetime(3000, 1, 1, tzinfo=UTC)
# What the API schema promises for an input instant (an OpenAPI ``pattern`` beside
# ``format: date-time``): RFC 3339 with seconds (no leap second) and an offset, in
# the years EARLIEST.year to LATEST.year - 1 as written. The parser accepts a few
# more spellings (a space for T, no seconds) for people typing into forms.
ACCEPTED_DATETIME_PATTERN = (
    r"^(19|2[0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-5][0-9]"
    r"([.][0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)


class InvalidInstantError(ValueError):
    """A text that is not an aware instant in the accepted range.

    ``code`` says which mistake (``"invalid"``: not a date and time at all;
    ``"naive"``: no UTC offset; ``"range"``: a year outside 1900-2999), ``message``
    says it to a person, in the active language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_aware_instant(value: Any) -> dt.datetime:
    """``value`` (a text, or an aware datetime) as a UTC instant; InvalidInstantError if not one.

    Read with Django's ``parse_datetime``, after trimming and upper-casing (RFC 3339
    allows a lowercase ``t`` and ``z``, which Python's parser does not read).
    """
    parsed: dt.datetime | None = None
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = parse_datetime(value.strip().upper())
        except ValueError:  # well formed but impossible, such as month 13
            parsed = None
    if parsed is None:
        raise InvalidInstantError(
            "invalid",
            gettext(
                "Not a date and time; give one in ISO 8601 with a UTC offset, such as "
                "2027-06-01T18:30:00+02:00 or 2027-06-01T16:30:00Z."
            ),
        )
    if not rules.is_aware(parsed):
        # The value as typed, with an offset: the quickest fix to copy.
        wall_clock = parsed.replace(microsecond=0).isoformat()
        raise InvalidInstantError(
            "naive",
            gettext("The date and time has no UTC offset; add one, such as %(utc)s or %(offset)s.")
            % {"utc": f"{wall_clock}Z", "offset": f"{wall_clock}+01:00"},
        )
    # The year as written rather than the UTC instant's: the schema states the range
    # as a pattern over the text, and 1900-01-01T00:30+01:00 (1899 in UTC) is in it.
    if not EARLIEST.year <= parsed.year < LATEST.year:
        raise InvalidInstantError(
            "range",
            gettext("Out of range; give a date and time from 1900 up to (not including) 3000."),
        )
    return parsed.astimezone(UTC)


class AwareInstantField(forms.Field):
    """A form field for one instant typed as text, read by :func:`parse_aware_instant`.

    Used by the API's date filters and the admin's date buttons; its errors are the
    parser's, with the parser's codes.
    """

    def to_python(self, value: Any) -> dt.datetime | None:
        if value in self.empty_values:
            return None
        try:
            return parse_aware_instant(value)
        except InvalidInstantError as exc:
            raise forms.ValidationError(exc.message, code=exc.code) from None


def describe_instant(instant: dt.datetime, zone: str | None) -> str:
    """One instant as the series' people read it: "Thu 3 Dec 2026 18:30 (Europe/Berlin)".

    The wall clock in ``zone`` (the rule's IANA zone; UTC when the series has no
    rule), then the zone's name. This is the one way the app shows a single date and
    time to a person: the admin's pages and messages, the services' errors (the
    API's messages), the booked dates, the management commands and the example
    site all call it, so they read alike. Seconds are shown only when the instant
    has some. A wall-clock time that happens twice on a fall-back night gets its UTC
    offset too ("Sun 7 Nov 2027 01:30 (America/New_York, UTC-05:00)"), so the two
    readings never look the same.
    """
    name = zone or "UTC"
    local = instant.astimezone(zoneinfo.ZoneInfo(name))
    if local.second:
        pattern = pgettext("date and time of one instant, with seconds", "D j M Y H:i:s")
    else:
        pattern = pgettext("date and time of one instant", "D j M Y H:i")
    values = {"when": formats.date_format(local, pattern), "zone": name}
    if local.utcoffset() == local.replace(fold=1 - local.fold).utcoffset():
        return gettext("%(when)s (%(zone)s)") % values
    return gettext("%(when)s (%(zone)s, UTC%(offset)s)") % {**values, "offset": _offset(local)}


def describe_day(instant: dt.datetime, zone: str | None) -> str:
    """The day of ``instant`` on the wall clock of ``zone``, without its time: "Tue 8 Dec 2026"."""
    local = instant.astimezone(zoneinfo.ZoneInfo(zone or "UTC"))
    return formats.date_format(local, pgettext("a date without its time", "D j M Y"))


def _offset(local: dt.datetime) -> str:
    # "+01:00", "-05:00", "+05:30": ISO 8601's spelling, whatever the zone abbreviates.
    offset = local.utcoffset()
    assert offset is not None
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


__all__ = [
    "ACCEPTED_DATETIME_PATTERN",
    "EARLIEST",
    "LATEST",
    "AwareInstantField",
    "InvalidInstantError",
    "describe_day",
    "describe_instant",
    "parse_aware_instant",
]
