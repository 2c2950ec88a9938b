"""What one generation run would do: the slots to create, the new cursor, the next due moment.

Pure given the series state and the slots already taken; :func:`preview_series_events`
reads those and plans without a lock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from django.utils.translation import gettext

from ... import rules
from ...conf import recurring_settings
from ...exceptions import GenerationWindowError
from ...exclusions import Exclusions, excluded_between
from ...models import EventSeries, RecurrenceRule
from ..toolbox.plumbing import load_rule, now_utc
from ..toolbox.scheduling import GenerationWindow, due_moment, generation_window, materialized_slots


@dataclass(frozen=True)
class GenerationPlan:
    """What one run would do: the new slots, the new cursor and next due moment.

    ``horizon`` is the new cursor: the window's horizon, or the old cursor when that
    is later (a generate never moves the cursor backwards). ``starts`` maps each
    slot a holiday shifted to where its occurrence starts (slots absent start on
    themselves).
    """

    slots: tuple[dt.datetime, ...]
    horizon: dt.datetime
    next_due_at: dt.datetime | None
    starts: Mapping[dt.datetime, dt.datetime] = field(default_factory=dict)

    def start_of(self, slot: dt.datetime) -> dt.datetime:
        """Where the occurrence of ``slot`` starts."""
        return self.starts.get(slot, slot)


def check_until(until: dt.datetime | None, now: dt.datetime) -> None:
    """Refuse an ``until`` that is not an aware datetime or lies beyond the longest window."""
    if until is None:
        return
    if not isinstance(until, dt.datetime):
        raise GenerationWindowError(
            gettext(
                "Cannot generate up to %(until)s: 'until' must be a datetime with a UTC "
                "offset, not %(model)s."
            )
            % {"until": repr(until), "model": type(until).__name__}
        )
    if not rules.is_aware(until):
        raise GenerationWindowError(
            gettext(
                "Cannot generate up to %(until)s: give an aware date and time (with a UTC offset)."
            )
            % {"until": until.isoformat()}
        )
    limit = now + dt.timedelta(weeks=recurring_settings.MAX_WINDOW_WEEKS)
    if rules.to_utc(until) > limit:
        raise GenerationWindowError(
            gettext(
                "Cannot generate up to %(instant)s: at most %(weeks)s weeks "
                "ahead (until %(limit)s) is allowed by "
                "REVEL_RECURRING_MAX_WINDOW_WEEKS."
            )
            % {
                "instant": rules.format_instant(until),
                "weeks": recurring_settings.MAX_WINDOW_WEEKS,
                "limit": rules.format_instant(limit),
            }
        )


def plan_generation(
    series: EventSeries,
    rule: RecurrenceRule,
    *,
    materialized: set[dt.datetime],
    now: dt.datetime,
    until: dt.datetime | None = None,
    backfill: bool = False,
    window: GenerationWindow | None = None,
    excluded: Exclusions | None = None,
) -> GenerationPlan:
    """Decide which slots to materialize; pure given the series state and the slots taken.

    The window runs from the cursor (exclusive) or dtstart (inclusive, first run)
    to the horizon (inclusive). Because the next run starts exclusively at the
    same horizon, a slot exactly on it is generated exactly once. Dates that take
    place before ``now`` are left out unless ``backfill`` (a slot a holiday shifted
    is judged by its new day); excluded slots and ``materialized`` ones (by
    original UTC slot, so moved or deleted occurrences stay gone) too.
    ``window`` is the run's window when the caller computed it already (from the
    same ``until`` and ``backfill``); otherwise it is computed here. ``excluded``
    are the series' exclusions from ``window.lower`` on when the caller read them
    already; otherwise they are read here (one query).
    """
    if window is None:
        window = generation_window(series, rule, now=now, until=until, backfill=backfill)
    if excluded is None:
        excluded = excluded_between(series, window.lower)
    # The new cursor: a run never moves it backwards (an `until` or a shrunk window
    # below it asks for dates already generated), so the next due moment is
    # searched from the later of the two as well.
    cursor = series.last_generated_until
    reached = window.horizon if cursor is None else max(cursor, window.horizon)
    placer = excluded.holidays

    def start_of(slot: dt.datetime) -> dt.datetime:
        return slot if placer is None else placer.start_of(slot)

    # Past dates are judged by where they take place: a slot just before ``now``
    # that a holiday shifted to a later day is still to come (the window's
    # ``search_from`` reaches back that far for such a series).
    # One walk of the rule gives the window's slots and, past the new cursor, the
    # next due moment: a slot of this run lies at or before the horizon, so it
    # never stands in that search.
    expanded, following = rules.window_and_next(
        series.dates_spec(rule),
        window.search_from,
        window.horizon,
        after=reached,
        skip=excluded.or_in(materialized),
    )
    slots = tuple(
        slot
        for slot in expanded
        if (window.inclusive or slot > window.lower)
        and slot not in excluded
        and slot not in materialized
        and (backfill or start_of(slot) >= now)
    )
    starts = {slot: start for slot in slots if (start := start_of(slot)) != slot}
    return GenerationPlan(
        slots=slots,
        starts=starts,
        horizon=reached,
        next_due_at=None if following is None else due_moment(series, following),
    )


def preview_series_events(
    series: EventSeries,
    *,
    until: dt.datetime | None = None,
    now: dt.datetime | None = None,
    backfill: bool = False,
    pending: Collection[dt.datetime] | None = None,
) -> list[dt.datetime]:
    """The slots (UTC) a call to ``generate_series_events`` would create now.

    Reads only; takes no lock, so a concurrent run may get there first. Slots of
    deleted occurrences not folded into the exdates yet are left out too (one
    query), unless ``pending`` gives them (:data:`~revel_recurring.exclusions.FOLDED`
    for a caller that holds the lock and folded them).
    """
    moment = now_utc(now)
    check_until(until, moment)
    if not series.is_active or series.recurrence_rule_id is None:
        return []
    rule = load_rule(series)
    assert rule is not None
    window = generation_window(series, rule, now=moment, until=until, backfill=backfill)
    materialized = materialized_slots(series, window.search_from)
    plan = plan_generation(
        series,
        rule,
        materialized=materialized,
        now=moment,
        backfill=backfill,
        window=window,
        excluded=excluded_between(series, window.lower, pending=pending),
    )
    return list(plan.slots)
