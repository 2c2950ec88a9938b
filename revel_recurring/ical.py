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
from collections.abc import Iterable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
from django.db import connections, models
from django.db.models import Exists, F, Max, OuterRef, Subquery, Value
from django.db.models.functions import MD5

from . import __version__, rules
from .adapter import DefaultRecurringAdapter, get_adapter
from .host_model import bulky_fields
from .ical_import import rule_from_ical
from .models import EventSeries, OccurrenceChange, get_event_model

__all__ = [
    "CalendarFeed",
    "FeedRevision",
    "calendar_feed",
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


def _revision_of(name: str, revisions: dict[Any, dt.datetime]) -> FeedRevision:
    """Validators from each listed series' last change (keyed by primary key)."""
    seed = [PRODID, name, str(dt.date.today().year)]
    for pk, revision in sorted(revisions.items(), key=lambda item: str(item[0])):
        seed.append(f"{pk}={revision.astimezone(dt.UTC).isoformat()}")
    digest = hashlib.sha256("\n".join(seed).encode()).hexdigest()[:40]
    return FeedRevision(etag=f'"{digest}"', last_modified=max(revisions.values(), default=None))


def feed_revision(series: models.QuerySet[EventSeries], *, name: str) -> FeedRevision:
    """The validators :func:`calendar_feed` would give ``series``, in one query.

    Reads, per series, the same stamps a build reads (the series row, its rule,
    the latest change stamp of its events and the latest ``OccurrenceChange``)
    as aggregates, without reading an event row. What an adapter hook reads from
    tables of its own (a room's name) is not part of it: see the README.
    """
    model = get_event_model()
    updated = model.RECURRING_UPDATED_FIELD
    events_at: Any = Value(None, output_field=models.DateTimeField())
    if updated:
        events_at = Subquery(
            model._default_manager.filter(series=OuterRef("pk"))
            .order_by()
            .values("series")
            .annotate(_at=Max(updated))
            .values("_at")
        )
    change_at = Subquery(
        OccurrenceChange.objects.filter(series=OuterRef("pk")).order_by("-at").values("at")[:1]
    )
    rows = (
        EventSeries.objects.filter(pk__in=series.values("pk"))
        .order_by()
        .annotate(_rule_at=F("recurrence_rule__updated_at"), _events_at=events_at)
        .annotate(_change_at=change_at)
        .values_list("pk", "created_at", "updated_at", "_rule_at", "_events_at", "_change_at")
    )
    revisions = {pk: max(stamp for stamp in stamps if stamp is not None) for pk, *stamps in rows}
    return _revision_of(name, revisions)


# Occurrences whose long texts differ from the template's are read this many at a
# time: a feed of hand-edited descriptions holds only what it prints.
_DIFFERING_BATCH = 100


class _FeedRows:
    """The rows of every series of a feed, in a number of queries that does not grow with them.

    One query reads the templates, one the occurrences of all the series, one
    aggregate their last ``OccurrenceChange``; only occurrences whose long texts
    were edited on their own add queries, one per ``_DIFFERING_BATCH``.

    Long texts (``host_model.bulky_fields``) are read once, from the template:
    an occurrence whose texts equal its template's (the database compares them)
    shares the template's values instead of a copy of its own, so the memory of
    a feed does not grow with a description copied onto every occurrence.
    """

    def __init__(self, series_pks: list[Any]) -> None:
        self.model = get_event_model()
        manager = self.model._default_manager
        self.templates: dict[Any, Any] = {}
        self.occurrences: dict[Any, list[Any]] = {}
        self.last_changes: dict[Any, dt.datetime] = {}
        if not series_pks:
            return
        for template in manager.filter(series_id__in=series_pks, is_template=True).order_by("-pk"):
            # Ordered so that the first template (by key) wins, as ``.first()`` did.
            self.templates[template.series_id] = template
        for occurrence in self._light_occurrences(series_pks):
            self.occurrences.setdefault(occurrence.series_id, []).append(occurrence)
        changes = (
            OccurrenceChange.objects.filter(series_id__in=series_pks)
            .order_by()
            .values("series_id")
            .annotate(_last=Max("at"))
            .values_list("series_id", "_last")
        )
        self.last_changes = dict(changes)

    def _light_occurrences(self, series_pks: list[Any]) -> list[Any]:
        manager = self.model._default_manager
        rows = manager.filter(series_id__in=series_pks, is_template=False)
        names = set(bulky_fields(self.model))
        bulky = [field for field in self.model._meta.concrete_fields if field.name in names]
        if not bulky:
            return list(rows)
        same = Exists(self._template_with_texts_of(bulky))
        occurrences = list(
            rows.defer(*(field.name for field in bulky)).annotate(_revel_same_texts=same)
        )
        differing = []
        for occurrence in occurrences:
            template = self.templates.get(occurrence.series_id)
            if occurrence._revel_same_texts and template is not None:
                for field in bulky:
                    setattr(occurrence, field.attname, getattr(template, field.attname))
            else:
                differing.append(occurrence)
        attnames = [field.attname for field in bulky]
        for start in range(0, len(differing), _DIFFERING_BATCH):
            batch = {o.pk: o for o in differing[start : start + _DIFFERING_BATCH]}
            for pk, *values in manager.filter(pk__in=list(batch)).values_list("pk", *attnames):
                for attname, value in zip(attnames, values, strict=True):
                    setattr(batch[pk], attname, value)
        return occurrences

    def _template_with_texts_of(self, bulky: list[Any]) -> Any:
        """The outer row's template, when each of its ``bulky`` values equals the outer row's."""
        template = self.model._default_manager.filter(
            series_id=OuterRef("series_id"), is_template=True
        )
        if connections[template.db].vendor != "mysql":
            return template.filter(**{field.name: OuterRef(field.name) for field in bulky})
        # MySQL and MariaDB compare text under the column's collation, where "Hall"
        # equals "hall": compare the texts' MD5 (of their bytes) instead. Their JSON
        # and blob columns compare bytes already.
        exact: dict[str, Any] = {}
        for field in bulky:
            if isinstance(field, models.TextField):
                template = template.alias(**{f"_revel_md5_{field.name}": MD5(field.name)})
                exact[f"_revel_md5_{field.name}"] = MD5(OuterRef(field.name))
            else:
                exact[field.name] = OuterRef(field.name)
        return template.filter(**exact)


class _SeriesExport:
    """Everything one series contributes to a calendar, from rows read for the whole feed."""

    def __init__(
        self, series: EventSeries, adapter: DefaultRecurringAdapter, rows: _FeedRows
    ) -> None:
        self.series = series
        self.adapter = adapter
        self.model = rows.model
        self.rule = series.recurrence_rule
        self.template = rows.templates.get(series.pk)
        self.occurrences = sorted(
            rows.occurrences.get(series.pk, []), key=lambda r: (r.recurrence_id is None, r.pk)
        )
        self.revision = self._revision(rows.last_changes.get(series.pk))
        domain = adapter.get_ical_uid_domain()
        self.uid = f"revel-recurring-series-{series.pk}@{domain}"
        self.domain = domain

    def _revision(self, last_change: dt.datetime | None) -> dt.datetime:
        stamps = [self.series.updated_at, self.series.created_at]
        if self.rule is not None:
            stamps.append(self.rule.updated_at)
        updated = self.model.RECURRING_UPDATED_FIELD
        if updated:
            rows = [*self.occurrences, *([self.template] if self.template else [])]
            stamps.extend(v for v in (getattr(r, updated) for r in rows) if v is not None)
        if last_change is not None:
            stamps.append(last_change)
        return max(stamps)

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
        if status in (self.model.RECURRING_STATUS_DRAFT, self.model.RECURRING_STATUS_CANCELLED):
            return False
        # An occurrence narrowed on its own (members-only in a public series) is
        # not the feed's to show: its slot becomes an EXDATE like a cancelled one.
        return self.adapter.is_ical_exported(event, self.series, self.template)

    def _details(self, event: Any) -> _Details:
        series, adapter = self.series, self.adapter
        end_field = self.model.RECURRING_END_FIELD
        end = getattr(event, end_field) if end_field else None
        return _Details(
            summary=adapter.get_ical_summary(event, series),
            description=adapter.get_ical_description(event, series),
            location=adapter.get_ical_location(event, series),
            geo=adapter.get_ical_geo(event, series),
            url=adapter.get_ical_url(event, series),
            duration=None if end is None else end - event.occurrence_start,
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
        self, component: icalendar.Event, start: dt.datetime, duration: dt.timedelta | None
    ) -> None:
        zone = ZoneInfo(self.rule.timezone) if self.rule is not None else dt.UTC
        component.add("dtstart", start.astimezone(zone))
        if duration is not None:
            component.add("dtend", (start + duration).astimezone(zone))

    def components(self) -> list[icalendar.Event]:
        shown = [o for o in self.occurrences if self._shown(o)]
        if self.rule is None or self.template is None:
            return [self._standalone(o) for o in shown]
        spec = self.rule.to_spec()
        rids = [o.recurrence_id for o in self.occurrences if o.recurrence_id is not None]
        slots: set[dt.datetime] = set()
        if rids:
            slots = set(rules.occurrences_between(spec, min(rids), max(rids), inclusive=True))
        on_rule = [o for o in shown if o.recurrence_id in slots]
        off_rule = [o for o in shown if o.recurrence_id not in slots]
        result = []
        master = self._master(spec, slots, on_rule)
        if master is not None:
            result.append(master[0])
            base = master[1]
            for occurrence in on_rule:
                details = self._details(occurrence)
                moved = occurrence.occurrence_start != occurrence.recurrence_id
                if moved or details != base:
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
        first_rule_slot = rules.first_occurrence_after(spec, spec.dtstart, inclusive=True)
        if first_rule_slot is None:
            return None
        materialized = sorted(slots & {o.recurrence_id for o in self.occurrences})
        # Slots before the first row were never generated (generation skips the
        # past): start the exported rule at the first row, on a real slot, so the
        # weeks or months that are "on" stay the same.
        first = materialized[0] if materialized else first_rule_slot
        cursor = series.last_generated_until
        cap: dt.datetime | None = None
        if not (series.is_active and series.auto_publish):
            if cursor is None or not on_rule:
                return None
            cap = cursor
        exported = spec
        # RFC 5545 counts DTSTART as the first instance even when the rule does not
        # produce it: a dtstart off the rule (a series "from" a Tuesday on a Mon/Wed
        # rule, or kept through a Tue -> Thu cadence change) would show a date that
        # has no row, or a drifted row twice. The exported DTSTART is always ``first``.
        if first != spec.dtstart or cap is not None:
            last = spec.until
            if spec.count is not None:
                every = list(rules.iter_occurrences(spec))
                last = every[-1] if every else None
            if cap is not None and (last is None or cap < last):
                last = cap
            wall_clock = dt.datetime.combine(
                first.astimezone(zone).date(), spec.local_dtstart.time()
            )
            exported = dataclasses.replace(
                spec, dtstart=wall_clock.replace(tzinfo=zone), count=None, until=last
            )
        hidden: set[dt.datetime] = {
            o.recurrence_id
            for o in self.occurrences
            if o.recurrence_id is not None and not self._shown(o)
        }
        if cursor is not None:
            upto = cursor if cap is None else min(cursor, cap)
            generated = rules.occurrences_between(exported, first, upto, inclusive=True)
            hidden |= set(generated) - set(materialized)
        hidden |= {
            instant
            for instant in series.exdate_instants
            if instant >= first and rules.is_occurrence(exported, instant)
        }
        base = self._details(self.template)
        component = icalendar.Event()
        component.add("uid", self.uid)
        self._timed(component, exported.dtstart, base.duration)
        rrule_line = rules.to_rrule_string(exported).split("\n", 1)[1]
        component.add("rrule", icalendar.vRecur.from_ical(rrule_line.removeprefix("RRULE:")))
        for instant in sorted(i for i in hidden if i >= first):
            component.add("exdate", instant.astimezone(zone))
        self._stamp(component, base)
        return component, base

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


def _calendar(name: str) -> icalendar.Calendar:
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("name", name)
    calendar.add("x-wr-calname", name)
    calendar.add("refresh-interval", REFRESH_INTERVAL, parameters={"VALUE": "DURATION"})
    # An X- property is text to icalendar: typed explicitly so it reads "PT1H" (a
    # DURATION, what Outlook and Apple expect), not str(timedelta) "1:00:00".
    calendar.add("x-published-ttl", icalendar.vDuration(REFRESH_INTERVAL))
    return calendar


def _add_timezones(calendar: icalendar.Calendar, components: Sequence[icalendar.Event]) -> None:
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
    _one_rdate_per_line(calendar)


def _one_rdate_per_line(calendar: icalendar.Calendar) -> None:
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


def _build(
    series_list: Iterable[EventSeries], *, name: str
) -> tuple[icalendar.Calendar, FeedRevision]:
    adapter = get_adapter()
    calendar = _calendar(name)
    components: list[icalendar.Event] = []
    revisions: dict[Any, dt.datetime] = {}
    series_list = list(series_list)
    rows = _FeedRows([series.pk for series in series_list])
    for series in series_list:
        export = _SeriesExport(series, adapter, rows)
        revisions[series.pk] = export.revision
        components.extend(export.components())
    for component in components:
        calendar.add_component(component)
    _add_timezones(calendar, components)
    return calendar, _revision_of(name, revisions)


def series_calendar(series: EventSeries) -> icalendar.Calendar:
    """The series as an ``icalendar.Calendar`` (named after the series)."""
    return _build([series], name=series.name)[0]


def series_feed(series: EventSeries) -> CalendarFeed:
    """The series rendered as RFC 5545 text (CRLF lines folded at 75 octets)."""
    return calendar_feed([series], name=series.name)


def calendar_feed(series_list: Iterable[EventSeries], *, name: str) -> CalendarFeed:
    """Several series in one calendar called ``name`` (an organisation's feed).

    ``last_modified`` is the latest change of any of them, None for no series.
    The caller decides which series the reader may see; drafts are left out here.
    """
    calendar, revision = _build(series_list, name=name)
    return CalendarFeed(
        body=calendar.to_ical(), last_modified=revision.last_modified, etag=revision.etag
    )
