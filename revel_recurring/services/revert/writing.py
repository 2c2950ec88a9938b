"""Writing a revert the plan showed: rows back, created rows gone, rule and settings back.

Runs under the series locks and the row locks of :func:`~.apply.apply_revert`,
inside its operation. Whatever the number of rows: one UPDATE per batch of rows
put back (``bulk_update``: no save signals, so nothing is marked edited by hand),
one INSERT of change records, one DELETE of the rows the operation created.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from ... import rules
from ...adapter import get_adapter
from ...context import deleting_series
from ...models import DeletedSeries, EventSeries, OccurrenceChange, RecurrenceRule, get_event_model
from ..toolbox.scheduling import refresh_next_due_at
from .reading import RESTORED_SETTINGS, RevertReading, restored_value, rule_values
from .result import REMOVE, RevertRow

#: Rows per UPDATE statement (one CASE per column and row).
_BATCH = 500


@dataclass
class Written:
    restored: list[Any] = field(default_factory=list)
    removed: list[Any] = field(default_factory=list)
    removed_series: int | None = None


def write_revert(reading: RevertReading, *, now: dt.datetime) -> Written:
    """Write the revert ``reading`` planned; the caller holds every lock."""
    written = Written()
    series, continuation = reading.series, reading.continuation
    by_id = {str(row.id): row for row in reading.plan.rows}
    events = reading.events
    removing = [events[key] for key, row in by_id.items() if row.action == REMOVE]
    restoring = [(events[key], row) for key, row in by_id.items() if row.action != REMOVE]
    written.restored = _restore_rows(series, restoring)
    written.removed = _remove_rows(removing, [series] + ([continuation] if continuation else []))
    _restore_settings(series, reading.operation.before or {}, now=now)
    if continuation is not None:
        _details_back(series, continuation, [event.pk for event, _ in restoring])
        _delete_continuation(series, continuation)
        written.removed_series = continuation.pk
    return written


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    return None if value is None else rules.to_utc(value)


def _restore_rows(series: EventSeries, restoring: list[tuple[Any, RevertRow]]) -> list[Any]:
    """Each row back to its state before the operation; the change log told."""
    model: Any = get_event_model()
    changed: set[str] = set()
    records: list[OccurrenceChange] = []
    touched: list[Any] = []
    for event, row in restoring:
        fields: list[str] = []
        back_to = row.target_series_id
        if back_to is not None and back_to != event.series_id:
            event.series_id = back_to
            fields.append("series")
            # A client syncing the series learns the date is back in it.
            records.append(_change(back_to, event, OccurrenceChange.Kind.RESTORED))
        if row.target_start is not None and row.target_start != _utc(event.occurrence_start):
            fields += event.move_start(row.target_start)
        if row.target_slot != _utc(event.recurrence_id):
            record = _change(event.series_id, event, OccurrenceChange.Kind.RESCHEDULED)
            record.new_recurrence_id = row.target_slot
            records.append(record)
            event.recurrence_id = row.target_slot
            fields.append("recurrence_id")
        if row.target_status != row.status:
            fields += _status(model, event, row)
            kind = (
                OccurrenceChange.Kind.CANCELLED
                if row.target_status == "cancelled"
                else OccurrenceChange.Kind.RESTORED
            )
            records.append(_change(event.series_id, event, kind))
        if fields:
            changed.update(fields)
            touched.append(event)
    if not touched:
        return []
    stamp = model.RECURRING_UPDATED_FIELD
    if stamp:
        moment = timezone.now()
        for event in touched:
            setattr(event, stamp, moment)
        changed.add(stamp)
    model._base_manager.bulk_update(touched, sorted(changed), batch_size=_BATCH)
    OccurrenceChange.objects.bulk_create(records)
    return [event.pk for event in touched]


def _status(model: Any, event: Any, row: RevertRow) -> list[str]:
    """Put back the row's status: cancelled again, or the status it had before."""
    if row.target_status == "cancelled":
        return list(event.mark_cancelled())
    fallback = (
        model.RECURRING_STATUS_DRAFT
        if row.target_status == "draft"
        else model.RECURRING_STATUS_OPEN
    )
    if row.status == "cancelled":
        return list(event.mark_restored(fallback=fallback))
    setattr(event, model.RECURRING_STATUS_FIELD, fallback)
    return [model.RECURRING_STATUS_FIELD]


