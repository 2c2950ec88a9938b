"""Where the rolling window stands: the next due moment of a series."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass

from django.db import transaction

from ... import rules
from ...exceptions import SeriesNotFoundError
from ...exclusions import FOLDED, Exclusions, excluded_between
from ...holiday_placement import SHIFT_REACH
from ...holiday_rules import HolidayPolicy
from ...models import EventSeries, RecurrenceRule, get_event_model
from .locking import lock_series
from .plumbing import now_utc


def window_length(series: EventSeries) -> dt.timedelta:
    """The series' rolling window as a timedelta."""
    return dt.timedelta(weeks=series.generation_window_weeks)


@dataclass(frozen=True)
class GenerationWindow:
    """The instants one generation run covers.

    ``lower`` is where the window starts (the cursor, or dtstart on the first run
    and for a backfill) and ``inclusive`` whether that instant itself counts;
    ``horizon`` is where it ends (inclusive); ``search_from`` is ``lower`` or,
    unless backfilling, ``now`` when that is later (the past is never filled).
    For a series whose holidays shift dates it is ``SHIFT_REACH`` before ``now``:
    a slot just past may have moved to a day still ahead, which is no past date.
    """

    lower: dt.datetime
    inclusive: bool
    horizon: dt.datetime
    search_from: dt.datetime


def generation_window(
    series: EventSeries,
    rule: RecurrenceRule,
    *,
    now: dt.datetime,
    until: dt.datetime | None = None,
    backfill: bool = False,
) -> GenerationWindow:
    """The window a generation run for ``series`` covers at ``now`` (pure, no query).

    The horizon is ``until`` (already checked by the caller) or ``now`` plus the
    series' window. A backfill always starts at dtstart: it exists to fill the
    past, and slots already materialized or excluded are skipped anyway.
    """
    horizon = rules.to_utc(until) if until is not None else now + window_length(series)
    cursor = series.last_generated_until
    if cursor is None or backfill:
        lower, inclusive = rules.to_utc(rule.dtstart), True
    else:
        # A cursor at or beyond the horizon (the window shrank, or an explicit until
        # below it) leaves an empty window: everything up to the cursor is already
        # materialized or excluded, and the cursor itself never moves backwards.
        lower, inclusive = min(cursor, horizon), False
    return GenerationWindow(
        lower=lower,
        inclusive=inclusive,
        horizon=horizon,
        search_from=lower if backfill else max(lower, now - _shift_reach(series)),
    )


def _shift_reach(series: EventSeries) -> dt.timedelta:
    if series.holiday_country and series.holiday_policy == HolidayPolicy.SHIFT:
        return SHIFT_REACH
    return dt.timedelta(0)


def materialized_slots(series: EventSeries, since: dt.datetime) -> set[dt.datetime]:
    """Original slots (UTC) of the series' occurrences from ``since`` on."""
    return {
        slot
        for slot in get_event_model()
        ._default_manager.filter(series=series, recurrence_id__gte=since)
        .values_list("recurrence_id", flat=True)
        if slot is not None
    }


def next_due_moment(
    series: EventSeries,
    rule: RecurrenceRule | None,
    *,
    after: dt.datetime,
    materialized: Collection[dt.datetime],
    excluded: Exclusions,
) -> dt.datetime | None:
    """When the first slot after ``after`` still to be materialized enters the window.

    Slots ``materialized`` or ``excluded`` (the series' exclusions from ``after``
    on, at least) are passed over. Stored as "slot minus window" so the
    dispatcher's query is a plain range scan. None when the rule is exhausted (by
    count or until) or the series has no rule.
    """
    if rule is None:
        return None
    skip = excluded.or_in(set(materialized))
    slot = rules.first_occurrence_after(series.dates_spec(rule), after, skip=skip)
    return None if slot is None else due_moment(series, slot)


def due_moment(series: EventSeries, slot: dt.datetime) -> dt.datetime:
    """When ``slot`` enters the series' window: the ``next_due_at`` it gives."""
    return slot - window_length(series)


def refresh_next_due_at(series: EventSeries, *, now: dt.datetime) -> dt.datetime | None:
    """Recompute ``series.next_due_at`` (not saved) after a rule, cursor or exdate change.

    Slots before ``now`` are never materialized by the dispatcher, so the search
    starts at the later of ``now`` and the cursor. The caller holds the series
    lock and has folded its pending exdates (``absorb_pending_exdates``): the
    excluded slots are read from the series row alone. (One not folded yet makes
    the series due a slot early at worst; generation reads it and skips it.)
    """
    rule = series.recurrence_rule
    after = max(now, series.last_generated_until) if series.last_generated_until else now
    materialized = materialized_slots(series, after)
    # An exclusive search from `now` would miss a slot exactly at now when
    # nothing has been generated yet; step back one microsecond to include it.
    if series.last_generated_until is None or series.last_generated_until < now:
        after = after - dt.timedelta(microseconds=1)
    excluded = excluded_between(series, after, pending=FOLDED)
    series.next_due_at = next_due_moment(
        series, rule, after=after, materialized=materialized, excluded=excluded
    )
    return series.next_due_at


def rearm_disarmed_series(series_id: int) -> None:
    """Make a series without ``next_due_at`` due again if its rule has slots ahead.

    Run after a template was created (a disarmed series can generate again); an
    exhausted rule stays unarmed. Its own short transaction under the series lock.
    """
    try:
        with transaction.atomic():
            series = lock_series(series_id, with_rule=True)
            if series.next_due_at is not None or series.recurrence_rule_id is None:
                return
            if refresh_next_due_at(series, now=now_utc()) is not None:
                EventSeries.objects.filter(pk=series.pk).update(next_due_at=series.next_due_at)
    except SeriesNotFoundError:
        return
