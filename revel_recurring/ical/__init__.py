"""iCalendar (RFC 5545): series as calendar feeds, and a recurrence rule read from iCalendar text.

A package of one module per part, whose public names are re-exported here:

- :mod:`~revel_recurring.ical.feeds`: calendars and their validators (the entry
  points: :func:`series_feed`, :func:`calendar_feed`, :func:`feed_revision`, ...);
- :mod:`~revel_recurring.ical.series`: the VEVENTs one series contributes, and
  :mod:`~revel_recurring.ical.master` the dates its master VEVENT names;
- :mod:`~revel_recurring.ical.values`: property values as RFC 5545 holds them;
- :mod:`~revel_recurring.ical.rows`: what a feed reads, in a fixed number of queries;
- :mod:`~revel_recurring.ical.zones`: the VTIMEZONE blocks;
- :mod:`~revel_recurring.ical.rule_import` and :mod:`~revel_recurring.ical.rule_parts`:
  :func:`rule_from_ical`;
- :mod:`~revel_recurring.ical.responses`: the HTTP answers (``text/calendar``, ETag,
  304), which stand with the adapters (also importable as ``revel_recurring.ical_http``).
"""

from __future__ import annotations

from .feeds import (
    PRODID,
    REFRESH_INTERVAL,
    CalendarFeed,
    FeedRevision,
    calendar_feed,
    deleted_series_feed,
    feed_revision,
    series_calendar,
    series_feed,
)
from .rule_import import rule_from_ical

__all__ = [
    "PRODID",
    "REFRESH_INTERVAL",
    "CalendarFeed",
    "FeedRevision",
    "calendar_feed",
    "deleted_series_feed",
    "feed_revision",
    "rule_from_ical",
    "series_calendar",
    "series_feed",
]
