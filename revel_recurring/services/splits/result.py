"""What a split did: a plain, frozen value."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ...models import EventSeries
from ..plans.result import PlannedOccurrence, RecurrencePlan
from ..toolbox.bookings import BookedDate


@dataclass(frozen=True)
class SplitResult:
    """What :func:`~revel_recurring.services.splits.split_series` did."""

    #: The series split, now ending at ``last_before`` (fresh state).
    original: EventSeries
    #: The new series starting at ``at``.
    continuation: EventSeries
    #: The split instant (UTC) and the original's last slot before it (UTC).
    at: dt.datetime
    last_before: dt.datetime
    #: Ids of the occurrences that moved to the continuation, in start order.
    moved: list[Any]
    #: The occurrences generated for the continuation, in start order.
    created: list[Any]
    #: Moved dates that hold bookings, that the continuation's rule does not hold
    #: and that the split neither moved to a partner nor cancelled: kept as they are.
    kept_booked: list[BookedDate]
    #: Ids of the moved dates that went on to their partner, the continuation's date
    #: in the same period (same row, new date and slot), in new start order.
    rescheduled: list[Any] = field(default_factory=list)
    #: Ids of the moved dates without a partner cancelled as ``cancel_drift`` asked.
    cancelled: list[Any] = field(default_factory=list)
    #: Drifted dates left alone because an organiser moved or edited them by hand.
    kept_modified: list[PlannedOccurrence] = field(default_factory=list)
    #: Ids among ``moved`` of dates that were already cancelled (counted apart).
    moved_cancelled: list[Any] = field(default_factory=list)
    #: The plan the split applied.
    plan: RecurrencePlan | None = None

    @property
    def moved_open(self) -> list[Any]:
        """Ids among ``moved`` of dates that were not cancelled."""
        gone = set(self.moved_cancelled)
        return [pk for pk in self.moved if pk not in gone]


__all__ = ["SplitResult"]