def _change(series_id: Any, event: Any, kind: str) -> OccurrenceChange:
    return OccurrenceChange(
        series_id=series_id,
        occurrence_pk=str(event.pk),
        recurrence_id=event.recurrence_id,
        occurrence_index=event.occurrence_index,
        kind=kind,
    )


def _remove_rows(events: list[Any], series: list[EventSeries]) -> list[Any]:
    """Delete the rows the operation created: their slots excluded nowhere, their
    deletion in the change log (one INSERT, one DELETE)."""
    if not events:
        return []
    model: Any = get_event_model()
    live = {one.pk for one in series}
    OccurrenceChange.objects.bulk_create(
        [
            _change(event.series_id, event, OccurrenceChange.Kind.DELETED)
            for event in events
            if event.series_id in live
        ]
    )
    pks = [event.pk for event in events]
    with _deleting([one.pk for one in series]):
        model._base_manager.filter(pk__in=pks).delete()
    return pks


class _deleting:
    """Deletes inside record no exdate and no change of their own for these series."""

    def __init__(self, ids: list[int]) -> None:
        self.managers = [deleting_series(pk) for pk in ids]

    def __enter__(self) -> None:
        for manager in self.managers:
            manager.__enter__()

    def __exit__(self, *exc: Any) -> None:
        for manager in reversed(self.managers):
            manager.__exit__(*exc)


def _restore_settings(series: EventSeries, before: dict[str, Any], *, now: dt.datetime) -> None:
    """The rule and the schedule settings as the operation's ``before`` holds them."""
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    values = rule_values(before)
    if rule is not None and values:
        for name, value in values.items():
            setattr(rule, name, value)
        rule.save()
    columns = [name for name in RESTORED_SETTINGS if name in before]
    for name in columns:
        setattr(series, name, restored_value(name, before[name]))
    if rule is not None:
        refresh_next_due_at(series, now=now)
        columns.append("next_due_at")
    series.save(update_fields=[*columns, "updated_at"])


def _details_back(original: EventSeries, continuation: EventSeries, pks: list[Any]) -> None:
    """The original's template details back on the dates a split handed over and gave the
    continuation's (its propagatable fields): those nobody edited by hand and not
    cancelled, as the split wrote them. One UPDATE, none when both templates agree."""
    model: Any = get_event_model()
    templates = {
        event.series_id: event
        for event in model._base_manager.filter(
            series__in=[original, continuation], is_template=True
        )
    }
    mine, theirs = templates.get(original.pk), templates.get(continuation.pk)
    if mine is None or theirs is None or not pks:
        return
    names = [model._meta.get_field(name).attname for name in model.PROPAGATABLE_FIELDS]
    fresh = {
        name: getattr(mine, name) for name in names if getattr(mine, name) != getattr(theirs, name)
    }
    if not fresh:
        return
    model._base_manager.filter(pk__in=pks, is_modified=False).exclude(
        **{model.RECURRING_STATUS_FIELD: model.RECURRING_STATUS_CANCELLED}
    ).update(**fresh)


def _delete_continuation(original: EventSeries, continuation: EventSeries) -> None:
    """Delete a reverted split's continuation (its dates are back with the original):
    its template and rule go with it, and it is remembered so its feed tells calendar
    apps to drop it; a series that followed it follows the original again."""
    model: Any = get_event_model()
    template = model._base_manager.filter(series=continuation, is_template=True).first()
    remembered = DeletedSeries(
        series_pk=str(continuation.pk),
        slug=continuation.slug,
        name=continuation.name,
        feed_was_open=get_adapter().is_feed_open(continuation, template),
    )
    follower = EventSeries.objects.filter(split_from=continuation).values_list("pk", flat=True)
    followers = list(follower)
    EventSeries.objects.filter(pk=continuation.pk).update(split_from=None)
    if followers:
        EventSeries.objects.filter(pk__in=followers).update(split_from=original)
    with deleting_series(continuation.pk):
        model._base_manager.filter(series=continuation).delete()
    rule_id = continuation.recurrence_rule_id
    continuation.delete()
    remembered.save()
    if rule_id is not None:
        RecurrenceRule.objects.filter(pk=rule_id).delete()


__all__ = ["Written", "write_revert"]
