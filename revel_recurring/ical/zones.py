"""The VTIMEZONE blocks of a feed: every zone its events use, one RDATE per line."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import icalendar


def add_timezones(calendar: icalendar.Calendar, components: Sequence[icalendar.Event]) -> None:
    """Add a VTIMEZONE for each TZID the components use, covering the years they span."""
    # Transitions are generated from the zone data for the span the events use;
    # Outlook shifts or refuses events whose TZID has no VTIMEZONE.
    years = [
        component.decoded(key).year
        for component in components
        for key in ("DTSTART", "RECURRENCE-ID")
        if key in component
    ]
    if not years:
        return
    # A rule without an end goes on after its last override: cover ten years past
    # the later of that and today (a subscription is refreshed long before).
    first = dt.date(max(min(years) - 1, 1), 1, 1)
    latest = max(*years, dt.date.today().year)
    last = dt.date(min(max(latest + 10, 2038), 9998), 1, 1)
    calendar.add_missing_timezones(first_date=first, last_date=last)
    one_rdate_per_line(calendar)


def one_rdate_per_line(calendar: icalendar.Calendar) -> None:
    """Split each comma-separated RDATE of the VTIMEZONEs into one line per date.

    A list in one line is valid RFC 5545, but ical.js (Thunderbird and many web
    calendars) reads only its first date, which puts every later switch an hour
    off; one date per line is read alike by every consumer.
    """
    for zone in calendar.walk("VTIMEZONE"):
        for observance in zone.subcomponents:
            if "RDATE" not in observance:
                continue
            found = observance.pop("RDATE")
            for value in found if isinstance(found, list) else [found]:
                for date in value.dts:
                    observance.add("rdate", date.dt)
