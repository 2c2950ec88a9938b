"""Which instants of a series are excluded between two bounds, and why.

The one read every part of the package asks before it treats a slot of the rule
as a date: generation, the next due moment, drift, the slot preview, the admin's
upcoming list and date picker, the feeds and the cancellation services. Today a
slot is excluded for one of two reasons (:class:`ExclusionReason`): it is in the
series' ``exdates`` column (cancelled by an organiser, or the slot of a deleted
occurrence already folded in), or it is a :class:`~revel_recurring.models.PendingExdate`
(the slot of an occurrence a host deleted, not folded in yet). A reader never
needs to know which store holds a slot: new reasons (holidays, the dates after a
split) are added here, and every reader sees them.

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
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.db.models import Exists, OuterRef, QuerySet

from . import rules
from .models import EventSeries, PendingExdate

__all__ = [
    "FOLDED",
    "Exclusion",
    "ExclusionReason",
    "Exclusions",
    "excluded_between",
    "excluded_for_series",
    "pending_exdate_at",
    "pending_instants_of",
    "read_pending",
]


class ExclusionReason(enum.StrEnum):
    """Why a slot is excluded. An instant excluded for several is listed under the first."""

    #: In the series' ``exdates``: cancelled, or a deleted occurrence's slot folded in.
    EXDATE = "exdate"
    #: A deleted occurrence's slot not folded into ``exdates`` yet (a ``PendingExdate``).
    PENDING_EXDATE = "pending_exdate"


_PRIORITY = {reason: position for position, reason in enumerate(ExclusionReason)}

#: ``pending=FOLDED``: the caller holds the series lock and has just folded the
#: pending slots into ``exdates`` (``services.exdates.absorb_pending_exdates``),
#: so there are none to read.
FOLDED: Final[Collection[dt.datetime]] = frozenset()


@dataclass(frozen=True, slots=True)
class Exclusion:
    """One excluded instant (UTC) and why it is excluded."""

    instant: dt.datetime
    reason: ExclusionReason


class Exclusions(Mapping[dt.datetime, Exclusion]):
    """The excluded instants of one series between two bounds: instant (UTC) -> :class:`Exclusion`.

    Iterates in time order; ``instant in exclusions`` is a set lookup. It knows
    only the instants between ``start`` and ``end`` (inclusive, ``None`` open):
    ask it about instants in that range.
    """

    __slots__ = ("_by_instant", "_instants", "end", "start")

    def __init__(
        self,
        exclusions: Iterable[Exclusion] = (),
        *,
        start: dt.datetime | None = None,
        end: dt.datetime | None = None,
    ) -> None:
        self.start = start
        self.end = end
        found: dict[dt.datetime, Exclusion] = {}
        for exclusion in exclusions:
            known = found.get(exclusion.instant)
            if known is None or _PRIORITY[exclusion.reason] < _PRIORITY[known.reason]:
                found[exclusion.instant] = exclusion
        self._by_instant = dict(sorted(found.items()))
        # Built once: readers subtract it from slot sets, some more than once.
        self._instants = frozenset(self._by_instant)

    def __getitem__(self, instant: dt.datetime) -> Exclusion:
        return self._by_instant[instant]

    def __iter__(self) -> Iterator[dt.datetime]:
        return iter(self._by_instant)

    def __len__(self) -> int:
        return len(self._by_instant)

    def __contains__(self, instant: object) -> bool:
        return instant in self._by_instant

    def __repr__(self) -> str:
        items = ", ".join(
            f"{rules.format_instant(instant)}: {exclusion.reason.value}"
            for instant, exclusion in self._by_instant.items()
        )
        return f"Exclusions({{{items}}})"

    @property
    def instants(self) -> frozenset[dt.datetime]:
        """The excluded instants, for set arithmetic with slots."""
        return self._instants

    def reason(self, instant: dt.datetime) -> ExclusionReason | None:
        """Why ``instant`` is excluded, or None when it is not."""
        exclusion = self._by_instant.get(instant)
        return None if exclusion is None else exclusion.reason


def excluded_between(
    series: EventSeries,
    start: dt.datetime | None = None,
    end: dt.datetime | None = None,
    *,
    pending: Collection[dt.datetime] | None = None,
) -> Exclusions:
    """The instants of ``series`` excluded from ``start`` to ``end`` (both inclusive), and why.

    Reads the series' pending exdates in one query, unless ``pending`` gives them:
    the instants the caller read already, or :data:`FOLDED` right after folding
    them under the series lock. ``start`` and ``end`` are aware datetimes in any
    zone, compared as UTC instants; ``None`` leaves that end open.
    """
    given = None if pending is None else {series.pk: pending}
    return excluded_for_series([series], start, end, pending=given)[series.pk]


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
    return Exclusions(found, start=lower, end=upper)


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
