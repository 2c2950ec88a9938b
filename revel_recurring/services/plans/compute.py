"""The plan of a cadence change: a pure function of the state read.

Nothing here queries the database except the host's booking count (one call,
when asked for): :func:`~revel_recurring.services.plans.state.read_plan_state`
read the rows and pending exdates already; which rows drift is
:mod:`~revel_recurring.services.plans.judging`'s, the hash
:mod:`~revel_recurring.services.plans.digest`'s. The same function computes the plan
a person looks at and, under the series lock, the plan an apply checks its hash
against, so the two can only differ when the state did.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from ... import rules
from ...describe import describe_series
from ...exceptions import SeriesNotReadyError
from ...exclusions import Exclusion, ExclusionReason, excluded_between
from ...holiday_rules import HolidayFate, data_version
from ...holiday_settings import (
    holiday_settings_of,
    normalize_holiday_settings,
    set_holiday_settings,
)
from ...instants import describe_instant
from ...models import EventSeries, RecurrenceRule, get_event_model
from ..extra_dates import ExtraDatesChange, plan_extra_dates
from ..generation.plan import plan_generation
from ..schedule_change import merge_rule_changes
from ..toolbox.exdates import drop_exdates, merge_exdates, remap_zone_exdates
from ..toolbox.operation import people_told
from ..toolbox.scheduling import GenerationWindow, generation_window
from .changes import EXTRA_DATES_KEY, HOLIDAYS_KEY, WINDOW_KEY, Changes, pop_holidays, split_changes
from .digest import booked_drift_ids, hash_matches, plan_digest
from .judging import judge, judge_rows, local_in
from .result import ExcludedBecause, PlannedDate, PlannedOccurrence, RecurrencePlan
from .state import PlanRow, PlanState


def compute_change(
    series: EventSeries,
    rule: RecurrenceRule | None,
    state: PlanState,
    changes: Changes,
    *,
    now: dt.datetime,
    bookings: Mapping[Any, int] | None = None,
) -> tuple[RecurrencePlan, ExtraDatesChange | None]:
    """The plan of changing ``series`` (whose current rule is ``rule``) as ``state`` shows it,
    and the change of its extra dates the plan assumed (None when not asked for).

    Raises ``SeriesNotReadyError`` for a series without a rule and
    ``ValidationError`` (keyed by field) for a change the validators refuse.
    Bookings are counted with the host's hook (one call for every date judged),
    unless ``bookings`` gives them (event id -> count; a missing id has none).

    A series whose dates were placed with other holiday data than the installed
    (:func:`holiday_data_changed`) has its cursor reset even by an empty change:
    generating the window again creates the dates a holiday no longer takes. So
    does one whose zone has other offsets now (``EventSeries.zone_data_changed``):
    its dates move to their partners, the rule's dates at the new instants.
    """
    if rule is None:
        raise SeriesNotReadyError(
            gettext("Series %(id)s has no recurrence rule to change; create one first.")
            % {"id": series.pk}
        )
    if changes.rule:
        merged, changed = merge_rule_changes(rule, changes.rule)
    else:
        merged, changed = rule.field_values(), set()
    new_rule = RecurrenceRule(**merged)
    new_rule.normalize()
    target = _changed_series(series, changes, changed)
    if series.zone_data_changed(rule):
        # The exdates follow their dates to the new offsets, as the apply writes them.
        held = {row.slot for row in state.rows if row.slot is not None}
        remap_zone_exdates(target, rule, held=held, now=now, pending=state.pending)
    extra = _extra_dates(series, rule, new_rule, target, state, changes, changed, now=now)
    regenerate = bool(changed) or holiday_data_changed(series) or series.zone_data_changed(rule)
    cursor_reset = regenerate and series.last_generated_until is not None
    if regenerate:
        target.last_generated_until = None
    plan = plan_outcome(
        series,
        rule,
        new_rule,
        target,
        state,
        judged=state.upcoming(now),
        changed=changed,
        cursor_reset=cursor_reset,
        now=now,
        extra=extra.hashed,
        bookings=bookings,
        pending=extra.pending,
        cancels=True,
    )
    return plan, extra.change


def _changed_series(series: EventSeries, changes: Changes, changed: set[str]) -> EventSeries:
    """An unsaved copy of ``series`` with the window and holiday settings of ``changes``;
    the keys of those that really change join ``changed``."""
    target = copy.copy(series)
    if changes.window is not None and changes.window != series.generation_window_weeks:
        changed.add(WINDOW_KEY)
        target.generation_window_weeks = changes.window
    if changes.holidays:
        settings = normalize_holiday_settings(changes.holidays, current=holiday_settings_of(series))
        if set_holiday_settings(target, settings):
            changed.add(HOLIDAYS_KEY)
    return target


@dataclass(frozen=True)
class _ExtraDates:
    """What a plan assumes of a change of the extra dates (nothing when none is asked for)."""

    change: ExtraDatesChange | None = None
    #: The pending exdates as the changed series sees them, when the change lifts some.
    pending: tuple[dt.datetime, ...] | None = None
    #: Hashed with the plan: the exdates the change lifts.
    hashed: dict[str, Any] | None = None


def _extra_dates(
    series: EventSeries,
    rule: RecurrenceRule,
    new_rule: RecurrenceRule,
    target: EventSeries,
    state: PlanState,
    changes: Changes,
    changed: set[str],
    *,
    now: dt.datetime,
) -> _ExtraDates:
    """Apply the change of the extra dates to ``target`` (its extra dates, and the
    exdates an added date lifts); ``"extra_dates"`` joins ``changed`` when they change."""
    if changes.extra_dates is None:
        return _ExtraDates()
    extra = plan_extra_dates(
        series,
        new_rule,
        changes.extra_dates,
        held={row.slot for row in state.rows if row.slot is not None},
        excluded=excluded_between(series, now, pending=state.pending, rule=rule).instants,
        now=now,
    )
    if extra.changed:
        changed.add(EXTRA_DATES_KEY)
        target.extra_dates = extra.stored
    if not extra.lifted:
        return _ExtraDates(change=extra)
    # What applying leaves excluded: the exdates and pending slots but the
    # lifted ones. Which those are depends on ``now`` too: hashed.
    drop_exdates(target, extra.lifted)
    return _ExtraDates(
        change=extra,
        pending=tuple(instant for instant in state.pending if instant not in extra.lifted),
        hashed={"lifted": rules.normalize_exdates(extra.lifted)},
    )


def compute_plan(
    series: EventSeries,
    rule: RecurrenceRule | None,
    state: PlanState,
    changes: Changes,
    *,
    now: dt.datetime,
    bookings: Mapping[Any, int] | None = None,
) -> RecurrencePlan:
    """:func:`compute_change`'s plan alone."""
    return compute_change(series, rule, state, changes, now=now, bookings=bookings)[0]


