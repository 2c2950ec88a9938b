"""Which occurrences hold bookings, asked of the host once per page or series.

Bookings are sacred: nothing here or in the services that use it cancels, moves
or deletes a booked occurrence unless the caller asked for exactly that, and
every answer names the booked dates it kept. The host answers through the
mixin's batched ``booked_among`` hook (falling back to ``has_bookings()`` per row
for hosts that only override that one).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ... import rules
from ...instants import describe_instant
from ...models import EventSeries, get_event_model


@dataclass(frozen=True)
class BookedDate:
    """A booked occurrence as a person is told about it."""

    #: The host event's primary key.
    id: Any
    #: Its current start, a UTC instant.
    start: dt.datetime
    #: The start in the rule's zone: "Thu 3 Dec 2026 18:30 (Europe/Berlin)".
    display: str


def booked_ids(events: Iterable[Any]) -> set[Any]:
    """The primary keys of those of ``events`` that hold bookings: one call to the host."""
    rows = list(events)
    if not rows:
        return set()
    return set(get_event_model().booked_among(rows))


def series_zone(series: EventSeries | None) -> str | None:
    """The zone a series' dates are named in (its rule's), None for UTC."""
    if series is None or series.recurrence_rule_id is None:
        return None
    rule = series.recurrence_rule
    return rule.timezone if rule is not None else None


def booked_date(event: Any, zone: str | None) -> BookedDate:
    """``event`` (a booked occurrence) named in ``zone``."""
    start = rules.to_utc(event.occurrence_start)
    return BookedDate(id=event.pk, start=start, display=describe_instant(start, zone))


def booked_dates(events: Iterable[Any], *, zone: str | None) -> list[BookedDate]:
    """``events`` (booked occurrences) named in ``zone``, in start order."""
    dates = [booked_date(event, zone) for event in events]
    return sorted(dates, key=lambda date: (date.start, str(date.id)))


def list_dates(dates: Iterable[BookedDate]) -> str:
    """The dates as one comma-separated phrase for a message."""
    return ", ".join(date.display for date in dates)


__all__ = ["BookedDate", "booked_date", "booked_dates", "booked_ids", "list_dates", "series_zone"]
