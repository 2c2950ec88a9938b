"""Wall clock and instant: the app's DST policy (:func:`localize`) and UTC.

A time inside a spring-forward gap is shifted forward by the gap (RFC 5545
§3.3.5: 02:30 on the gap day becomes 03:30) and still counts as an instance; an
ambiguous time on a fall-back day takes the first instant (``fold=0``).
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

UTC = dt.UTC


def is_aware(value: dt.datetime) -> bool:
    """Whether ``value`` names an instant (has a UTC offset), as Django's ``is_aware`` reads it."""
    return value.tzinfo is not None and value.utcoffset() is not None


def to_utc(value: dt.datetime) -> dt.datetime:
    """Normalise an aware datetime to UTC; naive values are refused."""
    if not is_aware(value):
        raise ValueError(f"expected an aware datetime, got naive {value.isoformat()}")
    return value.astimezone(UTC)


def localize(wall_clock: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    """Turn a naive wall-clock time in ``zone`` into a UTC instant (the DST policy).

    ``fold=0`` gives both halves of the policy at once (PEP 495): for an ambiguous
    time it selects the first instant, and for a time in a gap it applies the
    offset in force *before* the transition, which lands on the wall-clock time
    shifted forward by the gap.
    """
    return wall_clock.replace(tzinfo=zone, fold=0).astimezone(UTC)


def fold_twin(instant: dt.datetime, zone: ZoneInfo) -> dt.datetime | None:
    """The other instant with ``instant``'s wall-clock time in ``zone``, in UTC; None if none.

    On a fall-back night the hour the clocks go back happens twice: 02:30 in
    Vienna on 31 October 2027 is 00:30 UTC (``fold=0``) and, an hour later,
    01:30 UTC (``fold=1``). Every other wall-clock time names one instant only.
    """
    local = instant.astimezone(zone)
    twin = local.replace(fold=1 - local.fold).astimezone(UTC)
    return None if twin == to_utc(instant) else twin