def holiday_data_changed(series: EventSeries) -> bool:
    """Whether ``series`` has a holiday calendar and its generated dates were placed with
    another ``holidays`` release than the installed one (``holidays_version``)."""
    return bool(series.holiday_country) and series.holidays_version != data_version()


def plan_outcome(
    series: EventSeries,
    rule: RecurrenceRule,
    new_rule: RecurrenceRule,
    target: EventSeries,
    state: PlanState,
    *,
    judged: list[PlanRow],
    changed: set[str],
    cursor_reset: bool,
    now: dt.datetime,
    extra: Mapping[str, Any] | None = None,
    until: dt.datetime | None = None,
    bookings: Mapping[Any, int] | None = None,
    pending: tuple[dt.datetime, ...] | None = None,
    cancels: bool = False,
) -> RecurrencePlan:
    """The plan once the change is known: ``target`` (an unsaved copy of the series as it
    would be: window, cursor, exdates, extra dates) under ``new_rule``, judging the
    ``judged`` rows.

    Shared by a cadence change (the series' own future rows) and a split (the rows
    that would move to the continuation). ``extra`` is hashed with the rest: what
    else the caller's change depends on (a split's date, template and name);
    ``until`` a generation horizon other than the window's (a split's continuation
    is generated as far as the original was); ``bookings`` the judged rows' booking
    counts when the caller has them (:func:`compute_plan`); ``pending`` the pending
    exdates as ``target`` sees them, when the change lifts some (``state``'s
    otherwise; the hash always covers ``state``'s). ``cancels``: applying the plan
    may cancel or move its drifted dates (a change plan; a split cancels nothing),
    so its hash also covers which of them are booked
    (:func:`~revel_recurring.services.plans.digest.hash_matches`).
    """
    seen = state if pending is None else dataclasses.replace(state, pending=pending)
    spec = target.dates_spec(new_rule)
    # Newer zone data: every date of the rule moves to its new instant, those moved by
    # hand too (by their slot), or generating the window again would double them.
    zone_moves = cancels and series.zone_data_changed(rule)
    judgement = judge(
        target, new_rule, seen, judged, now=now, bookings=bookings, modified_too=zone_moves
    )
    moving = [row for row in (*judgement.drift, *judgement.cancelled_moves) if row.new_slot]
    # A cancelled date that moves takes its exclusion with it.
    carry_cancellations(target, judgement.cancelled_moves)
    run = generation_window(target, new_rule, now=now, until=until)
    # Unless its people are told, a booked date moves only when ticked (or under
    # "all"): as the plan is shown, it stays, and its partner is a new date beside it.
    beside = (
        {}
        if people_told()
        else {row.new_slot: row.id for row in moving if row.booked and row.new_slot}
    )
    taken = {row.new_slot for row in moving if row.new_slot and row.new_slot not in beside}
    shown, new_dates = _new_dates(
        target, new_rule, state, seen, run, now=now, taken=taken, beside=beside
    )
    # The hash does not depend on bookings but for its second half: it covers the
    # dates created when every date that can move does.
    new = tuple(slot for slot in shown if slot not in beside)
    digest = plan_digest(
        series,
        target,
        rule,
        new_rule,
        state,
        new=new,
        cursor_reset=cursor_reset,
        extra=extra,
        moves=[row for row in (*judgement.drift, *judgement.cancelled_moves) if row.moves_to],
        booked=booked_drift_ids(judgement.drift) if cancels else None,
    )
    return RecurrencePlan(
        series_id=series.pk,
        changed=frozenset(changed),
        cursor_reset=cursor_reset,
        description=describe_series(target, new_rule),
        rrule_string=new_rule.rrule_string,
        timezone=new_rule.timezone,
        generation_window_weeks=target.generation_window_weeks,
        horizon=run.horizon,
        stay=judgement.stay,
        drift=judgement.drift,
        new=new_dates,
        excluded=_excluded_dates(
            target, new_rule, spec, state, seen, run, now=now, moved=judgement.cancelled_moves
        ),
        hash=digest,
        cancelled_moves=judgement.cancelled_moves,
        cancelled_off=judgement.cancelled_off,
    )


