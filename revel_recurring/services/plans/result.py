"""What a change plan says and what applying it did: plain, frozen values.

Instants are UTC; each date also carries its wall clock in the rule's zone
(``local``) and the sentence a person reads (``display``, from
:func:`~revel_recurring.instants.describe_instant`).
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass, field
from typing import Any

from ..toolbox.bookings import BookedDate


class ExcludedBecause(enum.StrEnum):
    """Why a date of the new rule is skipped (the values are stable: clients may read them)."""

    #: An occurrence on that date was cancelled (its slot is an exdate).
    CANCELLED = "cancelled"
    #: An exdate with no occurrence behind it: a deleted occurrence's slot, or an
    #: exdate set by hand.
    EXDATE = "exdate"
    #: A holiday of the series' holiday calendar skips it (``PlannedDate.holiday`` names it).
    HOLIDAY = "holiday"


@dataclass(frozen=True)
class PlannedOccurrence:
    """A materialized future occurrence as the plan sees it."""

    #: The host event's primary key (whatever type it has).
    id: Any
    #: Its current start (UTC).
    start: dt.datetime
    #: The start in the rule's zone.
    local: dt.datetime
    display: str
    #: Its original slot (UTC), None for a row attached without one.
    slot: dt.datetime | None
    #: In the status field's own type.
    status: Any
    is_modified: bool
    #: How many bookings it holds (the host's ``count_bookings_among``).
    bookings: int = 0
    #: Where a drifted date would move instead of being cancelled (UTC): its partner,
    #: the new rule's date in the same period (:mod:`.partners`), or, for a slot the
    #: rule still has that a holiday policy change places on another day (``keep``
    #: <-> ``shift``), that day. None: no date to move to (cancelled when ticked).
    moves_to: dt.datetime | None = None
    #: The slot a date moving to a partner takes (UTC; its ``recurrence_id`` after the
    #: move). None for a date that keeps its slot (a holiday move) or does not move.
    new_slot: dt.datetime | None = None
    #: How many enrolled users are on it (booked through their enrolment, or holding a
    #: booking of their own it found): among ``bookings``, and kept by a move or a
    #: cancellation alike (:mod:`.enrolled`). Not hashed.
    enrolled: int = 0

    @property
    def booked(self) -> bool:
        return self.bookings > 0


@dataclass(frozen=True)
class PlannedDate:
    """A date of the new rule: one generation would create, or one it skips."""

    start: dt.datetime
    local: dt.datetime
    display: str
    #: Set for a skipped date, None for a new one.
    reason: ExcludedBecause | None = None
    #: The rule's own date of a new date a holiday moved here, None otherwise.
    shifted_from: dt.datetime | None = None
    #: The holiday that skipped or moved the date, in the active language ("" for none).
    holiday: str = ""
    #: For a new date that a booked drifted date would move to if ticked: that date's
    #: id. Created beside it when it stays (the default); not created when it moves.
    beside: Any = None
    #: How many enrolled users a new date would book (their enrolment covers its day;
    #: 0 for a date created as a draft). Not hashed.
    enrolled: int = 0


@dataclass(frozen=True)
class RecurrencePlan:
    """What a change of the rule, window or extra dates would do, computed without writing.

    - ``stay``: future occurrences (not cancelled) that still fit the new rule;
    - ``drift``: future occurrences (not cancelled) that would no longer fit (an
      occurrence on an extra date the change removes among them), with their
      bookings; those moved by hand (``is_modified``) are judged by their
      original slot and are never cancelled by ``cancel_drift``;
    - ``new``: the dates generation would create within the window right after
      the change (none for a paused series or one without a template), booked
      drifted dates staying where they are (a new date ``beside`` one is not
      created when that date is ticked to move there);
    - ``excluded``: dates of the new rule within that window skipped, with why.

    ``hash`` is the digest :func:`~revel_recurring.services.plans.apply_recurrence_plan`
    checks: equal hashes, equal plans.
    """

    series_id: int
    #: The rule and window fields whose value the change really alters, and
    #: ``"extra_dates"`` when it changes them.
    changed: frozenset[str]
    cursor_reset: bool
    description: str
    rrule_string: str
    timezone: str
    generation_window_weeks: int
    #: The window's end the plan was computed for (UTC).
    horizon: dt.datetime
    stay: tuple[PlannedOccurrence, ...]
    drift: tuple[PlannedOccurrence, ...]
    new: tuple[PlannedDate, ...]
    excluded: tuple[PlannedDate, ...]
    hash: str
    #: Cancelled future dates that move to a partner (``moves_to``, ``new_slot``) and
    #: stay cancelled there, so the new rule does not bring them back.
    cancelled_moves: tuple[PlannedOccurrence, ...] = ()
    #: Cancelled future dates the new rule does not hold and that have nowhere to move:
    #: dates of the old schedule, left as they are (a split leaves them with the original).
    cancelled_off: tuple[PlannedOccurrence, ...] = ()
    #: How many distinct people booked on the dates the plan moves or cancels (a
    #: split: on every booked date that changes series) would get a message, each
    #: one (:mod:`.told`); 0 when the host does not say who is booked. Not hashed.
    people_told: int = 0
    #: How many users are enrolled in the series from today on (a split: the enrolments
    #: the continuation takes on from the split date), and how many distinct ones of
    #: them the ``new`` dates would book (:mod:`.enrolled`). Not hashed: applying books
    #: whoever is enrolled then, and cancels or moves no date because of an enrolment.
    enrolled: int = 0
    enrolled_new: int = 0

    @property
    def booked_drift(self) -> tuple[PlannedOccurrence, ...]:
        """The drifted dates holding bookings."""
        return tuple(row for row in self.drift if row.booked)

    @property
    def moves(self) -> tuple[PlannedOccurrence, ...]:
        """The drifted dates that move (to a partner or a holiday's day) rather than go."""
        return tuple(row for row in self.drift if row.moves_to is not None)


def plan_rows(plan: RecurrencePlan) -> tuple[PlannedOccurrence, ...]:
    """Every row ``plan`` names: staying, drifting, and cancelled ones that move or stay."""
    return (*plan.stay, *plan.drift, *plan.cancelled_moves, *plan.cancelled_off)


@dataclass(frozen=True)
class AppliedPlan:
    """What :func:`~revel_recurring.services.plans.apply_recurrence_plan` did."""

    #: The plan that was applied (its hash is the one the caller gave).
    plan: RecurrencePlan
    #: The series fields that changed.
    changed: frozenset[str]
    cursor_reset: bool
    #: The occurrences generation created, in start order.
    created: list[Any]
    #: Ids of the drifted occurrences cancelled, in start order.
    cancelled: list[Any]
    #: Drifted dates left alone because they hold bookings the caller did not include.
    kept_booked: list[BookedDate]
    #: Drifted dates left alone because an organiser moved or edited them by hand.
    kept_modified: list[PlannedOccurrence]
    #: Ids of the drifted occurrences moved to where their slot now takes place
    #: (``PlannedOccurrence.moves_to``), in start order.
    moved: list[Any] = field(default_factory=list)
