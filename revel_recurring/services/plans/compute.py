"""The plan of a cadence change, and its hash: pure functions of the state read.

Nothing here queries the database except the host's booking count (one call,
when asked for): :func:`~revel_recurring.services.plans.state.read_plan_state`
read the rows and pending exdates already. The same function computes the plan
a person looks at and, under the series lock, the plan an apply checks its hash
against, so the two can only differ when the state did.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import hashlib
import json
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ... import rules
from ...describe import describe_spec
from ...exceptions import SeriesNotReadyError
from ...exclusions import Exclusion, ExclusionReason, excluded_between, placed_dates
from ...holiday_placement import SHIFT_REACH
from ...holiday_rules import HolidayFate, data_version
from ...holiday_settings import (
    holiday_settings_of,
    normalize_holiday_settings,
    set_holiday_settings,
)
from ...instants import describe_instant
from ...models import EventSeries, RecurrenceRule, get_event_model
from ...validators import validate_rule_keys, validate_series_options
from ..editing import merge_rule_changes
from ..extra_dates import EXTRA_DATES_KEY, ExtraDatesChange, plan_extra_dates, read_extra_dates
from ..generation.plan import plan_generation
from ..toolbox.exdates import drop_exdates
from ..toolbox.scheduling import generation_window
from .result import ExcludedBecause, PlannedDate, PlannedOccurrence, RecurrencePlan
from .state import PlanRow, PlanState

#: The key of the window size in a ``changes`` mapping (every other key is a rule field).
WINDOW_KEY = "generation_window_weeks"
#: The key of holiday settings in a plan's changes (country, subdivision, categories, policy).
HOLIDAYS_KEY = "holidays"

#: Bumped whenever what the hash covers changes, so an old hash never matches.
_HASH_VERSION = 3


@dataclass(frozen=True)
class Changes:
    """A plan's ``changes`` mapping, read: rule field changes, window, holidays, extra dates."""

    rule: dict[str, Any]
    #: The new window size, or None to keep it.
    window: int | None = None
    #: Holiday settings to change (country, subdivision, categories, policy), or
    #: None to keep them; checked against the series by ``compute_plan``.
    holidays: Mapping[str, Any] | None = None
    #: The whole new set of extra dates (UTC), or None to keep them.
    extra_dates: tuple[dt.datetime, ...] | None = None


def split_changes(changes: Mapping[str, Any] | None) -> Changes:
    """``changes`` read: keys, window, and the shape of the holidays and extra dates checked."""
    rule_changes, holidays = pop_holidays(changes)
    window = rule_changes.pop(WINDOW_KEY, None)
    extra = rule_changes.pop(EXTRA_DATES_KEY, None)
    validate_rule_keys(rule_changes)
    validate_series_options(generation_window_weeks=window)
    return Changes(
        rule=rule_changes,
        window=window,
        holidays=holidays,
        extra_dates=None if extra is None else read_extra_dates(extra),
    )


