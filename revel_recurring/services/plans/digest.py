"""A change plan's hash: a digest of everything the plan depends on and of what it found.

Equal hashes, equal plans: an apply computes the plan again under the series lock
and compares the two (:func:`hash_matches`), so anything committed in between
outdates the plan a person saw.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ... import rules
from ...holiday_rules import data_version
from ...models import EventSeries, RecurrenceRule
from .result import PlannedOccurrence
from .state import PlanState

#: Bumped whenever what the hash covers changes, so an old hash never matches.
_HASH_VERSION = 4


def _holiday_terms(series: EventSeries) -> list[Any]:
    return [
        series.holiday_country,
        series.holiday_subdivision,
        sorted(series.holiday_categories or ()),
        series.holiday_policy,
    ]


def booked_drift_ids(drift: tuple[PlannedOccurrence, ...]) -> list[str]:
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


def plan_digest(
    series: EventSeries,
    target: EventSeries,
    rule: RecurrenceRule,
    new_rule: RecurrenceRule,
    state: PlanState,
    *,
    new: tuple[dt.datetime, ...],
    cursor_reset: bool,
    extra: Mapping[str, Any] | None = None,
    moves: Iterable[PlannedOccurrence] = (),
    booked: list[str] | None = None,
) -> str:
    """A digest of everything the plan depends on, and of what it found.

    The rule before and after, the series' flags and windows, its extra dates
    before and after, every excluded instant (exdates and pending ones, as
    one set: folding a pending slot in changes nothing), each row read (id, start,
    slot, status, modified flag and the host's change stamp), the dates it would
    create and where the rows it moves go (``moves``): any committed change of
    these between a plan and its apply gives another hash, and so does applying
    it with other changes than it was made for.
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
        # Where each date would move: which partner a row takes depends on ``now``.
        "moves": sorted([str(row.id), _stamp(row.moves_to), _stamp(row.new_slot)] for row in moves),
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


__all__ = ["booked_drift_ids", "hash_matches", "plan_digest"]
