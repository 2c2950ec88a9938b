"""Cadence drift: materialized occurrences that no longer fit the series' current rule.

A schedule change moves each future date to its partner, the new rule's date in
the same period (docs/decisions/0055-schedule-changes-move-dates.md): after "weekly
on Monday" becomes "weekly on Tuesday", each Monday row is that week's Tuesday. What
stays off the rule is drift: booked dates nobody ticked to move, dates the new rule
has no date for (a rule ended earlier, every other week), and dates of a rule changed
outside the services. This module finds them and lets the organiser cancel them in
one step.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from .. import rules
from ..exclusions import excluded_between, expected_starts, pending_exdate_at
from ..holiday_placement import SHIFT_REACH
from ..host_model import bulky_fields
from ..models import EventSeries, RecurrenceRule, get_event_model
from ..querysets import upcoming_occurrences
from ..signals import occurrence_cancelled
from .toolbox.bookings import BookedDate, booked_date, booked_ids
from .toolbox.enrolled_counts import enrolled_on
from .toolbox.exdates import absorb_pending_exdates, merge_exdates
from .toolbox.locking import lock_rows, lock_series, retry_on_lock_conflict
from .toolbox.operation import dates_operation, notify_mode
from .toolbox.plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from .toolbox.scheduling import refresh_next_due_at

#: A candidate as read: (id, start, whether a pending exdate of its series sits on its start).
Candidate = tuple[Any, dt.datetime, bool]


def _candidates(series_ids: Collection[int], now: dt.datetime, *first: str) -> Any:
    """Rows ``(*first, id, start, on_pending_exdate)`` of the candidates, in start order.

    Each row also says whether a pending exdate of its series sits on its start:
    only such a pending slot can change the answer, so the pending rows are read
    in the same statement instead of a query of their own.
    """
    model = get_event_model()
    start = model.RECURRING_START_FIELD
    return (
        upcoming_occurrences(
            model._default_manager.filter(series_id__in=series_ids, is_modified=False), now=now
        )
        .annotate(_revel_pending_exdate=pending_exdate_at(start))
        .order_by(start, "pk")
        .values_list(*first, "pk", start, "_revel_pending_exdate")
    )


def _off_rule(
    candidates: list[Candidate], series: EventSeries, rule: RecurrenceRule | None
) -> list[tuple[Any, dt.datetime]]:
    """The (id, start) pairs whose start is no occurrence of ``rule`` or is excluded.

    Ids are the host event's primary keys, of whatever type its pk field has
    (integer, UUID, text): ``Any`` here, while series ids are our own integers.
    """
    if not candidates or rule is None:
        return []
    if series.zone_data_changed(rule):
        # The zone's offsets changed since the dates were placed: every date off its
        # new instant is a date to move (services.zone_data), not a stale one.
        return []
    instants = [(pk, rules.to_utc(value)) for pk, value, _ in candidates]
    earliest = min(instant for _, instant in instants)
    latest = max(instant for _, instant in instants)
    pending = [rules.to_utc(value) for _, value, on_pending in candidates if on_pending]
    excluded = excluded_between(series, earliest - SHIFT_REACH, latest, pending=pending)
    # Exclusions are subtracted, not ignored: an occurrence still sitting on an
    # excluded slot is exactly the stale row the organiser needs to see.
    expected = expected_starts(series.dates_spec(rule), excluded, earliest, latest)
    return [(pk, instant) for pk, instant in instants if instant not in expected]


def _drifted(
    series: EventSeries, rule: RecurrenceRule | None, now: dt.datetime
) -> list[tuple[Any, dt.datetime]]:
    # One query whatever the number of candidates; everything else is pure maths.
    candidates: list[Candidate] = list(_candidates([series.pk], now))
    return _off_rule(candidates, series, rule)


def drifted_ids_by_series(
    series: Collection[EventSeries], *, now: dt.datetime | None = None
) -> dict[int, list[Any]]:
    """:func:`detect_cadence_drift` for many series at once (a list page), in one query.

    Each series' ``recurrence_rule`` should be loaded (``select_related``); the
    result maps every given series' id to its drifted occurrence ids in start order.
    """
    by_id = {item.pk: item for item in series}
    found: dict[int, list[Candidate]] = {pk: [] for pk in by_id}
    if by_id:
        for series_id, pk, value, on_pending in _candidates(list(by_id), now_utc(now), "series_id"):
            found[series_id].append((pk, value, on_pending))
    result: dict[int, list[Any]] = {}
    for series_id, candidates in found.items():
        item = by_id[series_id]
        rule = item.recurrence_rule if item.recurrence_rule_id is not None else None
        result[series_id] = [pk for pk, _ in _off_rule(candidates, item, rule)]
    return result


def detect_cadence_drift(series: EventSeries, *, now: dt.datetime | None = None) -> list[Any]:
    """Ids of future occurrences whose start no longer matches the series' rule.

    Candidates are occurrences (never the template) starting at or after ``now``,
    not cancelled and not modified by an organiser (those were moved on purpose).
    A candidate drifts when its start, as a UTC instant, is not an occurrence of
    the current rule or is excluded (an exdate, or the slot of a deleted
    occurrence not folded in yet); comparing instants keeps a wall-clock
    time across a DST change from looking like drift. None drifts while the
    zone's time-zone data differs from the data the dates were placed with
    (``EventSeries.zone_data_changed``): those dates move, they are not stale.
    Reads the candidates in one query (plus the rule when
    ``series.recurrence_rule`` is not loaded yet).
    Returns ids in start order; empty for a series without a rule.
    """
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    return [pk for pk, _ in _drifted(series, rule, now_utc(now))]


def enrolled_on_drift(series_ids: Collection[int], ids: Collection[Any]) -> dict[str, int]:
    """How many enrolled users each drifted date of ``ids`` books (by id as text; dates
    without any left out), beside its bookings: one aggregate query for all the series
    ``series_ids`` (none on a host that books no enrolled users).

    Cancelling a stale date releases none of them: a cancellation keeps its bookings,
    an enrolled user's among them, and restoring the date finds them in place.
    """
    return enrolled_on(series_ids, ids)


@dataclass(frozen=True)
class StaleCancellation:
    """What :func:`cancel_stale_occurrences` did."""

    #: Ids of the occurrences cancelled, in start order.
    cancelled: list[Any]
    #: The drifted occurrences left alone because they hold bookings (empty when
    #: the caller included booked dates), in start order.
    kept_booked: list[BookedDate]


def cancel_stale_occurrences(
    series: EventSeries,
    *,
    ids: Collection[Any] | None = None,
    include_booked: bool | Collection[Any] = False,
    notify: object = None,
    now: dt.datetime | None = None,
) -> StaleCancellation:
    """Cancel the drifted occurrences of ``series`` (or those of ``ids`` that drift).

    Drift is recomputed under the series lock, so an id that stopped drifting
    since the organiser looked (modified, already cancelled, or back on the rule)
    is left alone rather than cancelled by a stale screen. Drifted occurrences
    that hold bookings (the host's ``booked_among`` hook, asked once) are kept
    and named in ``kept_booked`` unless ``include_booked`` is True, or a collection
    of ids naming them (the admin's confirmation: only the booked dates a person
    ticked; a date booked since the page was shown is still kept). Each cancelled
    row is saved with the cancelled status and its original slot is recorded as
    an exdate, in one transaction. Sends ``occurrence_cancelled`` for each
    cancelled row after commit (its ``host_model.bulky_fields`` deferred: a
    receiver reading one costs a query). The people booked on cancelled dates get
    one message each unless ``notify`` is "none".
    """
    moment = now_utc(now)
    wanted = None if ids is None else set(ids)
    notify = notify_mode(notify)

    def attempt() -> tuple[EventSeries, list[Any], list[BookedDate]]:
        with transaction.atomic():
            locked = lock_series(series.pk)
            rule = load_rule(locked)
            with dates_operation("cancel_stale", locked, notify=notify, now=moment):
                events, kept = cancel_stale_locked(
                    locked, rule, ids=wanted, include_booked=include_booked, now=moment
                )
        return locked, events, kept

    locked, events, kept = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    mirror_columns(series, locked, "exdates", "next_due_at")
    return StaleCancellation(cancelled=[event.pk for event in events], kept_booked=kept)


def cancel_stale_locked(
    locked: EventSeries,
    rule: RecurrenceRule | None,
    *,
    ids: Collection[Any] | None,
    include_booked: bool | Collection[Any],
    now: dt.datetime,
) -> tuple[list[Any], list[BookedDate]]:
    """:func:`cancel_stale_occurrences` inside the caller's transaction and series lock.

    ``rule`` is the series' current rule (as the caller just wrote it). Returns
    the cancelled events and the booked dates kept, both in start order; the
    series' ``exdates`` and ``next_due_at`` are saved when anything was cancelled,
    and ``occurrence_cancelled`` is sent after commit for each cancelled row.
    """
    model = get_event_model()
    absorb_pending_exdates(locked)
    stale = [pk for pk, _ in _drifted(locked, rule, now) if ids is None or pk in ids]
    if not stale:
        return [], []
    # Cancelling writes the status alone (update_fields): long texts copied
    # onto every row are not read.
    events: list[Any] = list(
        lock_rows(
            model._default_manager.filter(pk__in=stale, is_modified=False)
            .defer(*bulky_fields(model))
            .order_by("pk")
        )
    )
    order = {pk: position for position, pk in enumerate(stale)}
    events.sort(key=lambda event: order[event.pk])
    kept: list[BookedDate] = []
    if include_booked is not True:
        # Asked under the row locks: a booking taken since the organiser
        # looked still keeps its date.
        named = set() if include_booked is False else set(include_booked)
        booked = booked_ids(events) - named
        zone = rule.timezone if rule is not None else None
        kept = [booked_date(event, zone) for event in events if event.pk in booked]
        events = [event for event in events if event.pk not in booked]
    if not events:
        return [], kept
    for event in events:
        event.save(update_fields=event.mark_cancelled())
    slots = [event.recurrence_id for event in events if event.recurrence_id is not None]
    merge_exdates(locked, slots)
    refresh_next_due_at(locked, now=now)
    locked.save(update_fields=["exdates", "next_due_at", "updated_at"])
    for event in events:
        send_after_commit(
            occurrence_cancelled,
            series=locked,
            instant=rules.to_utc(event.recurrence_id or event.occurrence_start),
            occurrence=event,
        )
    return events, kept


__all__ = [
    "StaleCancellation",
    "cancel_stale_locked",
    "cancel_stale_occurrences",
    "detect_cadence_drift",
    "drifted_ids_by_series",
    "enrolled_on_drift",
]
