"""Reading what a revert would do: the record, the rows as they are now, the refusals.

:func:`compute_revert` is a pure read, run once for the plan a person sees and
again under the locks by the apply: the operation's record and its rows, the rows
as they are now (one read per page of :data:`ROWS_PER_READ`), their bookings (one
call to the host per page), the later operations on the same series (one query).
It refuses, naming why, whatever the revert depends on that changed since the
operation: the dates it would put back must stand as the operation left them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from ... import rules
from ...describe import describe_series
from ...exceptions import RevertRefusedError
from ...history import kind_label
from ...instants import describe_instant
from ...models import (
    Enrolment,
    EventSeries,
    OperationRow,
    OperationSeries,
    RecurrenceRule,
    SeriesOperation,
    get_event_model,
)
from ...records.snapshot import settings_snapshot
from ...rules import RULE_FIELDS
from ..toolbox.bookings import series_zone
from .result import REMOVE, RESTORE, REVERTIBLE_KINDS, RevertPlan, RevertRow, SettingChange

#: Host rows read (and asked of the host) per statement.
ROWS_PER_READ = 500

#: The series settings a revert puts back from the operation's ``before`` (with the
#: rule): the schedule and the generation cursor, never the name or the flags.
RESTORED_SETTINGS: tuple[str, ...] = (
    "generation_window_weeks",
    "holiday_country",
    "holiday_subdivision",
    "holiday_categories",
    "holiday_policy",
    "holidays_kept",
    "holidays_version",
    "exdates",
    "extra_dates",
    "last_generated_until",
    "last_occurrence_index",
)
#: The cursor moves with routine generation; the rest must be as the operation left it.
_CURSOR = ("last_generated_until", "last_occurrence_index")
_COMPARED = tuple(name for name in RESTORED_SETTINGS if name not in _CURSOR)

#: Bumped whenever what the hash covers changes.
_HASH_VERSION = 1


@dataclass
class RevertReading:
    """Everything :func:`compute_revert` read, for the apply to write from."""

    operation: SeriesOperation
    series: EventSeries
    continuation: EventSeries | None
    records: list[OperationRow]
    #: The host rows by their key as text (the rows the revert writes).
    events: dict[str, Any]
    plan: RevertPlan


def refuse(message: str) -> RevertRefusedError:
    return RevertRefusedError(message, field="operation")


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    return None if value is None else rules.to_utc(value)


def _shown(value: dt.datetime | None, zone: str | None) -> str:
    return "" if value is None else describe_instant(value, zone)


def status_word(model: Any, value: Any) -> str:
    """A host status as the app's word: "live", "cancelled" or "draft"."""
    if model.is_status(value, model.RECURRING_STATUS_CANCELLED):
        return "cancelled"
    if model.is_status(value, model.RECURRING_STATUS_DRAFT):
        return "draft"
    return "live"


def check_revertible(operation: SeriesOperation) -> None:
    """Refuse an operation whose kind cannot be undone, or that was reverted already."""
    if operation.kind not in REVERTIBLE_KINDS:
        raise refuse(
            gettext(
                "%(kind)s cannot be undone: only plans, splits, moves, cancellations of "
                "the dates off the schedule and holiday policy changes can."
            )
            % {"kind": kind_label(operation.kind)}
        )
    if SeriesOperation.objects.filter(reverts=operation).exists():
        raise refuse(gettext("This operation was reverted already."))
    if not operation.before or operation.series_ref is None:
        raise refuse(gettext("This operation's record holds no state to go back to."))


def continuation_ref(operation: SeriesOperation, records: Sequence[OperationRow]) -> int | None:
    """The continuation a split created: the series its rows went to."""
    if operation.kind != "split":
        return None
    for row in records:
        if row.series_after is not None and row.series_after != operation.series_ref:
            return row.series_after
    own = operation.series_ref or 0
    linked = (
        OperationSeries.objects.filter(operation=operation)
        .exclude(series_ref=own)
        .values_list("series_ref", flat=True)
        .first()
    )
    return linked


