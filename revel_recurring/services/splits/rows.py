"""The occurrences a split moves: handed to the continuation, refreshed where they fit.

Statements over all the rows at once, never one per row; ids, bookings and
related rows stay.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable
from typing import Any

from django.utils import timezone

from ...context import current_record_id
from ...models import EventSeries, OccurrenceChange
from ..plans.result import PlannedOccurrence
from ..toolbox.bookings import BookedDate


def move_rows(
    model: Any,
    locked: EventSeries,
    continuation: EventSeries,
    *,
    at: dt.datetime,
    keep: Collection[Any] = (),
) -> list[Any]:
    """Move the occurrences whose slot is at or after ``at``, but those of ``keep``; a
    MOVED record for each.

    Three statements: the rows read, the change records (one INSERT), the move.
    Returns the moved ids in start order.
    """
    start = model.RECURRING_START_FIELD
    rows = list(
        model._default_manager.filter(series=locked, is_template=False, recurrence_id__gte=at)
        .exclude(pk__in=list(keep))
        .order_by(start, "pk")
        .values_list("pk", "recurrence_id", "occurrence_index")
    )
    if not rows:
        return []
    # The original's change log says where each one went: a client syncing only
    # the original with modified_since learns they left, and for which series.
    OccurrenceChange.objects.bulk_create(
        [
            OccurrenceChange(
                series=locked,
                occurrence_pk=str(pk),
                recurrence_id=slot,
                occurrence_index=index,
                kind=OccurrenceChange.Kind.MOVED,
                moved_to=continuation,
                operation_id=current_record_id(),
            )
            for pk, slot, index in rows
        ]
    )
    moved = [pk for pk, _, _ in rows]
    stamp = {model.RECURRING_UPDATED_FIELD: timezone.now()} if model.RECURRING_UPDATED_FIELD else {}
    # QuerySet.update(): no save() signals, so is_modified stays as it is.
    model._default_manager.filter(pk__in=moved).update(series=continuation, **stamp)
    return moved


def drift_left_alone(
    drift: Iterable[PlannedOccurrence], moved: Collection[Any], *, now: dt.datetime
) -> list[PlannedOccurrence]:
    """The drifted dates among ``moved`` that keep their details as they are.

    Those nobody moved or edited by hand and still to come: what drift detection
    finds on the continuation once they moved (dates edited by hand are left
    alone anyway, by :func:`propagate`).
    """
    moving = set(moved)
    return [row for row in drift if row.id in moving and not row.is_modified and row.start >= now]


def propagate(model: Any, moved: list[Any], drifted: set[Any], new_template: Any) -> None:
    """The new template's propagatable fields onto the moved dates that fit its rule.

    Those nobody edited by hand and not cancelled (cancelled ones get them when
    restored, as after a template edit). A date the new rule does not hold is
    still the old arrangement (Tuesday in the old room): it keeps its details
    until the organiser decides about it. One UPDATE.
    """
    fresh = {
        model._meta.get_field(name).attname: getattr(
            new_template, model._meta.get_field(name).attname
        )
        for name in model.PROPAGATABLE_FIELDS
    }
    if not fresh or not moved:
        return
    model._default_manager.filter(pk__in=moved, is_modified=False).exclude(pk__in=drifted).exclude(
        **{model.RECURRING_STATUS_FIELD: model.RECURRING_STATUS_CANCELLED}
    ).update(**fresh)


def booked_drift(drifted: Iterable[PlannedOccurrence]) -> list[BookedDate]:
    """The drifted dates that carry bookings, as a person is told about them, in start order.

    The bookings are those the split's plan counted under the series lock (the
    host's ``count_bookings_among``): nothing is asked again.
    """
    dates = [
        BookedDate(id=row.id, start=row.start, display=row.display) for row in drifted if row.booked
    ]
    return sorted(dates, key=lambda date: (date.start, str(date.id)))


__all__ = ["booked_drift", "drift_left_alone", "move_rows", "propagate"]