def carry_cancellations(target: EventSeries, moving: tuple[PlannedOccurrence, ...]) -> None:
    """Replace, in ``target``'s exdates, the slots of the cancelled dates that move by their
    new slots (not saved): the date stays excluded at its new time."""
    if moving:
        drop_exdates(target, [row.slot for row in moving if row.slot is not None])
        merge_exdates(target, [row.new_slot for row in moving if row.new_slot is not None])


def _new_dates(
    target: EventSeries,
    new_rule: RecurrenceRule,
    state: PlanState,
    seen: PlanState,
    run: GenerationWindow,
    *,
    now: dt.datetime,
    taken: set[dt.datetime],
    beside: Mapping[dt.datetime, Any],
) -> tuple[tuple[dt.datetime, ...], tuple[PlannedDate, ...]]:
    """The slots generation would create in ``run`` (none for a paused series or one
    without a template), and each as a :class:`PlannedDate` where it takes place;
    ``taken``: the slots rows move to; ``beside``: slot -> the booked date that would
    move there if ticked, for the new dates created beside a booked date that stays."""
    if not (target.is_active and state.has_template):
        return (), ()
    in_window = excluded_between(target, run.lower, pending=seen.pending, rule=new_rule)
    materialized = {
        slot
        for slot in (*(row.slot for row in state.rows), *taken)
        if slot is not None and slot >= run.search_from
    }
    generation = plan_generation(
        target, new_rule, materialized=materialized, now=now, window=run, excluded=in_window
    )
    new_dates = tuple(
        _date(
            generation.start_of(slot),
            new_rule.timezone,
            slot=slot if slot in generation.starts else None,
            holiday=_holiday_name(target, in_window.holiday_of(slot)),
            beside=beside.get(slot),
        )
        for slot in generation.slots
    )
    return generation.slots, new_dates


