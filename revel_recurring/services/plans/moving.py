"""Writing the moves a plan decided: the same rows at their new dates, in a few statements.

A date that moves keeps its id, bookings and related rows; its start (with its end
and shifted fields) goes to the new date and, when it moves to a partner of the
new rule, its slot (``recurrence_id``) becomes the partner's. Each change of slot
is recorded (``OccurrenceChange`` of kind ``rescheduled``, old and new slot), so a
client syncing with ``modified_since`` can follow the ``recurrence_id`` it holds.
A cancelled date that moves stays cancelled: its exdate moves with it.

Whatever the number of rows: one read (under row locks), one UPDATE per batch
(``bulk_update``), one INSERT of change records.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping
from typing import Any

from django.db.models import Q
from django.utils import timezone

from ... import rules
from ...context import current_record_id
from ...host_model import bulky_fields
from ...models import EventSeries, OccurrenceChange, get_event_model
from ..toolbox.exdates import drop_exdates, merge_exdates
from ..toolbox.locking import lock_rows
from .result import PlannedOccurrence

#: Rows per UPDATE statement: one CASE per column and row, kept well below what the
#: three databases accept in one statement.
_BATCH = 500


def lock_movers(ids: Collection[Any], *, modified: Collection[Any] = ()) -> list[Any]:
    """The host rows ``ids`` that nobody edited by hand, locked, in pk order; of those in
    ``modified`` (the plan moves them although edited: newer zone data), any."""
    if not ids:
        return []
    model = get_event_model()
    chosen = Q(is_modified=False)
    if modified:
        chosen |= Q(pk__in=list(modified))
    return list(
        lock_rows(
            model._default_manager.filter(chosen, pk__in=list(ids))
            .defer(*bulky_fields(model))
            .order_by("pk")
        )
    )


def write_moves(
    series: EventSeries, events: list[Any], planned: Mapping[Any, PlannedOccurrence]
) -> list[Any]:
    """Move each of ``events`` to its ``planned`` date (``moves_to``, ``new_slot``).

    ``series`` is the series the rows belong to when they move (its exdates follow
    the cancelled ones that move, saved). Returns the ids moved, in the order of
    their new starts.
    """
    model = get_event_model()
    changed: set[str] = set()
    moved: list[Any] = []
    records: list[OccurrenceChange] = []
    carried: dict[dt.datetime, dt.datetime] = {}
    for event in sorted(events, key=lambda item: _target(planned[item.pk])):
        row = planned[event.pk]
        assert row.moves_to is not None
        fields = event.move_start(row.moves_to)
        if row.new_slot is not None and row.new_slot != _utc(event.recurrence_id):
            records.append(_rescheduled(series, event, row.new_slot))
            old_slot = _utc(event.recurrence_id)
            if event.is_cancelled and old_slot is not None:
                carried[old_slot] = row.new_slot
            event.recurrence_id = row.new_slot
            fields.append("recurrence_id")
        if fields:
            changed.update(fields)
            moved.append(event.pk)
    if not moved:
        return []
    stamp = model.RECURRING_UPDATED_FIELD
    if stamp:
        now = timezone.now()
        for event in events:
            setattr(event, stamp, now)
        changed.add(stamp)
    touched = [event for event in events if event.pk in set(moved)]
    # bulk_update: no save() signals, so is_modified stays as it is (the app moved
    # them, nobody edited them).
    model._default_manager.bulk_update(touched, sorted(changed), batch_size=_BATCH)
    OccurrenceChange.objects.bulk_create(records)
    if carried:
        _carry_exdates(series, carried)
    return moved


def _rescheduled(series: EventSeries, event: Any, new_slot: dt.datetime) -> OccurrenceChange:
    return OccurrenceChange(
        series=series,
        occurrence_pk=str(event.pk),
        recurrence_id=event.recurrence_id,
        new_recurrence_id=new_slot,
        occurrence_index=event.occurrence_index,
        kind=OccurrenceChange.Kind.RESCHEDULED,
        operation_id=current_record_id(),
    )


def _carry_exdates(series: EventSeries, carried: Mapping[dt.datetime, dt.datetime]) -> None:
    """Replace, in ``series``' exdates, each old slot of a cancelled date that moved by its
    new slot, and save the column."""
    dropped = drop_exdates(series, list(carried))
    if merge_exdates(series, list(carried.values())) or dropped:
        series.save(update_fields=["exdates", "updated_at"])


def _target(row: PlannedOccurrence) -> dt.datetime:
    assert row.moves_to is not None
    return row.moves_to


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    return None if value is None else rules.to_utc(value)


__all__ = ["lock_movers", "write_moves"]
