"""What a change plan is computed from, read in a constant number of queries.

One statement reads every row the plan looks at (the template, and each
occurrence that starts at or after ``now`` or has its slot at most
``SHIFT_REACH`` before it, cancelled ones included), one the pending exdates.
The plan and its hash are then pure functions of this state, the change and
``now`` (:mod:`revel_recurring.services.plans.compute`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from ... import rules
from ...exclusions import read_pending
from ...holiday_rules import SHIFT_REACH
from ...models import EventSeries, get_event_model


@dataclass(frozen=True)
class PlanRow:
    """One occurrence as read for a plan (the template is not one)."""

    id: Any
    start: dt.datetime
    slot: dt.datetime | None
    status: str
    is_modified: bool
    #: The host's ``RECURRING_UPDATED_FIELD`` value, or None when it has none.
    stamp: dt.datetime | None
    #: The row as loaded (only the columns above), for the host's booking hook.
    event: Any


@dataclass(frozen=True)
class PlanState:
    """The series' rows and pending exdates that a plan reads."""

    rows: tuple[PlanRow, ...]
    has_template: bool
    pending: tuple[dt.datetime, ...]

    def upcoming(self, now: dt.datetime) -> list[PlanRow]:
        """The rows starting at or after ``now``, in start order: those the plan judges."""
        return [row for row in self.rows if row.start >= now]


def read_plan_state(series: EventSeries, *, now: dt.datetime) -> PlanState:
    """Read the plan's rows (one query) and pending exdates (one query) of ``series``."""
    model = get_event_model()
    start = model.RECURRING_START_FIELD
    status = model.RECURRING_STATUS_FIELD
    stamp = model.RECURRING_UPDATED_FIELD
    columns = [start, status, "recurrence_id", "is_modified", "is_template"]
    if stamp:
        columns.append(stamp)
    events: Sequence[Any] = list(
        model._default_manager.filter(series_id=series.pk)
        # Slots a little before ``now`` too: a holiday may have shifted their
        # date to a day ahead, and generation knows them as taken.
        .filter(
            Q(is_template=True)
            | Q(**{f"{start}__gte": now})
            | Q(recurrence_id__gte=now - SHIFT_REACH)
        )
        .only(*columns)
        .order_by(start, "pk")
    )
    rows = tuple(
        PlanRow(
            id=event.pk,
            start=rules.to_utc(getattr(event, start)),
            slot=None if event.recurrence_id is None else rules.to_utc(event.recurrence_id),
            status=str(getattr(event, status)),
            is_modified=bool(event.is_modified),
            stamp=getattr(event, stamp) if stamp else None,
            event=event,
        )
        for event in events
        if not event.is_template
    )
    pending = read_pending([series.pk])[series.pk]
    return PlanState(
        rows=rows,
        has_template=any(event.is_template for event in events),
        pending=tuple(sorted(rules.to_utc(instant) for instant in pending)),
    )


__all__ = ["PlanRow", "PlanState", "read_plan_state"]
