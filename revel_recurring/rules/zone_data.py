"""Which time-zone rules a series' dates were placed with: a fingerprint of its zone's offsets.

Stored instants carry the UTC offset the zone had when they were computed. A
newer tz database (the system's files, or the ``tzdata`` package when the system
has none) may give a zone other offsets from some day on; every stored instant
after that day then shows at another wall-clock time. ``zoneinfo`` loads a zone
once per process and keeps it: a running process sees newer data only after a
restart or ``zoneinfo.ZoneInfo.clear_cache()``.

A fingerprint names the zone's UTC offsets over a span of instants, as
``zoneinfo`` loads them in this process, whichever source that is: the zone's
name, the offset at the span's start and every change of offset inside it.
Its text is ``"<first second>:<last second>:<hash>"``, so the same span can be
compared again later (:func:`fingerprint_holds`). Pure: no database.
"""

from __future__ import annotations

import calendar
import datetime as dt
import hashlib
import weakref
import zoneinfo

__all__ = ["fingerprint_holds", "widen_fingerprint", "zone_fingerprint", "zone_offsets"]

#: Offsets are sampled this far apart, then each change is searched to the second:
#: two changes of offset closer together than this would be missed.
_STEP = 6 * 3600
#: Per loaded zone (a new object after ``clear_cache()``): year -> its changes.
_YEARS: weakref.WeakKeyDictionary[zoneinfo.ZoneInfo, dict[int, tuple[tuple[int, int], ...]]] = (
    weakref.WeakKeyDictionary()
)


def _offset(zone: zoneinfo.ZoneInfo, second: int) -> int:
    """The zone's UTC offset in seconds at the Unix ``second``."""
    offset = dt.datetime.fromtimestamp(second, dt.UTC).astimezone(zone).utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def _changes_in_year(zone: zoneinfo.ZoneInfo, year: int) -> tuple[tuple[int, int], ...]:
    """Each change of offset in ``year`` (UTC) as (Unix second, new offset), cached per zone."""
    years = _YEARS.setdefault(zone, {})
    found = years.get(year)
    if found is not None:
        return found
    first = calendar.timegm((year, 1, 1, 0, 0, 0))
    last = calendar.timegm((year + 1, 1, 1, 0, 0, 0))
    changes: list[tuple[int, int]] = []
    before = _offset(zone, first - 1)
    second = first
    while second < last:
        ahead = min(second + _STEP, last)
        after = _offset(zone, ahead - 1)
        if after != before:
            low, high = second - 1, ahead - 1  # offset(low) == before, offset(high) != before
            while high - low > 1:
                middle = (low + high) // 2
                if _offset(zone, middle) == before:
                    low = middle
                else:
                    high = middle
            changes.append((high, _offset(zone, high)))
            before = _offset(zone, high)
            second = high + 1
            continue
        second = ahead
    years[year] = tuple(changes)
    return years[year]


def zone_offsets(zone_name: str, start: dt.datetime, end: dt.datetime) -> list[tuple[int, int]]:
    """The offset of ``zone_name`` at ``start`` and each change of it up to ``end`` (inclusive),
    as (Unix second, offset in seconds), the first at ``start``'s second."""
    zone = zoneinfo.ZoneInfo(zone_name)
    first, last = int(start.timestamp()), int(end.timestamp())
    found = [(first, _offset(zone, first))]
    for year in range(start.astimezone(dt.UTC).year, end.astimezone(dt.UTC).year + 1):
        found.extend(
            (second, offset)
            for second, offset in _changes_in_year(zone, year)
            if first < second <= last
        )
    return found


def zone_fingerprint(zone_name: str, start: dt.datetime, end: dt.datetime) -> str:
    """The fingerprint of ``zone_name``'s offsets from ``start`` to ``end`` (see the module):
    ``"<start second>:<end second>:<hash>"``."""
    if end < start:
        end = start
    first, last = int(start.timestamp()), int(end.timestamp())
    text = zone_name + ";" + ";".join(f"{s}={o}" for s, o in zone_offsets(zone_name, start, end))
    return f"{first}:{last}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def fingerprint_holds(stored: str, zone_name: str) -> bool:
    """Whether ``stored`` (a :func:`zone_fingerprint`) still names the offsets ``zoneinfo``
    loads now over its span. An empty or unreadable fingerprint (dates placed before
    fingerprints were kept) or an unknown zone holds: nothing is known to compare
    with."""
    first, _, rest = stored.partition(":")
    last, _, _ = rest.partition(":")
    try:
        start = dt.datetime.fromtimestamp(int(first), dt.UTC)
        end = dt.datetime.fromtimestamp(int(last), dt.UTC)
        return zone_fingerprint(zone_name, start, end) == stored
    except (ValueError, OverflowError, OSError, zoneinfo.ZoneInfoNotFoundError):
        return True


def widen_fingerprint(stored: str, zone_name: str, until: dt.datetime) -> str:
    """``stored`` made to cover up to ``until`` too (a date placed beyond the span), when
    it still holds; otherwise (or empty, or covering ``until`` already) as it is."""
    first, _, rest = stored.partition(":")
    last, _, _ = rest.partition(":")
    try:
        start = dt.datetime.fromtimestamp(int(first), dt.UTC)
        end = dt.datetime.fromtimestamp(int(last), dt.UTC)
    except (ValueError, OverflowError, OSError):
        return stored
    if until <= end or not fingerprint_holds(stored, zone_name):
        return stored
    return zone_fingerprint(zone_name, start, until)
