"""The storage form of the instants a series keeps (exdates, extra dates, kept holidays)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from .clock import to_utc


def format_instant(value: dt.datetime) -> str:
    """The storage form of an exdate: ISO 8601 in UTC with a ``Z``."""
    return to_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_instant(value: str | dt.datetime) -> dt.datetime:
    """Parse a stored exdate (or an aware datetime) into a UTC instant."""
    if isinstance(value, dt.datetime):
        return to_utc(value)
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    return to_utc(dt.datetime.fromisoformat(text))


def normalize_exdates(values: Iterable[str | dt.datetime]) -> list[str]:
    """Deduplicated, sorted storage strings; the same instant in two zones is kept once."""
    return sorted({format_instant(parse_instant(v)) for v in values})


def split_stored(values: Iterable[str], at: dt.datetime) -> tuple[list[str], list[str]]:
    """Stored instants (exdates, extra dates) cut at ``at``: (before it, at or after it)."""
    instant = to_utc(at)
    before: list[str] = []
    later: list[str] = []
    for value in values:
        (later if parse_instant(value) >= instant else before).append(value)
    return before, later


def exdate_instants(values: Iterable[str | dt.datetime]) -> frozenset[dt.datetime]:
    """Stored exdates (strings or datetimes) as a set of UTC instants."""
    return frozenset(parse_instant(v) for v in values)