def check_no_later_operation(operation: SeriesOperation, refs: Iterable[int]) -> None:
    """Refuse when another operation touched the same series after this one (one query).

    "After" is the order the records were written in (their links' ids), which a
    clock passed as ``now=`` cannot reorder. A later operation that was reverted
    since, and the revert itself, are no longer in the way: undoing the latest
    first and then the one before it goes back step by step, as the refusal says.
    """
    own = (
        OperationSeries.objects.filter(operation=operation)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )
    later = (
        OperationSeries.objects.filter(series_ref__in=list(refs))
        .exclude(operation=operation)
        # A revert only follows the operation it undoes, so both lie after this one.
        .exclude(operation__kind="revert")
        .exclude(operation__reverted_by__isnull=False)
        .select_related("operation")
        .order_by("pk")
    )
    if own is not None:
        later = later.filter(pk__gt=own)
    else:
        later = later.filter(operation__created_at__gt=operation.created_at)
    link = later.first()
    if link is not None:
        raise refuse(
            gettext("%(kind)s on %(series)s was recorded after this operation: revert that first.")
            % {"kind": kind_label(link.operation.kind), "series": link.series_name}
        )


def _rule_value(name: str, value: Any) -> Any:
    field: Any = RecurrenceRule._meta.get_field(name)
    return value if value is None else field.to_python(value)


