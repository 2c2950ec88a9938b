"""What a revert plan shows and what applying it did: plain, frozen values.

Instants are UTC; each start also comes as a person reads it in the rule's zone
(``display``). Statuses are the app's words: "live", "cancelled", "draft".
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass, field
from typing import Any

#: The kinds of operation a revert can undo: an applied plan (a rule, window, extra
#: dates or holiday change), a split, a move (a schedule edit that moved dates), a
#: cancellation of the dates off the schedule, a holiday policy change.
REVERTIBLE_KINDS: frozenset[str] = frozenset({"plan", "split", "move", "cancel_stale", "holidays"})

#: What the revert does to one row: puts it back as it was ("restore") or removes a
#: row the operation created ("remove").
RESTORE = "restore"
REMOVE = "remove"


@dataclass(frozen=True)
class RevertRow:
    """One row the revert writes: as it is now and as it will be."""

    #: The host event's primary key (whatever type it has).
    id: Any
    #: "restore" or "remove".
    action: str
    #: What the operation did to it ("created", "moved", "cancelled", "restored", ...).
    change: str
    series_id: int | None
    start: dt.datetime | None
    display: str
    slot: dt.datetime | None
    status: str
    #: Where it goes back to (None for a row removed).
    target_series_id: int | None
    target_start: dt.datetime | None
    target_display: str
    target_slot: dt.datetime | None
    target_status: str
    #: How many bookings it holds now (the host's ``count_bookings_among``).
    bookings: int = 0

    @property
    def booked(self) -> bool:
        return self.bookings > 0


@dataclass(frozen=True)
class SettingChange:
    """A rule field or a series setting the revert puts back: its value now and then."""

    name: str
    current: Any
    target: Any


@dataclass(frozen=True)
class RevertPlan:
    """What reverting an operation would do, computed without writing.

    ``rows`` are the dates it restores or removes, ``settings`` the rule fields and
    series settings it puts back (from the operation's ``before``), ``description``
    the restored rule as a sentence, ``removes_series`` the continuation a reverted
    split deletes. ``hash`` is what :func:`~.apply.apply_revert` checks.
    """

    operation_id: uuid.UUID
    kind: str
    series_id: int
    description: str
    rows: tuple[RevertRow, ...]
    settings: tuple[SettingChange, ...]
    removes_series: int | None
    hash: str
    #: How many distinct people booked on the dates the revert changes would get a
    #: message (0 when the host does not say who is booked). Not hashed.
    people_told: int = 0

    @property
    def restored(self) -> tuple[RevertRow, ...]:
        return tuple(row for row in self.rows if row.action == RESTORE)

    @property
    def removed(self) -> tuple[RevertRow, ...]:
        return tuple(row for row in self.rows if row.action == REMOVE)


@dataclass(frozen=True)
class RevertResult:
    """What :func:`~.apply.apply_revert` did."""

    plan: RevertPlan
    #: The revert's own record (kind "revert"), None when the history writes none.
    operation_id: uuid.UUID | None
    #: Ids of the rows put back, in the order of the plan.
    restored: list[Any] = field(default_factory=list)
    #: Ids of the rows the operation had created, now deleted.
    removed: list[Any] = field(default_factory=list)
    #: The continuation deleted by reverting a split.
    removed_series: int | None = None


__all__ = [
    "REMOVE",
    "RESTORE",
    "REVERTIBLE_KINDS",
    "RevertPlan",
    "RevertResult",
    "RevertRow",
    "SettingChange",
]
