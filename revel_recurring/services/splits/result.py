"""What a split did: a plain, frozen value."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ...models import EventSeries
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
    #: Moved dates that hold bookings and that the continuation's rule does not
    #: hold: kept as they are (drift of the continuation), never cancelled.
    kept_booked: list[BookedDate]


__all__ = ["SplitResult"]