def _excluded_dates(
    target: EventSeries,
    new_rule: RecurrenceRule,
    spec: rules.RuleSpec,
    state: PlanState,
    seen: PlanState,
    run: GenerationWindow,
    *,
    now: dt.datetime,
    moved: tuple[PlannedOccurrence, ...] = (),
) -> tuple[PlannedDate, ...]:
    """The new rule's dates up to the window's end that an exclusion skips, with why
    (``moved``: the cancelled dates that move, and stand for their new slot)."""
    model = get_event_model()
    cancelled = model.RECURRING_STATUS_CANCELLED
    # Every row read, not only the upcoming ones: a cancelled occurrence moved by
    # hand to before ``now`` still stands for its slot ahead.
    cancelled_slots = {row.slot for row in state.rows if model.is_status(row.status, cancelled)}
    cancelled_slots |= {row.new_slot for row in moved}
    return tuple(
        _date(
            instant,
            new_rule.timezone,
            reason=_excluded_because(instant, exclusion, cancelled_slots),
            holiday=_holiday_name(target, exclusion.holiday),
        )
        for instant, exclusion in _skipped(
            target, new_rule, spec, seen, now=now, horizon=run.horizon
        )
    )


def _skipped(
    target: EventSeries,
    rule: RecurrenceRule,
    spec: rules.RuleSpec,
    state: PlanState,
    *,
    now: dt.datetime,
    horizon: dt.datetime,
) -> list[tuple[dt.datetime, Exclusion]]:
    """The new rule's dates from ``now`` to the horizon that an exclusion skips, and why."""
    if horizon < now:
        return []
    excluded = excluded_between(target, now, horizon, pending=state.pending, rule=rule)
    if not excluded and excluded.holidays is None:
        return []
    found = []
    for instant in rules.occurrences_between(spec, now, horizon, inclusive=True):
        exclusion = excluded.get(instant)
        if exclusion is not None:
            found.append((instant, exclusion))
    return found


def _excluded_because(
    instant: dt.datetime, exclusion: Exclusion, cancelled_slots: set[Any]
) -> ExcludedBecause:
    if instant in cancelled_slots:
        return ExcludedBecause.CANCELLED
    if exclusion.reason is ExclusionReason.HOLIDAY:
        return ExcludedBecause.HOLIDAY
    return ExcludedBecause.EXDATE


def _holiday_name(series: EventSeries, fate: HolidayFate | None) -> str:
    """The name of the holiday behind ``fate`` in the active language ("" for none)."""
    holiday_rule = series.holiday_rule
    if fate is None or holiday_rule is None:
        return ""
    return holiday_rule.name_on(fate.day) or ""


def _date(
    instant: dt.datetime,
    zone: str,
    *,
    reason: ExcludedBecause | None = None,
    slot: dt.datetime | None = None,
    holiday: str = "",
    beside: Any = None,
) -> PlannedDate:
    return PlannedDate(
        start=instant,
        local=local_in(instant, zone),
        display=describe_instant(instant, zone),
        reason=reason,
        shifted_from=slot,
        holiday=holiday,
        beside=beside,
    )


# The changes, the hash and the judgement live in modules of their own; their names
# stay importable from here, where they were.
__all__ = [
    "EXTRA_DATES_KEY",
    "HOLIDAYS_KEY",
    "WINDOW_KEY",
    "Changes",
    "carry_cancellations",
    "compute_change",
    "compute_plan",
    "hash_matches",
    "holiday_data_changed",
    "judge_rows",
    "plan_outcome",
    "pop_holidays",
    "split_changes",
]