def pop_holidays(
    changes: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], Mapping[str, Any] | None]:
    """``changes`` without its holiday settings (:data:`HOLIDAYS_KEY`), and those settings."""
    rest = dict(changes or {})
    holidays = rest.pop(HOLIDAYS_KEY, None)
    if holidays is not None and not isinstance(holidays, Mapping):
        raise ValidationError(
            {
                HOLIDAYS_KEY: gettext(
                    "Give the holiday settings as an object (country, policy, ...)."
                )
            }
        )
    return rest, holidays


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
    generating the window again creates the dates a holiday no longer takes.
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
    target = copy.copy(series)
    if changes.window is not None and changes.window != series.generation_window_weeks:
        changed.add(WINDOW_KEY)
        target.generation_window_weeks = changes.window
    if changes.holidays:
        settings = normalize_holiday_settings(changes.holidays, current=holiday_settings_of(series))
        if set_holiday_settings(target, settings):
            changed.add(HOLIDAYS_KEY)
    extra: ExtraDatesChange | None = None
    pending: tuple[dt.datetime, ...] | None = None
    lifted: dict[str, Any] | None = None
    if changes.extra_dates is not None:
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
        if extra.lifted:
            # What applying leaves excluded: the exdates and pending slots but the
            # lifted ones. Which those are depends on ``now`` too: hashed.
            drop_exdates(target, extra.lifted)
            pending = tuple(instant for instant in state.pending if instant not in extra.lifted)
            lifted = {"lifted": rules.normalize_exdates(extra.lifted)}
    regenerate = bool(changed) or holiday_data_changed(series)
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
        extra=lifted,
        bookings=bookings,
        pending=pending,
        cancels=True,
    )
    return plan, extra


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
    so its hash also covers which of them are booked (:func:`hash_matches`).
    """
    seen = state if pending is None else dataclasses.replace(state, pending=pending)
    spec = target.dates_spec(new_rule)
    zone = new_rule.timezone
    model = get_event_model()
    cancelled = model.RECURRING_STATUS_CANCELLED
    stay, drift = judge_rows(target, new_rule, seen, judged, bookings=bookings)

    run = generation_window(target, new_rule, now=now, until=until)
    in_window = excluded_between(target, run.lower, pending=seen.pending, rule=new_rule)
    new: tuple[dt.datetime, ...] = ()
    new_dates: tuple[PlannedDate, ...] = ()
    if target.is_active and state.has_template:
        materialized = {
            row.slot for row in state.rows if row.slot is not None and row.slot >= run.search_from
        }
        generation = plan_generation(
            target, new_rule, materialized=materialized, now=now, window=run, excluded=in_window
        )
        new = generation.slots
        new_dates = tuple(
            _date(
                generation.start_of(slot),
                zone,
                slot=slot if slot in generation.starts else None,
                holiday=_holiday_name(target, in_window.holiday_of(slot)),
            )
            for slot in new
        )
    # Every row read, not only the upcoming ones: a cancelled occurrence moved by
    # hand to before ``now`` still stands for its slot ahead.
    cancelled_slots = {row.slot for row in state.rows if model.is_status(row.status, cancelled)}
    excluded = tuple(
        _date(
            instant,
            zone,
            reason=_excluded_because(instant, exclusion, cancelled_slots),
            holiday=_holiday_name(target, exclusion.holiday),
        )
        for instant, exclusion in _skipped(
            target, new_rule, spec, seen, now=now, horizon=run.horizon
        )
    )
    digest = _hash(
        series,
        target,
        rule,
        new_rule,
        state,
        new=new,
        cursor_reset=cursor_reset,
        extra=extra,
        booked=_booked_drift(drift) if cancels else None,
    )
    return RecurrencePlan(
        series_id=series.pk,
        changed=frozenset(changed),
        cursor_reset=cursor_reset,
        description=describe_spec(spec),
        rrule_string=new_rule.rrule_string,
        timezone=zone,
        generation_window_weeks=target.generation_window_weeks,
        horizon=run.horizon,
        stay=stay,
        drift=drift,
        new=new_dates,
        excluded=excluded,
        hash=digest,
    )


def judge_rows(
    target: EventSeries,
    rule: RecurrenceRule,
    state: PlanState,
    judged: list[PlanRow],
    *,
    bookings: Mapping[Any, int] | None = None,
) -> tuple[tuple[PlannedOccurrence, ...], tuple[PlannedOccurrence, ...]]:
    """The live ``judged`` rows that fit ``target``'s dates under ``rule``, and those that
    do not (drift), each with its bookings (one call to the host's hook, unless
    ``bookings`` gives them)."""
    spec = target.dates_spec(rule)
    zone = rule.timezone
    model = get_event_model()
    cancelled = model.RECURRING_STATUS_CANCELLED
    live = [row for row in judged if not model.is_status(row.status, cancelled)]
    fitting, moves = _fitting(target, rule, spec, live, state)
    counts = _count_bookings(live) if bookings is None else bookings
    stay = tuple(_planned(row, zone, counts) for row in live if row.id in fitting)
    drift = tuple(
        _planned(row, zone, counts, moves_to=moves.get(row.id))
        for row in live
        if row.id not in fitting
    )
    return stay, drift


def _judged_instant(row: PlanRow) -> dt.datetime:
    """The instant a row is judged by: its original slot when moved by hand, else its start.

    An occurrence not modified starts on its slot (drift detection reads the start,
    so the plan agrees with it); one an organiser moved is judged by the date it
    stands for, as generation does (it never recreates a slot that is taken).
    """
    if _by_slot(row):
        assert row.slot is not None
        return row.slot
    return row.start


def _fitting(
    target: EventSeries,
    rule: RecurrenceRule,
    spec: rules.RuleSpec,
    live: list[PlanRow],
    state: PlanState,
) -> tuple[set[Any], dict[Any, dt.datetime]]:
    """The ids of ``live`` rows whose judged instant is a date of the new rule, not excluded,
    and, for unmodified rows whose slot takes place on another day now (a holiday
    policy change), where it takes place."""
    if not live:
        return set(), {}
    instants = {row.id: _judged_instant(row) for row in live}
    earliest, latest = min(instants.values()), max(instants.values())
    excluded = excluded_between(
        target, earliest - SHIFT_REACH, latest, pending=state.pending, rule=rule
    )
    placed = placed_dates(spec, excluded, earliest, latest)
    # A row moved by hand is judged by its slot; any other by its start, which a
    # holiday may have shifted off its slot.
    starts = set(placed.values())
    fitting = {
        row.id
        for row in live
        if (instants[row.id] in placed if _by_slot(row) else instants[row.id] in starts)
    }
    moves = {
        row.id: placed[row.slot]
        for row in live
        if row.id not in fitting
        and not row.is_modified
        and row.slot is not None
        and placed.get(row.slot, row.start) != row.start
    }
    return fitting, moves


def _by_slot(row: PlanRow) -> bool:
    return row.is_modified and row.slot is not None


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


def _holiday_terms(series: EventSeries) -> list[Any]:
    return [
        series.holiday_country,
        series.holiday_subdivision,
        sorted(series.holiday_categories or ()),
        series.holiday_policy,
    ]


def _count_bookings(live: list[PlanRow]) -> dict[Any, int]:
    if not live:
        return {}
    model = get_event_model()
    return {
        pk: int(count)
        for pk, count in model.count_bookings_among([row.event for row in live]).items()
    }


def _local(instant: dt.datetime, zone: str) -> dt.datetime:
    return instant.astimezone(zoneinfo.ZoneInfo(zone))


def _planned(
    row: PlanRow,
    zone: str,
    counts: Mapping[Any, int],
    *,
    moves_to: dt.datetime | None = None,
) -> PlannedOccurrence:
    return PlannedOccurrence(
        id=row.id,
        start=row.start,
        local=_local(row.start, zone),
        display=describe_instant(row.start, zone),
        slot=row.slot,
        status=row.status,
        is_modified=row.is_modified,
        bookings=counts.get(row.id, 0),
        moves_to=moves_to,
    )


def _date(
    instant: dt.datetime,
    zone: str,
    *,
    reason: ExcludedBecause | None = None,
    slot: dt.datetime | None = None,
    holiday: str = "",
) -> PlannedDate:
    return PlannedDate(
        start=instant,
        local=_local(instant, zone),
        display=describe_instant(instant, zone),
        reason=reason,
        shifted_from=slot,
        holiday=holiday,
    )


def _booked_drift(drift: tuple[PlannedOccurrence, ...]) -> list[str]:
    """The drifted dates an apply may cancel or move that hold bookings, by id.

    Whether each is booked, not how many bookings it holds: a plan that showed a
    date without bookings is outdated once it has one (``cancel_drift="all"``
    would cancel it unseen), while one more booking on a date shown booked
    changes nothing a person decided. Dates edited by hand are never cancelled
    or moved by an apply and are left out.
    """
    return sorted(str(row.id) for row in drift if row.bookings and not row.is_modified)


def _stamp(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return rules.to_utc(value).isoformat() if rules.is_aware(value) else value.isoformat()
    if isinstance(value, list | tuple):
        return sorted(value)
    return value


def _hash(
    series: EventSeries,
    target: EventSeries,
    rule: RecurrenceRule,
    new_rule: RecurrenceRule,
    state: PlanState,
    *,
    new: tuple[dt.datetime, ...],
    cursor_reset: bool,
    extra: Mapping[str, Any] | None = None,
    booked: list[str] | None = None,
) -> str:
    """A digest of everything the plan depends on, and of what it found.

    The rule before and after, the series' flags and windows, its extra dates
    before and after, every excluded instant (exdates and pending ones, as
    one set: folding a pending slot in changes nothing), each row read (id, start,
    slot, status, modified flag and the host's change stamp), the dates it would
    create: any committed change of these between a plan and its apply gives
    another hash, and so does applying it with other changes than it was made for.
    For a plan whose apply may cancel, ``booked`` (the ids of the booked drifted
    dates) makes the second half of the hash (:func:`hash_matches`).
    """
    window = target.generation_window_weeks
    excluded = sorted(
        {rules.parse_instant(value) for value in series.exdates or ()} | set(state.pending)
    )
    payload = {
        "version": _HASH_VERSION,
        "series": str(series.pk),
        "rule": {name: _stamp(value) for name, value in rule.field_values().items()},
        "new_rule": {name: _stamp(value) for name, value in new_rule.field_values().items()},
        "flags": [series.is_active, series.auto_publish, series.generation_window_weeks, window],
        "excluded": [instant.isoformat() for instant in excluded],
        "extra_dates": sorted(series.extra_dates or ()),
        "new_extra_dates": sorted(target.extra_dates or ()),
        # What the holidays do to the dates: the calendar and policy before and
        # after, the dates kept on purpose and the holiday data installed.
        "holidays": [
            _holiday_terms(series),
            _holiday_terms(target),
            sorted(series.holidays_kept or ()),
            data_version() if series.holiday_country or target.holiday_country else "",
        ],
        "template": state.has_template,
        "rows": [
            [
                str(row.id),
                row.start.isoformat(),
                _stamp(row.slot),
                row.status,
                row.is_modified,
                _stamp(row.stamp),
            ]
            for row in state.rows
        ],
        "new": [instant.isoformat() for instant in new],
        "cursor_reset": cursor_reset,
        "extra": dict(extra or {}),
    }
    encoded = json.dumps(payload, sort_keys=True, default=str).encode()
    digest = hashlib.sha256(encoded).hexdigest()
    if booked is None:
        return digest
    with_bookings = hashlib.sha256(json.dumps([digest, booked]).encode()).hexdigest()
    return digest[:_HALF] + with_bookings[:_HALF]


#: A change plan's hash is two halves: the state and the change, then the same with
#: the booked drifted dates (:func:`hash_matches`).
_HALF = 32


def hash_matches(fresh: str, given: str, *, bookings_seen: bool) -> bool:
    """Whether ``given`` (a client's plan hash) is the hash of the ``fresh`` plan.

    With ``bookings_seen`` the whole hash must match, which of the drifted dates
    hold bookings included: an apply that cancels what the person ticked, or every
    drifted date booked or not, cancels only what the plan showed. Without it (an
    apply that cancels no booked date, asking the host again under the row locks)
    the first half is compared, so a booking taken since the plan keeps its date
    rather than outdating the plan.
    """
    given = given.strip()
    if bookings_seen or len(fresh) != 2 * _HALF or len(given) != 2 * _HALF:
        return fresh == given
    return fresh[:_HALF] == given[:_HALF]


__all__ = [
    "EXTRA_DATES_KEY",
    "HOLIDAYS_KEY",
    "WINDOW_KEY",
    "Changes",
    "compute_change",
    "compute_plan",
    "hash_matches",
    "holiday_data_changed",
    "judge_rows",
    "plan_outcome",
    "pop_holidays",
    "split_changes",
]
