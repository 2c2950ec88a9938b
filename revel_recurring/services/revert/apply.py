"""Reverting an operation: see its inverse as a plan, then apply exactly that plan.

:func:`plan_revert` reads (no lock, no write); :func:`apply_revert` computes the
same plan again under the series locks and writes it only when its hash is the one
the person saw. The revert is an operation of its own (kind ``"revert"``, its
``reverts`` the original), recorded once, with the people booked on the dates it
changes told once (:func:`~revel_recurring.services.toolbox.operation.dates_operation`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from ...exceptions import PlanOutdatedError, SeriesNotFoundError
from ...models import EventSeries, OperationRow, SeriesOperation, get_event_model
from ..toolbox.exdates import absorb_pending_exdates
from ..toolbox.locking import lock_rows, lock_series, lock_several_series, retry_on_lock_conflict
from ..toolbox.operation import dates_operation, notify_mode
from ..toolbox.plumbing import now_utc
from .reading import (
    RevertReading,
    check_revertible,
    compute_revert,
    continuation_ref,
    refuse,
)
from .result import RevertPlan, RevertResult
from .writing import write_revert


def _fresh(operation: SeriesOperation | Any) -> SeriesOperation:
    pk = operation.pk if isinstance(operation, SeriesOperation) else operation
    try:
        return SeriesOperation.objects.get(pk=pk)
    except (SeriesOperation.DoesNotExist, ValidationError, ValueError) as exc:
        raise refuse(gettext("No such operation.")) from exc


def _continuation_id(operation: SeriesOperation) -> int | None:
    rows = list(
        OperationRow.objects.filter(operation=operation)
        .exclude(series_after=operation.series_ref)
        .exclude(series_after__isnull=True)
        .order_by("position")[:1]
    )
    return continuation_ref(operation, rows)


def _series(pk: int | None, *, lock: bool) -> EventSeries:
    if pk is None:
        raise refuse(gettext("The series of this operation was deleted."))
    try:
        if lock:
            return lock_series(pk, with_rule=True)
        return EventSeries.objects.select_related("recurrence_rule").get(pk=pk)
    except (EventSeries.DoesNotExist, SeriesNotFoundError) as exc:
        raise refuse(gettext("A series this operation changed was deleted since.")) from exc


def plan_revert(operation: SeriesOperation | Any, *, now: dt.datetime | None = None) -> RevertPlan:
    """What reverting ``operation`` (a record, or its id) would do, written nowhere.

    The rows it puts back (same ids, starts, slots, statuses) and those the operation
    created, which it removes, each with its bookings now; the rule fields and
    series settings it restores from the operation's ``before``; the continuation a
    reverted split deletes; a ``hash`` for :func:`apply_revert`. Refused with
    :class:`~revel_recurring.exceptions.RevertRefusedError` (keyed ``operation``,
    naming why) as :func:`~.reading.compute_revert` says. A bounded number of
    queries: the record, its rows, the series, one read and one bookings call per
    page of rows, the later operations.
    """
    moment = now_utc(now)
    record = _fresh(operation)
    check_revertible(record)
    series = _series(record.series_ref, lock=False)
    follower = _continuation_id(record)
    continuation = None if follower is None else _series(follower, lock=False)
    return compute_revert(record, series, continuation, now=moment).plan


def apply_revert(
    operation: SeriesOperation | Any,
    *,
    plan_hash: str,
    notify: object = None,
    now: dt.datetime | None = None,
) -> RevertResult:
    """Apply the revert of ``operation`` if everything is as its plan (``plan_hash``) saw.

    In one transaction, under the lock of the series (and of a split's continuation,
    in ascending id order) and of the rows, the plan is computed again: a refusal
    writes nothing; a different hash raises
    :class:`~revel_recurring.exceptions.PlanOutdatedError` with the fresh plan.
    Otherwise the rows go back (ids kept: start, end and shifted fields, slot,
    series, status), the rows the operation created are deleted (their slots are not
    excluded: the restored cursor lets generation create them again where the
    restored rule holds them), the rule and the schedule settings come back from
    the record's ``before`` (window, holidays, exdates, extra dates, cursor), and a
    reverted split's continuation is deleted as ``delete_series`` deletes a series
    (its feed then answers as a deleted series' does). Each change goes to the
    occurrence change log; the people booked on the changed dates are told once
    unless ``notify`` is "none".
    """
    moment = now_utc(now)
    mode = notify_mode(notify)
    if not isinstance(plan_hash, str) or not plan_hash.strip():
        raise ValidationError({"plan_hash": [gettext("Give the hash of the plan you looked at.")]})
    record = _fresh(operation)
    check_revertible(record)
    if record.series_ref is None:
        raise refuse(gettext("The series of this operation was deleted."))
    follower = _continuation_id(record)

    def attempt() -> RevertResult:
        with transaction.atomic():
            locked = _series(record.series_ref, lock=True)
            continuation = None
            if follower is not None:
                held = lock_several_series([follower])
                if not held:
                    raise refuse(gettext("A series this operation changed was deleted since."))
                continuation = EventSeries.objects.select_related("recurrence_rule").get(
                    pk=follower
                )
            watched = [locked] if continuation is None else [locked, continuation]
            for one in watched:
                absorb_pending_exdates(one)
            _lock_record_rows(record)
            reading = compute_revert(record, locked, continuation, now=moment)
            if reading.plan.hash != plan_hash.strip():
                raise PlanOutdatedError(
                    gettext(
                        "%(series)s changed since this plan was made; review the fresh "
                        "plan and apply that one."
                    )
                    % {"series": locked.name},
                    plan=reading.plan,
                )
            with dates_operation(
                "revert", watched, notify=mode, plan_hash=reading.plan.hash, now=moment
            ) as written:
                result = write_revert(reading, now=moment)
            own = _own_record(written)
            if own is not None:
                SeriesOperation.objects.filter(pk=own).update(reverts=record)
            return RevertResult(
                plan=reading.plan,
                operation_id=own,
                restored=result.restored,
                removed=result.removed,
                removed_series=result.removed_series,
            )

    ids = [record.series_ref] + ([follower] if follower is not None else [])
    return retry_on_lock_conflict(attempt, series_ids=ids)


def _lock_record_rows(record: SeriesOperation) -> None:
    """Lock the host rows the record names, in ascending key order, without waiting."""
    model = get_event_model()
    to_python = model._meta.pk.to_python
    pks: Sequence[Any] = [
        to_python(pk)
        for pk in OperationRow.objects.filter(operation=record).values_list(
            "occurrence_pk", flat=True
        )
    ]
    for start in range(0, len(pks), 500):
        list(lock_rows(model._base_manager.filter(pk__in=pks[start : start + 500]).order_by("pk")))


def _own_record(written: Any) -> Any:
    """The revert's own record (the operation's history record, or its notices' record)."""
    for name in ("history", "record"):
        found = getattr(written, name, None)
        if isinstance(found, SeriesOperation):
            return found.pk
    return None


__all__ = ["RevertReading", "apply_revert", "plan_revert"]
