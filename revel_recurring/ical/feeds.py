"""Calendars: a series' or several series' feed, its validators, the feed of a deleted series.

The public entry points of the package (re-exported by :mod:`revel_recurring.ical`).
A calendar holds the VEVENTs each series contributes (:mod:`.series`) and the
VTIMEZONEs they use (:mod:`.zones`), read from rows fetched for the whole feed
(:mod:`.rows`). Nothing here speaks HTTP: :mod:`.responses` answers requests
with what this builds.

Only what is materialized is exported as it is; beyond the generation cursor the
RRULE stands for the slots generation will create. A paused series, or one whose
new occurrences are drafts (``auto_publish`` off), will not show new dates by
itself, so its RRULE ends at the cursor.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
from collections.abc import Iterable
from typing import Any

import icalendar
from django.db import models
from django.utils import timezone, translation

from .. import __version__
from ..adapter import get_adapter
from ..context import building_feed
from ..models import DeletedSeries, EventSeries
from .rows import FeedRows, past_cutoff, series_revisions
from .series import SeriesExport
from .values import text_value
from .zones import add_timezones

__all__ = [
    "PRODID",
    "REFRESH_INTERVAL",
    "CalendarFeed",
    "FeedRevision",
    "calendar_feed",
    "deleted_series_feed",
    "feed_revision",
    "series_calendar",
    "series_feed",
]

PRODID = f"-//revel-recurring//revel-recurring {__version__}//EN"
# How often subscribers should poll (RFC 7986 REFRESH-INTERVAL; X-PUBLISHED-TTL is
# the older name Outlook and Apple read).
REFRESH_INTERVAL = dt.timedelta(hours=1)


@dataclasses.dataclass(frozen=True)
class FeedRevision:
    """A feed's validators, read without building it (:func:`feed_revision`).

    ``etag`` hashes which series the feed lists and each one's last change (plus
    the calendar name, the package version and the year, which the body also
    depends on), so it moves when a series joins, leaves or changes: a poll is
    answered 304 from one query. ``last_modified`` is the latest change of any
    listed series, None for none.
    """

    etag: str
    last_modified: dt.datetime | None


@dataclasses.dataclass(frozen=True)
class CalendarFeed:
    """A rendered calendar: the bytes, when it last changed, and its ETag.

    The ETag is the one :func:`feed_revision` gives for the same series, so a
    client's copy of the body can be revalidated without building it again.
    """

    body: bytes
    last_modified: dt.datetime | None
    etag: str


def _revision_of(
    name: str, revisions: dict[Any, dt.datetime], *, cutoff: dt.datetime
) -> FeedRevision:
    """Validators from each listed series' last change (keyed by primary key).

    The body also depends on the calendar name, the package version, the year
    (time-zone definitions), the day of the past cutoff (which rows are shown)
    and the active language (the note of a date a holiday moved): all are in the
    ETag, so equal ETags mean equal bodies.
    """
    language = translation.get_language() or ""
    seed = [PRODID, name, str(dt.date.today().year), cutoff.date().isoformat(), language]
    for pk, revision in sorted(revisions.items(), key=lambda item: str(item[0])):
        seed.append(f"{pk}={revision.astimezone(dt.UTC).isoformat()}")
    digest = hashlib.sha256("\n".join(seed).encode()).hexdigest()[:40]
    return FeedRevision(etag=f'"{digest}"', last_modified=max(revisions.values(), default=None))


def feed_revision(
    series: models.QuerySet[EventSeries], *, name: str, now: dt.datetime | None = None
) -> FeedRevision:
    """The validators :func:`calendar_feed` would give ``series``, in one query.

    Reads, per series, the same stamps a build reads (the series row, its rule,
    the latest change stamp of its events and the latest ``OccurrenceChange``)
    as aggregates, without reading an event row. What an adapter hook reads from
    tables of its own (a room's name) is not part of it: see docs/howto/feeds.md.
    """
    now = now or timezone.now()
    return _revision_of(name, series_revisions(series), cutoff=past_cutoff(now))


def _calendar(name: str | None) -> icalendar.Calendar:
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    if name is not None:
        # Typed as TEXT: icalendar does not know NAME (RFC 7986) or X-WR-CALNAME and
        # would write a stored line break unescaped, a body it then refuses to build.
        calendar.add("name", icalendar.vText(text_value(name)))
        calendar.add("x-wr-calname", icalendar.vText(text_value(name)))
    calendar.add("refresh-interval", REFRESH_INTERVAL, parameters={"VALUE": "DURATION"})
    # An X- property is text to icalendar: typed explicitly so it reads "PT1H" (a
    # DURATION, what Outlook and Apple expect), not str(timedelta) "1:00:00".
    calendar.add("x-published-ttl", icalendar.vDuration(REFRESH_INTERVAL))
    return calendar


def _build(
    series_list: Iterable[EventSeries], *, name: str, now: dt.datetime | None = None
) -> tuple[icalendar.Calendar, FeedRevision]:
    adapter = get_adapter()
    now = now or timezone.now()
    calendar = _calendar(name)
    components: list[icalendar.Event] = []
    revisions: dict[Any, dt.datetime] = {}
    series_list = list(series_list)
    rows = FeedRows(series_list, adapter, now=now)
    with building_feed():
        for series in series_list:
            export = SeriesExport(series, adapter, rows)
            revisions[series.pk] = export.revision
            components.extend(export.components())
    for component in components:
        calendar.add_component(component)
    add_timezones(calendar, components)
    return calendar, _revision_of(name, revisions, cutoff=rows.cutoff)


def series_calendar(series: EventSeries, *, now: dt.datetime | None = None) -> icalendar.Calendar:
    """The series as an ``icalendar.Calendar`` (named after the series)."""
    return _build([series], name=series.name, now=now)[0]


def series_feed(series: EventSeries, *, now: dt.datetime | None = None) -> CalendarFeed:
    """The series rendered as RFC 5545 text (CRLF lines folded at 75 octets)."""
    return calendar_feed([series], name=series.name, now=now)


def calendar_feed(
    series_list: Iterable[EventSeries], *, name: str, now: dt.datetime | None = None
) -> CalendarFeed:
    """Several series in one calendar called ``name`` (an organisation's feed).

    ``last_modified`` is the latest change of any of them, None for no series.
    The caller decides which series the reader may see; drafts are left out here.
    Occurrences that started more than ``REVEL_RECURRING_FEED_PAST_DAYS`` before
    ``now`` (default: the current time) are left out.
    """
    calendar, revision = _build(series_list, name=name, now=now)
    return CalendarFeed(
        body=calendar.to_ical(), last_modified=revision.last_modified, etag=revision.etag
    )


def deleted_series_feed(deleted: DeletedSeries) -> CalendarFeed:
    """The feed of a deleted series: a calendar without a single event.

    Calendar apps replace a subscription's events with what the feed holds, so an
    empty calendar removes the series' dates from every subscriber's calendar;
    events marked ``STATUS:CANCELLED`` would not (recurring-ical-events, ical.js
    and the ``ical`` package all still list them: docs/decisions/
    0028-deleted-series-feeds.md). No name either: the apps keep the one they show,
    and the body says nothing of the series but that it is gone.
    """
    body = _calendar(None).to_ical()
    seed = f"{PRODID}\ndeleted\n{deleted.series_pk}\n{deleted.deleted_at.isoformat()}"
    digest = hashlib.sha256(seed.encode()).hexdigest()[:40]
    return CalendarFeed(body=body, last_modified=deleted.deleted_at, etag=f'"{digest}"')
