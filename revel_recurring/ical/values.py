"""Property values as RFC 5545 holds them: TEXT without control characters, times on a clock."""

from __future__ import annotations

import datetime as dt
import unicodedata
from zoneinfo import ZoneInfo

from .. import rules


def on_clock(instant: dt.datetime, zone: dt.tzinfo, *, exact: bool) -> dt.datetime:
    """``instant`` on ``zone``'s clock; in UTC when ``exact`` and that clock time is ambiguous."""
    local = instant.astimezone(zone)
    if exact and isinstance(zone, ZoneInfo) and rules.fold_twin(local, zone) is not None:
        return instant.astimezone(dt.UTC)
    return local


def text_value(value: str | None) -> str:
    """``value`` as RFC 5545 TEXT can hold it: line breaks as LF, no other control character.

    Names and titles with control characters are refused on the way in, but a
    feed answers for whatever is stored (rows written before, or by the host's own
    code): icalendar escapes a LF, a CR alone would end the line, and a control
    character other than a tab is no TEXT at all (RFC 5545 §3.3.11), so those are
    dropped.
    """
    # A host's hook may answer None for an empty description or location: no property.
    if not value:
        return ""
    if value.isprintable():
        return value
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(char for char in value if char in "\n\t" or unicodedata.category(char) != "Cc")
