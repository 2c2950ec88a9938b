"""What one series contributes to a calendar: its master VEVENT, overrides and VEVENTs of their own.

A series becomes one master VEVENT (DTSTART with the rule's TZID, the rule's RRULE,
one EXDATE line per slot that is not shown: :mod:`.master` decides its dates),
one override VEVENT per shown occurrence that differs from its slot
(RECURRENCE-ID = the original slot) and one standalone VEVENT per occurrence that
no longer matches the rule (drift kept on purpose). Draft and cancelled
occurrences are never shown, nor those the adapter's ``is_ical_exported`` leaves
out (narrower visibility than their series).

Each VEVENT is written one property group at a time: who it is (``_identify``:
UID, RELATED-TO, RECURRENCE-ID), when (``_timed``: DTSTART, DTEND), which dates
the master names (``_recurrence``: RRULE, RDATE, EXDATE), its revision
(``_revision``: DTSTAMP, LAST-MODIFIED, CREATED, SEQUENCE) and what it says
(``_described``: SUMMARY, STATUS, DESCRIPTION, LOCATION, GEO, URL). The last date
shown of a split's original says where the series continues, in its DESCRIPTION
and URL (:mod:`revel_recurring.halves`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

import icalendar

from .. import rules
from ..adapter import DefaultRecurringAdapter
from ..halves import continuation_note, continuation_url, half_link
from ..holiday_notes import holiday_move_note
from ..holiday_rules import HolidayOutcome
from ..models import EventSeries
from .master import FeedSlots, MasterDates, folded_extra_dates, master_dates
from .rows import FeedRows
from .values import on_clock, text_value

# RFC 5545 SEQUENCE is an INTEGER (32-bit signed).
_MAX_SEQUENCE = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class Details:
    """What a VEVENT says of one event, from the adapter's hooks and the event's length."""

    summary: str
    description: str
    location: str
    geo: tuple[float, float] | None
    url: str
    duration: dt.timedelta | None


class SeriesExport:
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
        # A split's original: its last date shown says where the series goes on.
        continuation = rows.continuations.get(series.pk)
        self.continued_by = (
            half_link(continuation, continuation, adapter) if continuation is not None else None
        )
        self.last_shown: Any = None

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

    def _details(self, event: Any) -> Details:
        series, adapter = self.series, self.adapter
        details = Details(
            summary=text_value(adapter.get_ical_summary(event, series)),
            description=text_value(adapter.get_ical_description(event, series)),
            location=text_value(adapter.get_ical_location(event, series)),
            geo=adapter.get_ical_geo(event, series),
            url=adapter.get_ical_url(event, series),
            duration=event.occurrence_duration(),
        )
        if event is self.last_shown:
            details = self._with_continuation_note(details)
        return details

    def _with_continuation_note(self, details: Details) -> Details:
        """``details`` of the original's last date with where the series continues first in
        its description, and the continuation's page (or feed) as its URL.

        Calendar apps show no RELATED-TO: without this, a subscriber to the original of
        a split would simply stop getting dates.
        """
        assert self.continued_by is not None
        note = text_value(continuation_note(self.continued_by))
        description = f"{note}\n\n{details.description}" if details.description else note
        url = continuation_url(self.continued_by) or details.url
        return dataclasses.replace(details, description=description, url=url)

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
        component.add("dtstart", on_clock(start, zone, exact=not wall_clock))
        if duration is not None:
            component.add("dtend", on_clock(start + duration, zone, exact=not wall_clock))

    def _revision(self, component: icalendar.Event) -> None:
        """DTSTAMP, LAST-MODIFIED, CREATED and SEQUENCE: the series' last change and creation."""
        component.add("dtstamp", self.revision)
        component.add("last-modified", self.revision)
        component.add("created", self.series.created_at)
        component.add("sequence", self.sequence)

    def _described(self, component: icalendar.Event, details: Details) -> None:
        """SUMMARY and STATUS, then DESCRIPTION, LOCATION, GEO and URL where there is one."""
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

    def components(self) -> list[icalendar.Event]:
        """The series' VEVENTs: its master and overrides, then the rows off the rule."""
        shown = [o for o in self.occurrences if self._shown(o)]
        if self.continued_by is not None and shown:
            self.last_shown = max(shown, key=lambda o: (o.occurrence_start, o.pk))
        if self.rule is None or self.template is None:
            return [self._standalone(o) for o in shown]
        spec = self.series.dates_spec(self.rule)
        slots = self._slots(spec)
        # An extra date in the repeated hour of a fall-back night is no RDATE (a TZID
        # time there is read as either instant): its row is an event of its own.
        folded = folded_extra_dates(spec)
        on_rule = [o for o in shown if o.recurrence_id in slots and o.recurrence_id not in folded]
        off_rule = [o for o in shown if o.recurrence_id not in slots or o.recurrence_id in folded]
        result = []
        master = self._master(spec, slots, on_rule)
        if master is not None:
            result.append(master[0])
            result.extend(self._overrides(spec, on_rule, master[1]))
        else:
            off_rule = shown
        result.extend(self._standalone(o) for o in off_rule)
        return result

    def _slots(self, spec: rules.RuleSpec) -> set[dt.datetime]:
        """The rule's slots from the first row's to the later of the last row's and the cursor.

        One expansion per series, which the master's hidden slots need too.
        """
        rids = [o.recurrence_id for o in self.occurrences if o.recurrence_id is not None]
        if not rids:
            return set()
        cursor = self.series.last_generated_until
        until = max(rids) if cursor is None else max(max(rids), cursor)
        return set(rules.occurrences_between(spec, min(rids), until, inclusive=True))

    def _overrides(
        self, spec: rules.RuleSpec, on_rule: Sequence[Any], base: Details
    ) -> list[icalendar.Event]:
        """An override for each row on the rule that the master alone would not show as it is."""
        result = []
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
        return result

    def _master(
        self, spec: rules.RuleSpec, slots: set[dt.datetime], on_rule: Sequence[Any]
    ) -> tuple[icalendar.Event, Details] | None:
        """The master VEVENT and what it says (overrides differ from it), None for none."""
        seen = FeedSlots(
            slots=slots,
            rows={o.recurrence_id for o in self.occurrences},
            hidden={
                o.recurrence_id
                for o in self.occurrences
                if o.recurrence_id is not None and not self._shown(o)
            },
            excluded=self.excluded,
            cutoff=self.cutoff,
            on_rule=bool(on_rule),
        )
        dates = master_dates(self.series, spec, seen)
        if dates is None:
            return None
        base = self._details(self.template)
        component = icalendar.Event()
        self._identify(component)
        self._timed(component, dates.rule.dtstart, base.duration, wall_clock=True)
        self._recurrence(component, dates, spec.zone)
        self._revision(component)
        self._described(component, base)
        return component, base

    def _identify(self, component: icalendar.Event, occurrence: Any = None) -> None:
        """The series' UID, and the slot of ``occurrence`` (an override) or RELATED-TO (a split)."""
        component.add("uid", self.uid)
        if occurrence is not None:
            assert self.rule is not None
            slot = occurrence.recurrence_id.astimezone(self.rule.to_spec().zone)
            component.add("recurrence-id", slot)
        elif self.series.split_from_id is not None:
            # The continuation of a split ("this and following") names the series
            # it continues; its own dates are its own VEVENT under its own UID.
            component.add(
                "related-to",
                f"revel-recurring-series-{self.series.split_from_id}@{self.domain}",
                parameters={"RELTYPE": "SIBLING"},
            )

    def _recurrence(self, component: icalendar.Event, dates: MasterDates, zone: ZoneInfo) -> None:
        """The master's RRULE, then one RDATE and one EXDATE property per date.

        One property per date: ical.js misses dates that share one line.
        """
        rrule_line = rules.to_rrule_string(dates.rule).split("\n", 1)[1]
        component.add("rrule", icalendar.vRecur.from_ical(rrule_line.removeprefix("RRULE:")))
        for instant in dates.rdate_lines:
            component.add("rdate", instant.astimezone(zone))
        for instant in dates.exdate_lines:
            component.add("exdate", instant.astimezone(zone))

    def _with_holiday_note(self, occurrence: Any, details: Details) -> Details:
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
        note = holiday_move_note(slot, placer.rule.name_on(fate.day) or "", zone)
        description = f"{note}\n\n{details.description}" if details.description else note
        return dataclasses.replace(details, description=description)

    def _override(self, occurrence: Any, details: Details) -> icalendar.Event:
        """A row on the rule that differs from the master, under the series' UID at its slot."""
        component = icalendar.Event()
        self._identify(component, occurrence)
        self._timed(component, occurrence.occurrence_start, details.duration)
        self._revision(component)
        self._described(component, details)
        return component

    def _standalone(self, occurrence: Any) -> icalendar.Event:
        """A row off the rule (or of a series without one): a VEVENT under its own UID."""
        details = self._details(occurrence)
        component = icalendar.Event()
        component.add("uid", f"revel-recurring-event-{occurrence.pk}@{self.domain}")
        self._timed(component, occurrence.occurrence_start, details.duration)
        self._revision(component)
        self._described(component, details)
        return component
