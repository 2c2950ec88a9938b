"""Which rows still fit a rule, and which drift: the judgement a plan and a split share.

Pure over the rows :func:`~revel_recurring.services.plans.state.read_plan_state`
read, but for the host's booking count (one call for every row judged, unless the
caller has the counts).
"""

from __future__ import annotations

import copy
import datetime as dt
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ... import rules
from ...exclusions import excluded_between, placed_dates
from ...holiday_placement import SHIFT_REACH
from ...instants import describe_instant
from ...models import EventSeries, RecurrenceRule, get_event_model
from ..toolbox.exdates import drop_exdates
from .partners import Partner, find_partners
from .result import PlannedOccurrence
from .state import PlanRow, PlanState


@dataclass(frozen=True)
class Judgement:
    """The judged rows as a new rule sees them."""

    #: Live rows that fit the new rule.
    stay: tuple[PlannedOccurrence, ...]
    #: Live rows that do not: each with where it moves (``moves_to``) when it has a
    #: partner or a holiday moved its slot, and its bookings.
    drift: tuple[PlannedOccurrence, ...]
    #: Cancelled rows that move to a partner on the same day (a change of time or
    #: zone), so that the date stays cancelled at its new time instead of coming
    #: back there.
    cancelled_moves: tuple[PlannedOccurrence, ...] = ()
    #: Cancelled rows the new rule does not hold and that have no partner: dates of
    #: the old schedule only (a split leaves them with the original).
    cancelled_off: tuple[PlannedOccurrence, ...] = ()


def judge(
    target: EventSeries,
    rule: RecurrenceRule,
    state: PlanState,
    judged: list[PlanRow],
    *,
    now: dt.datetime | None = None,
    bookings: Mapping[Any, int] | None = None,
    modified_too: bool = False,
) -> Judgement:
    """The ``judged`` rows under ``target``'s dates with ``rule``: which live rows fit, which
    drift, and where those that can move go (one call to the host's booking hook for
    the live rows, unless ``bookings`` gives the counts).

    With ``now``, a row the new rule does not hold moves to its partner
    (:mod:`~revel_recurring.services.plans.partners`); without, only to where a
    holiday now places its slot. ``modified_too`` (newer zone data): rows moved by
    hand move to a partner too, by the same span as their slot.
    """
    spec = target.dates_spec(rule)
    zone = rule.timezone
    model = get_event_model()
    cancelled = model.RECURRING_STATUS_CANCELLED
    live = [row for row in judged if not model.is_status(row.status, cancelled)]
    gone = [row for row in judged if model.is_status(row.status, cancelled)]
    fitting, moves = _fitting(target, rule, spec, live, state)
    if gone:
        # A cancelled date is excluded by its own exdate: judged with it, it would never
        # fit, and would "move" to any free date of its period (one beyond the window,
        # say), cancelling that date and bringing its own back. It fits when its slot
        # is a date of the new rule, its own exclusion aside.
        fitting |= _fitting(_without_exdates(target, gone), rule, spec, gone, state)[0]
    rows_by_id = {row.id: row for row in gone}
    partners: dict[Any, Partner] = {}
    if now is not None:
        lonely = [row for row in [*live, *gone] if row.id not in fitting and row.id not in moves]
        partners = find_partners(target, rule, state, lonely, now=now, modified_too=modified_too)
        # A cancelled date keeps its cancellation only to another time of the same day:
        # a class cancelled on Tuesday says nothing of the Thursday it would pair with,
        # which then is a new date like any other.
        partners = {
            pk: partner
            for pk, partner in partners.items()
            if pk not in rows_by_id or _same_day(rows_by_id[pk], partner, zone)
        }
    counts = _count_bookings(live) if bookings is None else bookings

    def planned(row: PlanRow) -> PlannedOccurrence:
        partner = partners.get(row.id)
        if partner is not None:
            return _planned(row, zone, counts, moves_to=partner.start, new_slot=partner.slot)
        return _planned(row, zone, counts, moves_to=moves.get(row.id))

    return Judgement(
        stay=tuple(_planned(row, zone, counts) for row in live if row.id in fitting),
        drift=tuple(planned(row) for row in live if row.id not in fitting),
        cancelled_moves=tuple(planned(row) for row in gone if row.id in partners),
        cancelled_off=tuple(
            planned(row)
            for row in gone
            if row.id not in fitting and row.id not in moves and row.id not in partners
        ),
    )


def judge_rows(
    target: EventSeries,
    rule: RecurrenceRule,
    state: PlanState,
    judged: list[PlanRow],
    *,
    now: dt.datetime | None = None,
    bookings: Mapping[Any, int] | None = None,
) -> tuple[tuple[PlannedOccurrence, ...], tuple[PlannedOccurrence, ...]]:
    """:func:`judge`'s live rows that fit and those that drift."""
    judgement = judge(target, rule, state, judged, now=now, bookings=bookings)
    return judgement.stay, judgement.drift


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


def _same_day(row: PlanRow, partner: Partner, zone: str) -> bool:
    """Whether ``partner`` falls on the wall-clock day of ``row``'s slot in ``zone``."""
    stood = row.slot if row.slot is not None else row.start
    return local_in(stood, zone).date() == local_in(partner.start, zone).date()


def _without_exdates(target: EventSeries, rows: list[PlanRow]) -> EventSeries:
    """A copy of ``target`` (not saved) whose exdates leave out the slots of ``rows``."""
    bare = copy.copy(target)
    drop_exdates(bare, [row.slot for row in rows if row.slot is not None])
    return bare


def _by_slot(row: PlanRow) -> bool:
    return row.is_modified and row.slot is not None


def _count_bookings(live: list[PlanRow]) -> dict[Any, int]:
    if not live:
        return {}
    model = get_event_model()
    return {
        pk: int(count)
        for pk, count in model.count_bookings_among([row.event for row in live]).items()
    }


def local_in(instant: dt.datetime, zone: str) -> dt.datetime:
    """``instant`` on the wall clock of ``zone``."""
    return instant.astimezone(zoneinfo.ZoneInfo(zone))


def _planned(
    row: PlanRow,
    zone: str,
    counts: Mapping[Any, int],
    *,
    moves_to: dt.datetime | None = None,
    new_slot: dt.datetime | None = None,
) -> PlannedOccurrence:
    return PlannedOccurrence(
        id=row.id,
        start=row.start,
        local=local_in(row.start, zone),
        display=describe_instant(row.start, zone),
        slot=row.slot,
        status=row.status,
        is_modified=row.is_modified,
        bookings=counts.get(row.id, 0),
        moves_to=moves_to,
        new_slot=new_slot,
    )


__all__ = ["Judgement", "judge", "judge_rows", "local_in"]
