"""What a change plan is computed from, read in a constant number of queries.

One statement reads every row the plan looks at (the template, and each
occurrence that starts at or after ``now`` or has its slot at most
``SHIFT_REACH`` before it, cancelled ones included), one the pending exdates:
for one series or for many at once. The plan and its hash are then pure
functions of this state, the change and ``now``
(:mod:`revel_recurring.services.plans.compute`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from ... import rules
from ...exclusions import read_pending
from ...holiday_placement import SHIFT_REACH
from ...models import EventSeries, get_event_model


@dataclass(frozen=True)
class PlanRow:
    """One occurrence as read for a plan (the template is not one)."""

    id: Any
    start: dt.datetime
    slot: dt.datetime | None
    #: In the status field's own type (``status_value``).
    status: Any
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
    return read_plan_states([series.pk], now=now)[series.pk]


def read_plan_states(series_ids: Collection[int], *, now: dt.datetime) -> dict[int, PlanState]:
    """:func:`read_plan_state` of every series in ``series_ids``, in two queries for all.

    Each series' rows come in the order :func:`read_plan_state` reads them (start,
    then pk), so a plan computed from either has the same hash.
    """
    model = get_event_model()
    start = model.RECURRING_START_FIELD
    status = model.RECURRING_STATUS_FIELD
    stamp = model.RECURRING_UPDATED_FIELD
    columns = ["series", start, status, "recurrence_id", "is_modified", "is_template"]
    if stamp:
        columns.append(stamp)
    events: Sequence[Any] = list(
        model._default_manager.filter(series_id__in=list(series_ids))
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
    rows: dict[int, list[PlanRow]] = {pk: [] for pk in series_ids}
    templates: set[int] = set()
    for event in events:
        if event.is_template:
            templates.add(event.series_id)
            continue
        rows[event.series_id].append(
            PlanRow(
                id=event.pk,
                start=rules.to_utc(getattr(event, start)),
                slot=None if event.recurrence_id is None else rules.to_utc(event.recurrence_id),
                status=model.status_value(getattr(event, status)),
                is_modified=bool(event.is_modified),
                stamp=getattr(event, stamp) if stamp else None,
                event=event,
            )
        )
    pending = read_pending(list(series_ids))
    return {
        pk: PlanState(
            rows=tuple(rows[pk]),
            has_template=pk in templates,
            pending=tuple(sorted(rules.to_utc(instant) for instant in pending[pk])),
        )
        for pk in series_ids
    }


__all__ = ["PlanRow", "PlanState", "read_plan_state", "read_plan_states"]
