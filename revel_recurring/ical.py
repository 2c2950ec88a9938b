"""iCalendar (RFC 5545) export of series, and rule import (:func:`rule_from_ical`).

A series becomes one master VEVENT (DTSTART with the rule's TZID, the rule's RRULE,
one EXDATE line per slot that is not shown), one override VEVENT per shown
occurrence that differs from its slot (RECURRENCE-ID = the original slot) and one
standalone VEVENT per occurrence that no longer matches the rule (drift kept on
purpose). Draft and cancelled occurrences are never shown, nor those the
adapter's ``is_ical_exported`` leaves out (narrower visibility than their series).
Nothing here speaks HTTP: :mod:`revel_recurring.ical_http` answers requests with
what this builds.

Only what is materialized is exported as it is; beyond the generation cursor the
RRULE stands for the slots generation will create. A paused series, or one whose
new occurrences are drafts (``auto_publish`` off), will not show new dates by
itself, so its RRULE ends at the cursor.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
from django.db import models
from django.utils import timezone, translation
from django.utils.translation import gettext

from . import __version__, rules
from .adapter import DefaultRecurringAdapter, get_adapter
from .context import building_feed
from .holiday_rules import HolidayOutcome, HolidayPolicy
from .ical_import import rule_from_ical
from .ical_rows import FeedRows, past_cutoff, series_revisions
from .ical_zones import add_timezones
from .instants import describe_day
from .models import DeletedSeries, EventSeries

__all__ = [
    "CalendarFeed",
    "FeedRevision",
    "calendar_feed",
    "deleted_series_feed",
    "feed_revision",
    "rule_from_ical",
    "series_calendar",
    "series_feed",
]

PRODID = f"-//revel-recurring//revel-recurring {__version__}//EN"
# How often subscribers should poll (RFC 7986 REFRESH-INTERVAL; X-PUBLISHED-TTL is
# the older name Outlook and Apple read).
REFRESH_INTERVAL = dt.timedelta(hours=1)
# RFC 5545 SEQUENCE is an INTEGER (32-bit signed).
_MAX_SEQUENCE = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class _Details:
    summary: str
    description: str
    location: str
    geo: tuple[float, float] | None
    url: str
    duration: dt.timedelta | None


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


class _SeriesExport:
    """Everything one series contributes to a calendar, from rows read for the whole feed."""

    def __init__(
        self, series: EventSeries, adapter: DefaultRecurringAdapter, rows: FeedRows
    ) -> None:
        self.series = series
        self.adapter = adapter
        self.model = rows.model
        self.cutoff = rows.cutoff
        self.rule = series.recurrence_rule
        self.template = rows.templates.get(series.pk)
        self.excluded = rows.excluded[series.pk]
        self.occurrences = sorted(
            rows.occurrences.get(series.pk, []), key=lambda r: (r.recurrence_id is None, r.pk)
        )
        # The stamp of every row of the series, not only of those shown: the same
        # aggregate feed_revision reads, so a 304 and a build agree.
        self.revision = rows.revisions.get(series.pk, series.updated_at)
        domain = adapter.get_ical_uid_domain()
        self.uid = f"revel-recurring-series-{series.pk}@{domain}"
        self.domain = domain

    @property
    def sequence(self) -> int:
        """Seconds from the series' creation to its last change: grows with every change.

        Derived rather than stored, so that every writer (the services, the admin,
        the host's own saves of occurrences) advances it without knowing of it.
        """
        seconds = int((self.revision - self.series.created_at).total_seconds())
        return max(0, min(seconds, _MAX_SEQUENCE))

    def _shown(self, event: Any) -> bool:
        status = getattr(event, self.model.RECURRING_STATUS_FIELD)
        if self.model.is_status(
            status, self.model.RECURRING_STATUS_DRAFT, self.model.RECURRING_STATUS_CANCELLED
        ):
            return False
        # An occurrence narrowed on its own (members-only in a public series) is
        # not the feed's to show: its slot becomes an EXDATE like a cancelled one.
        return self.adapter.is_ical_exported(event, self.series, self.template)

    def _details(self, event: Any) -> _Details:
        series, adapter = self.series, self.adapter
        return _Details(
            summary=_text(adapter.get_ical_summary(event, series)),
            description=_text(adapter.get_ical_description(event, series)),
            location=_text(adapter.get_ical_location(event, series)),
            geo=adapter.get_ical_geo(event, series),
            url=adapter.get_ical_url(event, series),
            duration=event.occurrence_duration(),
        )

    def _stamp(self, component: icalendar.Event, details: _Details) -> None:
        component.add("dtstamp", self.revision)
        component.add("last-modified", self.revision)
        component.add("created", self.series.created_at)
        component.add("sequence", self.sequence)
        component.add("summary", details.summary)
        component.add("status", "CONFIRMED")
        if details.description:
            component.add("description", details.description)
        if details.location:
            component.add("location", details.location)
        if details.geo is not None:
            component.add("geo", (float(details.geo[0]), float(details.geo[1])))
        if details.url:
            component.add("url", details.url)

    def _timed(
        self,
        component: icalendar.Event,
        start: dt.datetime,
        duration: dt.timedelta | None,
        *,
        wall_clock: bool = False,
    ) -> None:
        """DTSTART (and DTEND) on the rule zone's clock; in UTC where that clock is ambiguous.

        A TZID time in the hour a fall-back night repeats names two instants, and
        the consumers disagree on which (ical.js takes the second, the others the
        first): such a start or end of one event is written in UTC, which names one.
        ``wall_clock``: the master's DTSTART, from which the RRULE counts on the
        wall clock, stays a TZID time (its first reading, the rule's own).
        """
        zone = ZoneInfo(self.rule.timezone) if self.rule is not None else dt.UTC
        component.add("dtstart", _on_clock(start, zone, exact=not wall_clock))
        if duration is not None:
            component.add("dtend", _on_clock(start + duration, zone, exact=not wall_clock))

    def components(self) -> list[icalendar.Event]:
        shown = [o for o in self.occurrences if self._shown(o)]
        if self.rule is None or self.template is None:
            return [self._standalone(o) for o in shown]
        spec = self.series.dates_spec(self.rule)
        rids = [o.recurrence_id for o in self.occurrences if o.recurrence_id is not None]
        slots: set[dt.datetime] = set()
        if rids:
            # One expansion per series: from the first row's slot to the later of the
            # last row's and the cursor, which the master's hidden slots need too.
            cursor = self.series.last_generated_until
            until = max(rids) if cursor is None else max(max(rids), cursor)
            slots = set(rules.occurrences_between(spec, min(rids), until, inclusive=True))
        # An extra date in the repeated hour of a fall-back night is no RDATE (a TZID
        # time there is read as either instant): its row is an event of its own.
        folded = _folded_extra_dates(spec)
        on_rule = [o for o in shown if o.recurrence_id in slots and o.recurrence_id not in folded]
        off_rule = [o for o in shown if o.recurrence_id not in slots or o.recurrence_id in folded]
        result = []
        master = self._master(spec, slots, on_rule)
        if master is not None:
            result.append(master[0])
            base = master[1]
            for occurrence in on_rule:
                details = self._details(occurrence)
                moved = occurrence.occurrence_start != occurrence.recurrence_id
                if moved:
                    details = self._with_holiday_note(occurrence, details)
                # A date of the rule in the repeated hour is expanded by each consumer
                # at its own reading of the TZID time: an override (its RECURRENCE-ID
                # matches whichever reading) puts it at its one instant.
                ambiguous = rules.fold_twin(occurrence.occurrence_start, spec.zone) is not None
                if moved or ambiguous or details != base:
                    result.append(self._override(occurrence, details))
        else:
            off_rule = shown
        result.extend(self._standalone(o) for o in off_rule)
        return result

    def _master(
        self,
        spec: rules.RuleSpec,
        slots: set[dt.datetime],
        on_rule: Sequence[Any],
    ) -> tuple[icalendar.Event, _Details] | None:
        series, zone = self.series, spec.zone
        materialized = sorted(slots & {o.recurrence_id for o in self.occurrences})
        # Slots before the first row were never generated (generation skips the
        # past) or are older than the feed shows (the past cutoff): start the
        # exported rule at the first row read, on a real slot, so the weeks or
        # months that are "on" stay the same.
        first = materialized[0] if materialized else None
        if first is None:
            since = max(spec.dtstart, self.cutoff)
            first = rules.first_occurrence_after(spec, since, inclusive=True)
            if first is None:
                return None
        cursor = series.last_generated_until
        cap: dt.datetime | None = None
        # A calendar app cannot know the series' holidays: the RRULE of a series
        # whose holidays skip or move dates ends at the cursor, where every date
        # is a row (skipped ones an EXDATE, shifted ones an override), and the
        # feed grows with the window (docs/decisions/0037-holiday-rules.md).
        if not (series.is_active and series.auto_publish) or _holidays_move_dates(spec):
            if cursor is None or not on_rule:
                return None
            # A cursor stepped back (a restore, an applied plan) leaves the rows
            # generated beyond it: they are dates too, and the slots between
            # them without a row are hidden below like those before the cursor.
            cap = max(cursor, materialized[-1]) if materialized else cursor
        # The RRULE and its DTSTART come from the rule's own dates; the extra dates
        # are RDATE lines beside them (RFC 5545 §3.8.5.2), which COUNT and UNTIL
        # do not bound. ``anchor`` is the first date of the rule from ``first`` on:
        # a DTSTART on an extra date would make the rule's wall-clock time wrong.
        own = rules.rule_only(spec)
        anchor: dt.datetime | None = first
        if first in spec.extra_dates and not rules.is_occurrence(own, first):
            anchor = rules.first_occurrence_after(own, first)
        if anchor is None or (cap is not None and anchor > cap):
            # No date of the rule left to show, only extra dates: each row is a
            # VEVENT of its own. A master of DTSTART and RDATEs without an RRULE
            # loses its DTSTART in ical.js and the ical package.
            return None
        exported = own
        # RFC 5545 counts DTSTART as the first instance even when the rule does not
        # produce it: a dtstart off the rule (a series "from" a Tuesday on a Mon/Wed
        # rule, or kept through a Tue -> Thu cadence change) would show a date that
        # has no row, or a drifted row twice. The exported DTSTART is ``anchor``.
        if anchor != spec.dtstart or cap is not None:
            last = own.until
            if own.count is not None:
                every = list(rules.iter_occurrences(own))
                last = every[-1] if every else None
            if cap is not None and (last is None or cap < last):
                last = cap
            wall_clock = dt.datetime.combine(
                anchor.astimezone(zone).date(), own.local_dtstart.time()
            )
            exported = dataclasses.replace(
                own, dtstart=wall_clock.replace(tzinfo=zone), count=None, until=last
            )
        # Every date the feed may show from ``first`` on: the exported rule's and
        # the extra dates (up to the cap of a series that does not auto-publish).
        extra = sorted(i for i in spec.extra_dates if i >= first and (cap is None or i <= cap))
        every_date = dataclasses.replace(exported, extra_dates=frozenset(extra))
        hidden: set[dt.datetime] = {
            o.recurrence_id
            for o in self.occurrences
            if o.recurrence_id is not None and not self._shown(o)
        }
        if cursor is not None:
            upto = cursor if cap is None else cap
            if materialized:
                # ``exported`` has the slots of ``spec`` from ``first`` (a slot) on:
                # the ones expanded above, which reach the cursor.
                generated = sorted(slot for slot in slots if first <= slot <= upto)
            else:
                generated = rules.occurrences_between(every_date, first, upto, inclusive=True)
            hidden |= set(generated) - set(materialized)
        hidden |= {
            instant
            for instant in self.excluded
            if instant >= first and rules.is_occurrence(every_date, instant)
        }
        # A hidden extra date is simply not listed; a hidden date of the rule is an EXDATE.
        on_rrule = {i for i in extra if rules.is_occurrence(exported, i)}
        folded = _folded_extra_dates(spec)
        rdates = [i for i in extra if i not in hidden and i not in on_rrule and i not in folded]
        excluded_lines = sorted(
            i for i in hidden if i >= first and (i not in spec.extra_dates or i in on_rrule)
        )
        base = self._details(self.template)
        component = icalendar.Event()
        component.add("uid", self.uid)
        if series.split_from_id is not None:
            # The continuation of a split ("this and following") names the series
            # it continues; its own dates are its own VEVENT under its own UID.
            component.add(
                "related-to",
                f"revel-recurring-series-{series.split_from_id}@{self.domain}",
                parameters={"RELTYPE": "SIBLING"},
            )
        self._timed(component, exported.dtstart, base.duration, wall_clock=True)
        rrule_line = rules.to_rrule_string(exported).split("\n", 1)[1]
        component.add("rrule", icalendar.vRecur.from_ical(rrule_line.removeprefix("RRULE:")))
        # One property per date: ical.js misses dates that share one line.
        for instant in rdates:
            component.add("rdate", instant.astimezone(zone))
        for instant in excluded_lines:
            component.add("exdate", instant.astimezone(zone))
        self._stamp(component, base)
        return component, base

    def _with_holiday_note(self, occurrence: Any, details: _Details) -> _Details:
        """``details`` with a note first in its description when a holiday moved the date.

        A calendar app shows the override on its new day under the usual title and
        cannot tell why it moved: the note names the holiday and the day it left, in
        the language active while the feed is built (docs/decisions/0040).
        """
        slot = occurrence.recurrence_id
        fate = self.excluded.holiday_of(slot)
        placer = self.excluded.holidays
        if fate is None or fate.outcome is not HolidayOutcome.SHIFTED or placer is None:
            return details
        assert placer.rule is not None
        zone = self.rule.timezone if self.rule is not None else None
        note = gettext("Moved from %(date)s because of %(holiday)s.") % {
            "date": describe_day(slot, zone),
            "holiday": placer.rule.name_on(fate.day) or "",
        }
        description = f"{note}\n\n{details.description}" if details.description else note
        return dataclasses.replace(details, description=description)

    def _override(self, occurrence: Any, details: _Details) -> icalendar.Event:
        assert self.rule is not None
        component = icalendar.Event()
        component.add("uid", self.uid)
        component.add(
            "recurrence-id", occurrence.recurrence_id.astimezone(self.rule.to_spec().zone)
        )
        self._timed(component, occurrence.occurrence_start, details.duration)
        self._stamp(component, details)
        return component

    def _standalone(self, occurrence: Any) -> icalendar.Event:
        details = self._details(occurrence)
        component = icalendar.Event()
        component.add("uid", f"revel-recurring-event-{occurrence.pk}@{self.domain}")
        self._timed(component, occurrence.occurrence_start, details.duration)
        self._stamp(component, details)
        return component


def _on_clock(instant: dt.datetime, zone: dt.tzinfo, *, exact: bool) -> dt.datetime:
    """``instant`` on ``zone``'s clock; in UTC when ``exact`` and that clock time is ambiguous."""
    local = instant.astimezone(zone)
    if exact and isinstance(zone, ZoneInfo) and rules.fold_twin(local, zone) is not None:
        return instant.astimezone(dt.UTC)
    return local


def _folded_extra_dates(spec: rules.RuleSpec) -> frozenset[dt.datetime]:
    """``spec``'s extra dates (not of its rule too) in the repeated hour of a fall-back night."""
    own = rules.rule_only(spec)
    return frozenset(
        instant
        for instant in spec.extra_dates
        if rules.fold_twin(instant, spec.zone) is not None and not rules.is_occurrence(own, instant)
    )


def _text(value: str | None) -> str:
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


def _holidays_move_dates(spec: rules.RuleSpec) -> bool:
    return spec.holidays is not None and spec.holidays.policy is not HolidayPolicy.KEEP


def _calendar(name: str | None) -> icalendar.Calendar:
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    if name is not None:
        # Typed as TEXT: icalendar does not know NAME (RFC 7986) or X-WR-CALNAME and
        # would write a stored line break unescaped, a body it then refuses to build.
        calendar.add("name", icalendar.vText(_text(name)))
        calendar.add("x-wr-calname", icalendar.vText(_text(name)))
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
            export = _SeriesExport(series, adapter, rows)
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
