"""Where a date goes when the schedule changes: its partner, the new rule's date in its period.

A change of time, weekday, zone or start (a plan applied, a split with a new rule,
a PATCH of the rule) leaves rows that the new rule no longer holds. A row nobody
edited by hand is not doubled by a new date beside it, nor cancelled and created
again: it *moves* to its partner, keeping its id, bookings and related rows, and
its slot (``recurrence_id``) becomes the partner's, since the old slot is no
longer the rule's.

A partner is a date of the new rule (not an extra date) in the same period of the
rule (:func:`~revel_recurring.rules.period_of`: FREQ x INTERVAL counted from
DTSTART, weeks from WKST) that is still to come, whose slot no row holds (live or
cancelled) and that nothing excludes (an exdate, a pending exdate, a holiday that
skips it). Within a period, rows and partners pair in date order; a row left over
is drift, a partner left over is a new date. Cancelled rows pair too, so a date
cancelled at the old time stays cancelled at the new one instead of coming back;
the judge (:mod:`.judging`) keeps such a pair only on the same day.

Pure over the rows a plan read: no query.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ... import rules
from ...exclusions import excluded_between, placed_dates
from ...holiday_placement import SHIFT_REACH
from ...models import EventSeries, RecurrenceRule
from .state import PlanRow, PlanState


@dataclass(frozen=True)
class Partner:
    """The date a row moves to: where it takes place and the slot it stands for (UTC)."""

    start: dt.datetime
    slot: dt.datetime


def find_partners(
    target: EventSeries,
    rule: RecurrenceRule,
    state: PlanState,
    rows: Iterable[PlanRow],
    *,
    now: dt.datetime,
    modified_too: bool = False,
) -> dict[Any, Partner]:
    """Row id -> partner, for the ``rows`` (none fitting ``rule``) that have one.

    ``target`` is the series as it would be (its exdates, extra dates and holiday
    settings), ``rule`` its new rule, ``state`` every row read (whose slots are
    taken) and the pending exdates. Rows without a slot are never paired, nor rows
    edited by hand but with ``modified_too`` (the zone's offsets changed: every
    date moves by the span its slot moves, keeping its wall-clock time).
    """
    movable = sorted(
        (row for row in rows if row.slot is not None and (modified_too or not row.is_modified)),
        key=lambda row: (row.slot, str(row.id)),
    )
    if not movable:
        return {}
    spec = rules.rule_only(target.dates_spec(rule))
    slots = [row.slot for row in movable if row.slot is not None]
    reach = min(rules.period_span(spec), rules.SPAN_CAP)
    earliest, latest = max(min(slots) - reach, now), max(slots) + reach
    excluded = excluded_between(
        target, earliest - SHIFT_REACH, latest, pending=state.pending, rule=rule
    )
    taken = {row.slot for row in state.rows if row.slot is not None}
    free: dict[int, list[Partner]] = defaultdict(list)
    for slot, start in sorted(placed_dates(spec, excluded, earliest, latest).items()):
        if slot in taken or start < now or slot < earliest:
            continue
        free[rules.period_of(spec, slot)].append(Partner(start=start, slot=slot))
    partners: dict[Any, Partner] = {}
    for row in movable:
        assert row.slot is not None
        waiting = free.get(rules.period_of(spec, row.slot))
        if waiting:
            partner = waiting.pop(0)
            if row.is_modified:
                partner = Partner(start=row.start + (partner.slot - row.slot), slot=partner.slot)
            partners[row.id] = partner
    return partners


__all__ = ["Partner", "find_partners"]
