"""The dates a series' master VEVENT names: the rule it exports, its RDATEs and EXDATEs.

:class:`~revel_recurring.ical.series.SeriesExport` writes the VEVENT; this
decides, from the series' rule and the rows read for the feed, which dates it
names, or that the series has no master (each shown row is then a VEVENT of its
own). One step per question: from which date the feed shows the rule
(:func:`_first_date`), whether the RRULE ends at the generation cursor
(:func:`_ends_at_cursor`), on which date of the rule the exported DTSTART stands
(:func:`_anchor`), the exported rule (:func:`_exported_rule`), the dates it must
hide (:func:`_hidden_dates`) and the lines that say so (:func:`_dated`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Sequence

from .. import rules
from ..holiday_rules import HolidayPolicy
from ..models import EventSeries


@dataclasses.dataclass(frozen=True)
class MasterDates:
    """What a master VEVENT says of dates: ``rule`` gives its DTSTART and RRULE."""

    rule: rules.RuleSpec
    rdate_lines: list[dt.datetime]
    exdate_lines: list[dt.datetime]


@dataclasses.dataclass(frozen=True)
class FeedSlots:
    """What the rows read for a feed say about one series' slots.

    ``slots``: the rule's slots from the first row's to the later of the last
    row's and the cursor (expanded once per series); ``rows``: the slots that
    have a row; ``hidden``: the slots of rows the feed does not show; ``excluded``:
    the series' excluded slots; ``cutoff``: the earliest start the feed shows;
    ``on_rule``: whether any shown row stands on a slot of the rule.
    """

    slots: set[dt.datetime]
    rows: set[dt.datetime]
    hidden: set[dt.datetime]
    excluded: Iterable[dt.datetime]
    cutoff: dt.datetime
    on_rule: bool


def master_dates(series: EventSeries, spec: rules.RuleSpec, seen: FeedSlots) -> MasterDates | None:
    """The dates of the master VEVENT of ``series`` (whose rule is ``spec``), None for none."""
    materialized = sorted(seen.slots & seen.rows)
    first = _first_date(spec, materialized, seen.cutoff)
    if first is None:
        return None
    cursor = series.last_generated_until
    cap: dt.datetime | None = None
    if _ends_at_cursor(series, spec):
        if cursor is None or not seen.on_rule:
            return None
        # A cursor stepped back (a restore, an applied plan) leaves the rows
        # generated beyond it: they are dates too, and the slots between
        # them without a row are hidden like those before the cursor.
        cap = max(cursor, materialized[-1]) if materialized else cursor
    own = rules.rule_only(spec)
    anchor = _anchor(spec, own, first)
    if anchor is None or (cap is not None and anchor > cap):
        # No date of the rule left to show, only extra dates: each row is a
        # VEVENT of its own. A master of DTSTART and RDATEs without an RRULE
        # loses its DTSTART in ical.js and the ical package.
        return None
    exported = _exported_rule(spec, own, anchor, cap)
    # Every date the feed may show from ``first`` on: the exported rule's and
    # the extra dates (up to the cap of a series that does not auto-publish).
    extra = sorted(i for i in spec.extra_dates if i >= first and (cap is None or i <= cap))
    every_date = dataclasses.replace(exported, extra_dates=frozenset(extra))
    hidden = seen.hidden | _hidden_dates(every_date, seen, materialized, first, cursor, cap)
    return _dated(spec, exported, extra, hidden, first)


def _first_date(
    spec: rules.RuleSpec, materialized: Sequence[dt.datetime], cutoff: dt.datetime
) -> dt.datetime | None:
    """The first date the master shows: the first row read, or the first slot from the cutoff.

    Slots before the first row were never generated (generation skips the past)
    or are older than the feed shows (the past cutoff): the exported rule starts
    at the first row read, on a real slot, so the weeks or months that are "on"
    stay the same.
    """
    if materialized:
        return materialized[0]
    return rules.first_occurrence_after(spec, max(spec.dtstart, cutoff), inclusive=True)


def _ends_at_cursor(series: EventSeries, spec: rules.RuleSpec) -> bool:
    """Whether the exported RRULE ends at the cursor: where the rows cannot be foreseen.

    A paused series, or one whose new dates are drafts, shows no new date by
    itself. A calendar app cannot know the series' holidays either: the RRULE of
    a series whose holidays skip or move dates ends at the cursor, where every
    date is a row (skipped ones an EXDATE, shifted ones an override), and the
    feed grows with the window (docs/decisions/0037-holiday-rules.md).
    """
    moving = spec.holidays is not None and spec.holidays.policy is not HolidayPolicy.KEEP
    return not (series.is_active and series.auto_publish) or moving


def _anchor(spec: rules.RuleSpec, own: rules.RuleSpec, first: dt.datetime) -> dt.datetime | None:
    """The first date of the rule (``own``, without extra dates) from ``first`` on.

    The RRULE and its DTSTART come from the rule's own dates; the extra dates
    are RDATE lines beside them (RFC 5545 §3.8.5.2), which COUNT and UNTIL do not
    bound. A DTSTART on an extra date would make the rule's wall-clock time wrong.
    """
    if first in spec.extra_dates and not rules.is_occurrence(own, first):
        return rules.first_occurrence_after(own, first)
    return first


def _exported_rule(
    spec: rules.RuleSpec, own: rules.RuleSpec, anchor: dt.datetime, cap: dt.datetime | None
) -> rules.RuleSpec:
    """The rule the RRULE exports: ``own`` from ``anchor`` on, ending at ``cap`` if any.

    RFC 5545 counts DTSTART as the first instance even when the rule does not
    produce it: a dtstart off the rule (a series "from" a Tuesday on a Mon/Wed
    rule, or kept through a Tue -> Thu cadence change) would show a date that has
    no row, or a drifted row twice. The exported DTSTART is ``anchor``; a COUNT
    becomes the UNTIL of its last date.
    """
    if anchor == spec.dtstart and cap is None:
        return own
    last = own.until
    if own.count is not None:
        every = list(rules.iter_occurrences(own))
        last = every[-1] if every else None
    if cap is not None and (last is None or cap < last):
        last = cap
    wall_clock = dt.datetime.combine(anchor.astimezone(spec.zone).date(), own.local_dtstart.time())
    return dataclasses.replace(
        own, dtstart=wall_clock.replace(tzinfo=spec.zone), count=None, until=last
    )


def _hidden_dates(
    every_date: rules.RuleSpec,
    seen: FeedSlots,
    materialized: Sequence[dt.datetime],
    first: dt.datetime,
    cursor: dt.datetime | None,
    cap: dt.datetime | None,
) -> set[dt.datetime]:
    """The dates of ``every_date`` the feed must hide: generated without a row, or excluded."""
    hidden: set[dt.datetime] = set()
    if cursor is not None:
        upto = cursor if cap is None else cap
        if materialized:
            # The exported rule has the slots of the series' rule from ``first``
            # (a slot) on: the ones expanded for the rows, which reach the cursor.
            generated = sorted(slot for slot in seen.slots if first <= slot <= upto)
        else:
            generated = rules.occurrences_between(every_date, first, upto, inclusive=True)
        hidden |= set(generated) - set(materialized)
    hidden |= {
        instant
        for instant in seen.excluded
        if instant >= first and rules.is_occurrence(every_date, instant)
    }
    return hidden


def _dated(
    spec: rules.RuleSpec,
    exported: rules.RuleSpec,
    extra: Sequence[dt.datetime],
    hidden: set[dt.datetime],
    first: dt.datetime,
) -> MasterDates:
    """The RDATEs and EXDATEs: a hidden extra date is left out, a hidden rule date is an EXDATE."""
    on_rrule = {i for i in extra if rules.is_occurrence(exported, i)}
    folded = folded_extra_dates(spec)
    rdate_lines = [i for i in extra if i not in hidden and i not in on_rrule and i not in folded]
    exdate_lines = sorted(
        i for i in hidden if i >= first and (i not in spec.extra_dates or i in on_rrule)
    )
    return MasterDates(rule=exported, rdate_lines=rdate_lines, exdate_lines=exdate_lines)


def folded_extra_dates(spec: rules.RuleSpec) -> frozenset[dt.datetime]:
    """``spec``'s extra dates (not of its rule too) in the repeated hour of a fall-back night.

    Such a date is no RDATE (a TZID time there is read as either instant): its
    row is an event of its own.
    """
    own = rules.rule_only(spec)
    return frozenset(
        instant
        for instant in spec.extra_dates
        if rules.fold_twin(instant, spec.zone) is not None and not rules.is_occurrence(own, instant)
    )
