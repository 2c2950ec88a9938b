"""A series' excluded slots: the one merge and removal, and folding in the pending ones.

The writers of ``EventSeries.exdates``; reading which slots are excluded is
:mod:`revel_recurring.exclusions`. Recording slots without the lock is
:mod:`~revel_recurring.services.toolbox.pending_exdates`.
:func:`~revel_recurring.services.toolbox.locking.lock_series` only locks: every service
whose work depends on the excluded dates calls :func:`absorb_pending_exdates`
itself, right after taking the lock. :func:`remap_zone_exdates` moves the
exdates to their dates' new instants when the zone's offsets changed: an
exdate is the UTC instant of a slot computed with the offsets of its day, and
left alone it would exclude nothing once the slot moves (the date it stood for
would be generated again).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable

from ... import rules
from ...exclusions import Exclusions, read_pending
from ...models import EventSeries, PendingExdate, RecurrenceRule


def merge_exdates(series: EventSeries, instants: Iterable[dt.datetime | str]) -> bool:
    """Add ``instants`` to ``series.exdates`` (UTC, sorted, once each); not saved.

    The one merge every service uses: returns whether the list changed, so the
    caller writes the column only then. The caller holds the series lock.
    """
    merged = rules.normalize_exdates([*series.exdates, *instants])
    if merged == series.exdates:
        return False
    series.exdates = merged
    return True


def drop_exdates(series: EventSeries, instants: Collection[dt.datetime]) -> bool:
    """Remove ``instants`` from ``series.exdates``; not saved.

    The undo of :func:`merge_exdates`, with the same contract: returns whether
    the list changed; the caller holds the series lock.
    """
    kept = rules.normalize_exdates(series.exdate_instants - {rules.to_utc(i) for i in instants})
    if kept == series.exdates:
        return False
    series.exdates = kept
    return True


def keep_holiday_dates(
    series: EventSeries, excluded: Exclusions, slots: Collection[dt.datetime]
) -> bool:
    """Keep the slots of ``slots`` a holiday skips (``series.holidays_kept``); not saved.

    The per-date override of a holiday rule: the date takes place although its
    day is a holiday. ``excluded`` is the series' exclusions read under its lock
    (it knows which holiday skips which slot). Returns whether the list changed;
    the caller holds the series lock.
    """
    skipped = [
        slot for slot in slots if (fate := excluded.holiday_of(slot)) and not fate.takes_place
    ]
    if not skipped:
        return False
    merged = rules.normalize_exdates([*(series.holidays_kept or []), *skipped])
    if merged == series.holidays_kept:
        return False
    series.holidays_kept = merged
    return True


def absorb_pending_exdates(
    series: EventSeries, *, pending: Collection[dt.datetime] | None = None
) -> bool:
    """Fold the series' pending exdates into ``series.exdates``; the caller holds its lock.

    ``pending`` are the instants when the caller read them already (generation
    reads them with the template). Returns whether any were found. Rows committed
    after the read are folded by the next fold (after their own commit, or by the
    next service that depends on the excluded dates).
    """
    if pending is None:
        pending = read_pending([series.pk])[series.pk]
    if not pending:
        return False
    PendingExdate.objects.filter(series_id=series.pk, instant__in=list(pending)).delete()
    if merge_exdates(series, pending):
        EventSeries.objects.filter(pk=series.pk).update(exdates=series.exdates)
    return True


def exdates_from(series: EventSeries, at: dt.datetime) -> list[str]:
    """The series' exdates at or after ``at`` (stored form): what a split hands over."""
    return rules.split_stored(series.exdates, at)[1]


def hand_over_exdates(original: EventSeries, continuation: EventSeries, at: dt.datetime) -> None:
    """Move the exdates at or after ``at`` from ``original`` to ``continuation``; not saved.

    A split's writer: the dates from ``at`` on are the continuation's, so are
    their exclusions. The caller holds the original's lock and has folded its
    pending exdates in (:func:`absorb_pending_exdates`).
    """
    kept, later = rules.split_stored(original.exdates, at)
    continuation.exdates = rules.normalize_exdates([*continuation.exdates, *later])
    original.exdates = kept


#: The widest change of a zone's offset an exdate is followed across (Samoa skipped a
#: whole day in 2011).
ZONE_SHIFT_REACH = dt.timedelta(hours=26)


def remap_zone_exdates(
    series: EventSeries,
    rule: RecurrenceRule,
    *,
    held: Collection[dt.datetime],
    now: dt.datetime,
    pending: Collection[dt.datetime] = (),
) -> bool:
    """Move ``series``' future exdates that the rule no longer holds to its nearest date
    (not saved); ``held``: the slots rows hold. ``pending``: the pending exdates (a
    plan's read, not folded in): their dates' new instants are excluded too. Whether
    the list changed."""
    spec = series.dates_spec(rule)

    def follow(instant: dt.datetime) -> dt.datetime:
        if instant < now or instant in held:
            return instant
        near = rules.occurrences_between(
            spec, instant - ZONE_SHIFT_REACH, instant + ZONE_SHIFT_REACH, inclusive=True
        )
        if not near or instant in near:
            return instant
        return min(near, key=lambda slot: (abs(slot - instant), slot))

    stored = sorted(series.exdate_instants)
    followed = [follow(instant) for instant in stored]
    added = [new for new in (follow(rules.to_utc(i)) for i in pending) if new not in pending]
    if followed == stored and not added:
        return False
    series.exdates = rules.normalize_exdates([*followed, *added])
    return True
