"""Which instants of a series are excluded between two bounds, and why.

The one read every part of the package asks before it treats a slot of the rule
as a date: generation, the next due moment, drift, the slot preview, the admin's
upcoming list and date picker, the feeds and the cancellation services. Today a
slot is excluded for one of three reasons (:class:`ExclusionReason`): it is in the
series' ``exdates`` column (cancelled by an organiser, or the slot of a deleted
occurrence already folded in), it is a :class:`~revel_recurring.models.PendingExdate`
(the slot of an occurrence a host deleted, not folded in yet), or a holiday of
the series' holiday calendar skips it (:mod:`~revel_recurring.holiday_rules`). A
reader never needs to know which store holds a slot: new reasons are added
here, and every reader sees them.

The stored exclusions are listed (iteration, ``len``); holiday exclusions are
answered per slot (``in``, :meth:`Exclusions.reason`, :meth:`Exclusions.get`),
since a rule without an end has holidays without an end. Ask about slots of
the rule: a holiday skips a slot, not any instant of its day.

Reads only, no lock. ``exdates`` is a column of the series row the caller
already holds; the pending rows are one query for one series or for any number
of them (:func:`excluded_for_series`). A caller that already reads them in a
statement of its own (generation, drift) passes what it read as ``pending`` and
adds no query; :func:`pending_instants_of` and :func:`pending_exdate_at` are the
expressions it reads them with.

Bounds are UTC instants and inclusive at both ends, like the rule maths'
``occurrences_between(..., inclusive=True)``; ``None`` leaves that end open.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Collection, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.db.models import Exists, OuterRef, QuerySet

from . import rules
from .holiday_placement import SHIFT_REACH, HolidayPlacer
from .holiday_rules import HolidayFate
from .models import EventSeries, PendingExdate, RecurrenceRule

__all__ = [
    "FOLDED",
    "Exclusion",
    "ExclusionReason",
    "Exclusions",
    "excluded_between",
    "excluded_for_series",
    "expected_starts",
    "holiday_placer",
    "pending_exdate_at",
    "pending_instants_of",
    "placed_dates",
    "read_pending",
]


class ExclusionReason(enum.StrEnum):
    """Why a slot is excluded. An instant excluded for several is listed under the first."""

    #: In the series' ``exdates``: cancelled, or a deleted occurrence's slot folded in.
    EXDATE = "exdate"
    #: A deleted occurrence's slot not folded into ``exdates`` yet (a ``PendingExdate``).
    PENDING_EXDATE = "pending_exdate"
    #: A holiday of the series' calendar skips it (policy ``skip``, or ``shift``
    #: with no free day in reach): :attr:`Exclusion.holiday` says which.
    HOLIDAY = "holiday"


_PRIORITY = {reason: position for position, reason in enumerate(ExclusionReason)}

#: ``pending=FOLDED``: the caller holds the series lock and has just folded the
#: pending slots into ``exdates`` (``services.exdates.absorb_pending_exdates``),
#: so there are none to read.
FOLDED: Final[Collection[dt.datetime]] = frozenset()


@dataclass(frozen=True, slots=True)
class Exclusion:
    """One excluded instant (UTC) and why it is excluded (``holiday``: which holiday skipped it)."""

    instant: dt.datetime
    reason: ExclusionReason
    holiday: HolidayFate | None = None


class Exclusions(Mapping[dt.datetime, Exclusion]):
    """The excluded instants of one series between two bounds: instant (UTC) -> :class:`Exclusion`.

    Iterates the stored exclusions in time order; ``instant in exclusions`` is a
    set lookup, or, for a series with a holiday calendar, also asks ``holidays``
    (a :class:`~revel_recurring.holiday_placement.HolidayPlacer`) whether a holiday
    skips that slot. It knows only the instants between ``start`` and ``end``
    (inclusive, ``None`` open): ask it about instants in that range.
    """

    __slots__ = ("_by_instant", "_instants", "end", "holidays", "start")

    def __init__(
        self,
        exclusions: Iterable[Exclusion] = (),
        *,
        start: dt.datetime | None = None,
        end: dt.datetime | None = None,
        holidays: HolidayPlacer | None = None,
    ) -> None:
        self.start = start
        self.end = end
        self.holidays = holidays
        found: dict[dt.datetime, Exclusion] = {}
        for exclusion in exclusions:
            known = found.get(exclusion.instant)
            if known is None or _PRIORITY[exclusion.reason] < _PRIORITY[known.reason]:
                found[exclusion.instant] = exclusion
        self._by_instant = dict(sorted(found.items()))
        # Built once: readers subtract it from slot sets, some more than once.
        self._instants = frozenset(self._by_instant)

    def __getitem__(self, instant: dt.datetime) -> Exclusion:
        found = self._by_instant.get(instant)
        if found is None:
            found = self._holiday(instant)
        if found is None:
            raise KeyError(instant)
        return found

    def __iter__(self) -> Iterator[dt.datetime]:
        return iter(self._by_instant)

    def __len__(self) -> int:
        return len(self._by_instant)

    def __contains__(self, instant: object) -> bool:
        if instant in self._by_instant:
            return True
        return isinstance(instant, dt.datetime) and self._holiday(instant) is not None

    def _holiday(self, instant: dt.datetime) -> Exclusion | None:
        if self.holidays is None or self.holidays.rule is None:
            return None
        if (self.start is not None and instant < self.start) or (
            self.end is not None and instant > self.end
        ):
            return None
        fate = self.holidays.fate(instant)
        if fate is None or fate.takes_place:
            return None
        return Exclusion(instant, ExclusionReason.HOLIDAY, fate)

    def __repr__(self) -> str:
        items = ", ".join(
            f"{rules.format_instant(instant)}: {exclusion.reason.value}"
            for instant, exclusion in self._by_instant.items()
        )
        return f"Exclusions({{{items}}})"

    @property
    def instants(self) -> frozenset[dt.datetime]:
        """The stored excluded instants (not those a holiday skips): what iteration lists."""
        return self._instants

    def remove_from(self, slots: Iterable[dt.datetime]) -> set[dt.datetime]:
        """The instants of ``slots`` that are not excluded, for any reason."""
        return {slot for slot in slots if slot not in self}

    def or_in(self, taken: Collection[dt.datetime]) -> Container[dt.datetime]:
        """What is excluded or in ``taken`` (slots materialized): the slots to pass over."""
        return _PassOver(self, taken)

    def reason(self, instant: dt.datetime) -> ExclusionReason | None:
        """Why ``instant`` is excluded, or None when it is not."""
        exclusion = self.get(instant)
        return None if exclusion is None else exclusion.reason

    def holiday_of(self, slot: dt.datetime) -> HolidayFate | None:
        """What a holiday did to ``slot`` (skipped, shifted, kept), None when nothing."""
        return None if self.holidays is None else self.holidays.fate(slot)


class _PassOver(Container[dt.datetime]):
    __slots__ = ("excluded", "taken")

    def __init__(self, excluded: Exclusions, taken: Collection[dt.datetime]) -> None:
        self.excluded = excluded
        self.taken = taken

    def __contains__(self, instant: object) -> bool:
        return instant in self.taken or instant in self.excluded


def excluded_between(
    series: EventSeries,
    start: dt.datetime | None = None,
    end: dt.datetime | None = None,
    *,
    pending: Collection[dt.datetime] | None = None,
    rule: RecurrenceRule | None = None,
) -> Exclusions:
    """The instants of ``series`` excluded from ``start`` to ``end`` (both inclusive), and why.

    Reads the series' pending exdates in one query, unless ``pending`` gives them:
    the instants the caller read already, or :data:`FOLDED` right after folding
    them under the series lock. ``start`` and ``end`` are aware datetimes in any
    zone, compared as UTC instants; ``None`` leaves that end open. ``rule`` is
    the rule whose slots a holiday skips, when not the series' own (a plan's).
    """
    lower = None if start is None else rules.to_utc(start)
    upper = None if end is None else rules.to_utc(end)
    if pending is None:
        pending = read_pending([series.pk], lower, upper)[series.pk]
    return _exclusions(series, pending, lower, upper, rule=rule)


def excluded_for_series(
    series_list: Sequence[EventSeries],
    start: dt.datetime | None = None,
    end: dt.datetime | None = None,
    *,
    pending: Mapping[Any, Collection[dt.datetime]] | None = None,
) -> dict[Any, Exclusions]:
    """:func:`excluded_between` for many series, keyed by series id, in one query.

    The query reads the pending exdates of every series in the range; no query
    for an empty list or when ``pending`` gives them (by series id; a series
    missing from it has none).
    """
    lower = None if start is None else rules.to_utc(start)
    upper = None if end is None else rules.to_utc(end)
    if pending is None:
        pending = read_pending([series.pk for series in series_list], lower, upper)
    return {
        series.pk: _exclusions(series, pending.get(series.pk, ()), lower, upper)
        for series in series_list
    }


def _exclusions(
    series: EventSeries,
    pending: Iterable[dt.datetime],
    lower: dt.datetime | None,
    upper: dt.datetime | None,
    *,
    rule: RecurrenceRule | None = None,
) -> Exclusions:
    def inside(instant: dt.datetime) -> bool:
        return (lower is None or instant >= lower) and (upper is None or instant <= upper)

    found = [
        Exclusion(instant, ExclusionReason.EXDATE)
        for instant in (rules.parse_instant(value) for value in series.exdates or ())
        if inside(instant)
    ]
    found.extend(
        Exclusion(instant, ExclusionReason.PENDING_EXDATE)
        for instant in (rules.to_utc(value) for value in pending)
        if inside(instant)
    )
    return Exclusions(found, start=lower, end=upper, holidays=holiday_placer(series, rule))


def placed_dates(
    spec: rules.RuleSpec, excluded: Exclusions, earliest: dt.datetime, latest: dt.datetime
) -> dict[dt.datetime, dt.datetime]:
    """Slot -> where it takes place, for the dates of ``spec`` that are not excluded.

    Each slot at its own instant or, when a holiday shifted it, at the day it
    moved to. Slots from :data:`~revel_recurring.holiday_placement.SHIFT_REACH` before
    ``earliest`` to ``latest`` are read, so every date taking place between the two
    is there (``excluded`` must cover that reach). What drift and plans compare
    the rows with.
    """
    placer = excluded.holidays
    reach = earliest - SHIFT_REACH if placer is not None else earliest
    return {
        slot: placer.start_of(slot) if placer is not None else slot
        for slot in rules.occurrences_between(spec, reach, latest, inclusive=True)
        if slot not in excluded
    }


def expected_starts(
    spec: rules.RuleSpec, excluded: Exclusions, earliest: dt.datetime, latest: dt.datetime
) -> set[dt.datetime]:
    """Where the dates of ``spec`` take place between two instants (inclusive), UTC."""
    starts = placed_dates(spec, excluded, earliest, latest).values()
    return {start for start in starts if earliest <= start <= latest}


def holiday_placer(series: EventSeries, rule: RecurrenceRule | None = None) -> HolidayPlacer | None:
    """The placer of ``series``' holiday calendar on ``rule`` (default: its own rule).

    None without a calendar or a rule. Reads nothing for a series without a
    holiday calendar; for one with a calendar, its rule (one query unless
    loaded: load it for a list of series).
    """
    if not series.holiday_country:
        return None
    if rule is None:
        if series.recurrence_rule_id is None:
            return None
        rule = series.recurrence_rule
    if rule is None:
        return None
    return HolidayPlacer(series.dates_spec(rule))


def read_pending(
    series_ids: Collection[Any],
    start: dt.datetime | None = None,
    end: dt.datetime | None = None,
) -> dict[Any, list[dt.datetime]]:
    """The pending exdates of every series in ``series_ids`` (each a key), in one query.

    For the readers that need the rows themselves too (generation folds them);
    the others ask :func:`excluded_for_series`. No query for no ids.
    """
    found: dict[Any, list[dt.datetime]] = {pk: [] for pk in series_ids}
    if not found:
        return found
    rows = PendingExdate.objects.filter(series_id__in=list(found))
    if start is not None:
        rows = rows.filter(instant__gte=start)
    if end is not None:
        rows = rows.filter(instant__lte=end)
    for series_id, instant in rows.values_list("series_id", "instant"):
        found[series_id].append(instant)
    return found


def pending_instants_of(series_id: OuterRef | int) -> QuerySet[PendingExdate, Any]:
    """The pending exdates of one series as a one-column subquery (``instant``).

    For a statement that reads them along with rows of its own, e.g. as an
    ``ArraySubquery`` with ``OuterRef("series_id")`` (generation on PostgreSQL).
    """
    return PendingExdate.objects.filter(series_id=series_id).values("instant")


def pending_exdate_at(instant_field: str, *, series_field: str = "series_id") -> Exists:
    """Whether a pending exdate of the outer row's series sits at the outer row's ``instant_field``.

    An annotation for a query over occurrences that asks, per row, whether its
    start is excluded, in the same statement (drift).
    """
    return Exists(
        PendingExdate.objects.filter(
            series_id=OuterRef(series_field), instant=OuterRef(instant_field)
        )
    )