def _setting_changes(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[SettingChange]:
    changes: list[SettingChange] = []
    old_rule, new_rule = before.get("rule") or {}, now.get("rule") or {}
    for name in RULE_FIELDS:
        if name in old_rule and old_rule.get(name) != new_rule.get(name):
            changes.append(SettingChange(name, new_rule.get(name), old_rule.get(name)))
    for name in RESTORED_SETTINGS:
        if name in before and before[name] != now.get(name):
            changes.append(SettingChange(name, now.get(name), before[name]))
    return changes


def _check_settings_as_left(operation: SeriesOperation, now: Mapping[str, Any]) -> None:
    """Refuse when the rule or the schedule settings are no longer as the operation left them."""
    after = operation.after or {}
    if not after:
        return
    changed = [
        name
        for name in ("rule", *_COMPARED)
        if name in after and _normal(after[name]) != _normal(now.get(name))
    ]
    if changed:
        raise refuse(
            gettext("The series' %(names)s changed since this operation; revert refused.")
            % {"names": ", ".join(changed)}
        )


def _normal(value: Any) -> Any:
    if isinstance(value, list):
        return sorted(json.dumps(item, sort_keys=True) for item in value)
    return value


def _read_events(pks: Sequence[str]) -> dict[str, Any]:
    model = get_event_model()
    to_python = model._meta.pk.to_python
    events: dict[str, Any] = {}
    for start in range(0, len(pks), ROWS_PER_READ):
        page = [to_python(pk) for pk in pks[start : start + ROWS_PER_READ]]
        for event in model._base_manager.filter(pk__in=page).order_by():
            events[str(event.pk)] = event
    return events


def _bookings(events: Sequence[Any]) -> dict[str, int]:
    model: Any = get_event_model()
    counts: dict[str, int] = {}
    for start in range(0, len(events), ROWS_PER_READ):
        page = list(events[start : start + ROWS_PER_READ])
        if page:
            for pk, count in model.count_bookings_among(page).items():
                counts[str(pk)] = int(count)
    return counts


def _created(row: OperationRow) -> bool:
    return row.start_before is None and not row.status_before


def _check_row(
    row: OperationRow,
    event: Any,
    model: Any,
    operation: SeriesOperation,
    zone: str | None,
    now: dt.datetime,
) -> None:
    """Refuse a row that no longer stands as the operation left it, or that has taken place."""
    when = _shown(_utc(row.start_after) or _utc(row.start_before), zone)
    if row.change == "deleted" or row.start_after is None:
        raise refuse(
            gettext("The operation deleted %(date)s; a deleted date cannot be brought back.")
            % {"date": when}
        )
    if event is None:
        raise refuse(gettext("%(date)s was deleted since this operation.") % {"date": when})
    now_state = (
        event.series_id,
        _utc(event.recurrence_id),
        _utc(event.occurrence_start),
        status_word(model, event.occurrence_status),
    )
    left = (row.series_after, _utc(row.slot_after), _utc(row.start_after), row.status_after)
    stamp_field = model.RECURRING_UPDATED_FIELD
    stamp = getattr(event, stamp_field) if stamp_field else None
    edited_since = event.is_modified and (stamp is None or stamp > operation.created_at)
    if now_state != left or (edited_since and row.change != "created"):
        raise refuse(
            gettext(
                "%(date)s was changed since this operation (edited by hand or by another "
                "operation); revert refused."
            )
            % {"date": when}
        )
    starts = [value for value in (_utc(row.start_after), _utc(row.start_before)) if value]
    if min(starts) < now:
        raise refuse(
            gettext("%(date)s has taken place since; a revert changes only dates to come.")
            % {"date": when}
        )


def compute_revert(
    operation: SeriesOperation,
    series: EventSeries,
    continuation: EventSeries | None,
    *,
    now: dt.datetime,
) -> RevertReading:
    """What reverting ``operation`` would do to ``series`` (and a split's ``continuation``).

    Refuses (:class:`~revel_recurring.exceptions.RevertRefusedError`, keyed
    ``operation``) when the kind cannot be undone, the operation was reverted
    already, a later operation touched the same series, the rule or the schedule
    settings changed since, a row it touched was deleted, edited or changed since,
    has taken place, or a date the revert would cancel or remove holds a booking
    taken since (a removed date: any booking).
    """
    check_revertible(operation)
    records = list(OperationRow.objects.filter(operation=operation).order_by("position"))
    refs = [series.pk] + ([continuation.pk] if continuation is not None else [])
    check_no_later_operation(operation, refs)
    current = settings_snapshot(series)
    _check_settings_as_left(operation, current)
    if continuation is not None and Enrolment.objects.filter(series=continuation).exists():
        raise refuse(
            gettext(
                "The split carried enrolments to %(series)s; a split with enrolments "
                "cannot be undone."
            )
            % {"series": continuation.name}
        )
    model: Any = get_event_model()
    zone = series_zone(series)
    events = _read_events([row.occurrence_pk for row in records])
    for row in records:
        _check_row(row, events.get(row.occurrence_pk), model, operation, zone, now)
    if continuation is not None:
        stay = model._base_manager.filter(series=continuation, is_template=False).exclude(
            pk__in=[
                events[row.occurrence_pk].pk
                for row in records
                if row.series_after == continuation.pk
            ]
        )
        if stay.exists():
            raise refuse(
                gettext("Dates were added to %(series)s since the split; revert refused.")
                % {"series": continuation.name}
            )
    counts = _bookings([events[row.occurrence_pk] for row in records])
    rows: list[RevertRow] = []
    for row in records:
        event = events[row.occurrence_pk]
        booked_now = counts.get(row.occurrence_pk, 0)
        removed = _created(row)
        cancels = (
            not removed and row.status_before == "cancelled" and row.status_after != "cancelled"
        )
        if removed and booked_now:
            raise refuse(
                gettext(
                    "%(date)s holds bookings; a date the operation created is removed by "
                    "the revert, so it is refused."
                )
                % {"date": _shown(_utc(row.start_after), zone)}
            )
        if cancels and booked_now > (row.booked or 0):
            raise refuse(
                gettext(
                    "%(date)s was booked since this operation; the revert would cancel it "
                    "again, so it is refused."
                )
                % {"date": _shown(_utc(row.start_after), zone)}
            )
        rows.append(_plan_row(row, event, model, zone, booked_now, removed=removed))
    plan = RevertPlan(
        operation_id=operation.pk,
        kind=operation.kind,
        series_id=series.pk,
        description=_description(series, operation.before or {}),
        rows=tuple(rows),
        settings=tuple(_setting_changes(operation.before or {}, current)),
        removes_series=None if continuation is None else continuation.pk,
        hash=_digest(operation, current, rows, records, events, continuation),
    )
    return RevertReading(operation, series, continuation, records, events, plan)


def _plan_row(
    row: OperationRow, event: Any, model: Any, zone: str | None, bookings: int, *, removed: bool
) -> RevertRow:
    start = _utc(event.occurrence_start)
    target = None if removed else _utc(row.start_before)
    return RevertRow(
        id=event.pk,
        action=REMOVE if removed else RESTORE,
        change=row.change,
        series_id=event.series_id,
        start=start,
        display=describe_instant(start, zone) if start else "",
        slot=_utc(event.recurrence_id),
        status=status_word(model, event.occurrence_status),
        target_series_id=None if removed else row.series_before,
        target_start=target,
        target_display=describe_instant(target, zone) if target else "",
        target_slot=None if removed else _utc(row.slot_before),
        target_status="" if removed else row.status_before,
        bookings=bookings,
    )


def _description(series: EventSeries, before: Mapping[str, Any]) -> str:
    """The rule the revert restores, as a sentence."""
    fields = before.get("rule")
    if not fields:
        return ""
    rule = RecurrenceRule(
        **{name: _rule_value(name, fields.get(name)) for name in RULE_FIELDS if name in fields}
    )
    shown = EventSeries(
        **{
            name: restored_value(name, before[name])
            for name in RESTORED_SETTINGS
            if name in before and name not in _CURSOR
        }
    )
    shown.name = series.name
    return describe_series(shown, rule)


def restored_value(name: str, value: Any) -> Any:
    """A series setting of a snapshot as the column holds it."""
    field: Any = EventSeries._meta.get_field(name)
    if value is None:
        return None
    if field.get_internal_type() == "DateTimeField":
        return field.to_python(value)
    return value


def rule_values(before: Mapping[str, Any]) -> dict[str, Any]:
    """The rule fields of a snapshot as the rule's columns hold them."""
    fields = before.get("rule") or {}
    return {name: _rule_value(name, fields[name]) for name in RULE_FIELDS if name in fields}


def _digest(
    operation: SeriesOperation,
    current: Mapping[str, Any],
    rows: Sequence[RevertRow],
    records: Sequence[OperationRow],
    events: Mapping[str, Any],
    continuation: EventSeries | None,
) -> str:
    """Everything the revert depends on: the rows as they are, their bookings, the settings."""
    model: Any = get_event_model()
    stamp_field = model.RECURRING_UPDATED_FIELD
    payload = {
        "version": _HASH_VERSION,
        "operation": str(operation.pk),
        "settings": {name: current.get(name) for name in ("rule", *RESTORED_SETTINGS)},
        "continuation": None if continuation is None else continuation.pk,
        "rows": [
            [
                str(row.id),
                row.series_id,
                None if row.slot is None else row.slot.isoformat(),
                None if row.start is None else row.start.isoformat(),
                row.status,
                row.booked,
                bool(events[record.occurrence_pk].is_modified),
                str(getattr(events[record.occurrence_pk], stamp_field)) if stamp_field else "",
            ]
            for row, record in zip(rows, records, strict=True)
        ],
    }
    encoded = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(encoded).hexdigest()


__all__ = [
    "RESTORED_SETTINGS",
    "ROWS_PER_READ",
    "RevertReading",
    "check_revertible",
    "compute_revert",
    "continuation_ref",
    "refuse",
    "restored_value",
    "rule_values",
    "status_word",
]
