"""Editing a series in one step: its plain columns, its flags, its window, its rule,
its holidays and its extra dates, directly or through a confirmed change plan.

:func:`update_series` is what an edit form or a ``PATCH`` calls with the whole
request: everything it is given is validated, then written under one series lock
in one transaction, so a rule the validators refuse leaves the new name unwritten
as well, and a beat run never sees half an edit. With a plan hash the schedule
changes through :func:`~revel_recurring.services.plans.apply_recurrence_plan`
(what ``recurrence-apply/`` and the admin's confirmation page do), the other
values in the same transaction.
:func:`~revel_recurring.services.recurrence.update_series_recurrence`,
:func:`~revel_recurring.services.lifecycle.pause_series` and
:func:`~revel_recurring.services.lifecycle.resume_series` are this function with
fewer arguments. The schedule step itself is :mod:`.schedule_change`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from .. import rules
from ..exceptions import RecurrenceError
from ..holiday_settings import HOLIDAY_FIELDS
from ..models import EventSeries
from ..signals import series_paused, series_resumed
from ..validators import (
    validate_rule_keys,
    validate_series_options,
)
from .extra_dates import EXTRA_DATES_KEY, replace_extra_dates
from .generation import generate_series_events, generation_readiness
from .plans import (
    HOLIDAYS_KEY,
    WINDOW_KEY,
    AppliedPlan,
    PlannedOccurrence,
    apply_recurrence_plan,
    current_drift,
)
from .plans.apply import CancelDriftMode, move_to_partners
from .schedule_change import (
    SCHEDULE_FIELDS,
    ScheduleChange,
    announce_schedule_change,
    change_schedule,
    merge_rule_changes,
)
from .series_columns import (
    PLAIN_COLUMNS,
    plain_values,
    switch_active,
    validate_series_values,
    write_plain_columns,
)
from .toolbox.bookings import BookedDate
from .toolbox.locking import lock_series, retry_on_lock_conflict
from .toolbox.operation import dates_operation, notify_mode, series_operation
from .toolbox.parking import PARKING_COLUMNS
from .toolbox.plumbing import mirror_columns, now_utc, send_after_commit

logger = logging.getLogger(__name__)

#: The columns a schedule change writes; copied onto the caller's instance after every call.
_SCHEDULE_COLUMNS = (
    "auto_publish",
    "generation_window_weeks",
    "last_generated_until",
    "next_due_at",
    "updated_at",
)


@dataclass(frozen=True)
class SeriesUpdate:
    """What :func:`update_series` did.

    ``series`` is the fresh state read under the lock (the instance passed in is
    updated as well). ``changed`` names what really changed: series columns
    (``name``, ``is_active``, ``parked_at``, ...) and rule fields (``frequency``,
    ``dtstart``, ...); empty when every value was the current one.
    ``cursor_reset`` is true when a generated cursor was reset, so the next run
    walks the new rule from its start. ``created``: the occurrences created at
    once besides a plan's (the extra dates added, the dates ``generate`` made, those
    of a series resumed with a plan), in that order. ``drift`` and
    ``generation_error``: with ``generate``, the series' drift with bookings and why
    the generation after the change failed (None when it did not). ``applied``: the
    plan applied, with a plan hash.
    """

    series: EventSeries
    changed: frozenset[str]
    cursor_reset: bool
    created: tuple[Any, ...] = ()
    drift: tuple[PlannedOccurrence, ...] = ()
    generation_error: str | None = None
    applied: AppliedPlan | None = None
    #: Ids of the dates moved to the new schedule's dates (same rows), in new start order.
    moved: tuple[Any, ...] = ()
    #: Dates the new schedule would move that hold bookings: left where they are.
    kept_booked: tuple[BookedDate, ...] = ()


#: The fields whose change can leave dates off the schedule: all of it but the window.
_MOVING_FIELDS = frozenset({*rules.RULE_FIELDS, *HOLIDAY_FIELDS.values()})


@dataclass(frozen=True)
class _Edit:
    """The values :func:`update_series` writes without a plan; None leaves one as it is."""

    plain: Mapping[str, str]
    is_active: bool | None
    auto_publish: bool | None
    window: int | None
    rule_changes: Mapping[str, Any]
    holidays: Mapping[str, Any] | None


def update_series(
    series: EventSeries,
    *,
    name: str | None = None,
    slug: str | None = None,
    description: str | None = None,
    is_active: bool | None = None,
    auto_publish: bool | None = None,
    generation_window_weeks: int | None = None,
    rule_changes: Mapping[str, Any] | None = None,
    holidays: Mapping[str, Any] | None = None,
    extra_dates: Iterable[dt.datetime] | None = None,
    plan_hash: str | None = None,
    cancel_drift: CancelDriftMode | Collection[Any] = "none",
    generate: bool = False,
    notify: object = None,
    now: dt.datetime | None = None,
) -> SeriesUpdate:
    """Change any of a series' editable values at once; ``None`` leaves a value as it is.

    - ``name``, ``slug``, ``description``: checked with the model's own field
      validation (a blank name, a slug another series holds); an empty ``slug`` is
      filled from the name.
    - ``is_active``: ``False`` pauses, ``True`` resumes (and unparks, even an active
      series) as ``pause_series`` / ``resume_series``; a form passes it only when
      the person changed it, so saving an unrelated field never unparks.
    - ``auto_publish``, ``generation_window_weeks``, ``rule_changes`` (rule field
      names to values) and ``holidays`` (:mod:`revel_recurring.holiday_settings`,
      errors keyed by the model field): as ``update_series_recurrence`` describes;
      the cursor resets exactly when the schedule really changes, and a next run
      over ``REVEL_RECURRING_MAX_GENERATION_BYTES`` (for the series as it will be)
      raises ``GenerationTooLargeError``.
    - ``extra_dates``: the whole new set, made so after the other changes by
      ``replace_extra_dates`` (errors keyed ``extra_dates``; a booked date left out
      is an ``OccurrenceHasBookingsError``).
    - ``plan_hash``: the schedule changes apply as that confirmed plan
      (``apply_recurrence_plan`` with ``cancel_drift``; ``PlanOutdatedError`` when
      the series changed since), then the other values; a series resumed by the
      same call generates its window at once.
    - Without ``plan_hash``, a change of the rule or holidays moves each future date
      the new schedule no longer holds to its partner (the new schedule's date in
      the same period, :mod:`~revel_recurring.services.plans.partners`): same row,
      new date; ``moved`` names them. Nothing is cancelled. Booked dates move too
      when their people are told (``notify``, below, and a host that says who is
      booked); otherwise they stay (``kept_booked``): those, and dates without a
      partner, are drift.
    - ``notify``: "all" (the people booked on a moved or cancelled date get one
      message each), "none", or None for ``REVEL_RECURRING_NOTIFY_PEOPLE``.
    - ``generate``: after commit, a schedule change generates the new dates when
      the series can (a failure is ``generation_error``, the change stays), and the
      answer names the drift.

    Everything is validated before anything is kept: a ``ValidationError`` keyed by
    field or a ``RecurrenceError`` leaves everything as it was. One transaction, one
    series lock (retried on a lock conflict). After commit: ``series_recurrence_changed``
    when the rule, the window or ``auto_publish`` changed, then ``series_paused`` /
    ``series_resumed`` when ``is_active`` changed (or a resume unparked).
    """
    moment = now_utc(now)
    notify = notify_mode(notify)
    edit = _Edit(
        plain=plain_values(name=name, slug=slug, description=description),
        is_active=is_active,
        auto_publish=auto_publish,
        window=generation_window_weeks,
        rule_changes=dict(rule_changes or {}),
        holidays=holidays,
    )
    if plan_hash is not None:
        changes = _plan_changes(edit, extra_dates)
        return _apply_planned(
            series,
            edit,
            changes,
            plan_hash=plan_hash,
            cancel_drift=cancel_drift,
            notify=notify,
            now=moment,
        )
    validate_rule_keys(edit.rule_changes)
    validate_series_values(edit.plain, is_active=is_active, auto_publish=auto_publish)
    validate_series_options(generation_window_weeks=generation_window_weeks)
    kind = _edit_kind(edit, extra_dates)
    with transaction.atomic(), series_operation(kind, series, notify=notify, now=moment):
        update = _write_edit(series, edit, notify=notify, now=moment)
        if extra_dates is not None:
            added = _replace_extra_dates(series, extra_dates, now=moment)
            update = dataclasses.replace(update, created=added)
    return _generate_after(series, update, now=moment) if generate else update


def _edit_kind(edit: _Edit, extra_dates: Iterable[dt.datetime] | None) -> str:
    """The kind of the operation an edit without a plan records (its history's word)."""
    if edit.rule_changes or edit.holidays:
        return "move"
    others = edit.plain or edit.auto_publish is not None or edit.window is not None
    if edit.is_active is not None and not others and extra_dates is None:
        return "resume" if edit.is_active else "pause"
    if extra_dates is not None and not others and edit.is_active is None:
        return "extra_date"
    return "edit"


def _write_edit(series: EventSeries, edit: _Edit, *, notify: str, now: dt.datetime) -> SeriesUpdate:
    """Write ``edit`` under the series lock (retried on a lock conflict) and copy back
    onto ``series`` what the caller asked about."""

    def attempt() -> tuple[EventSeries, SeriesUpdate]:
        with transaction.atomic():
            locked = lock_series(series.pk)
            if not (edit.rule_changes or edit.holidays):
                return locked, _write_locked(locked, edit, now=now)
            with dates_operation("move", locked, notify=notify, now=now):
                return locked, _write_locked(locked, edit, now=now)

    locked, result = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    # Only what the caller asked about is copied back: a caller holding a form's
    # unsaved values on its instance keeps them for the columns it did not pass.
    mirrored = [*edit.plain, *_SCHEDULE_COLUMNS]
    if edit.is_active is not None:
        mirrored += ["is_active", *PARKING_COLUMNS]
    if edit.holidays:
        mirrored += HOLIDAY_FIELDS.values()
    mirror_columns(series, locked, *mirrored)
    if edit.rule_changes:
        # Attached by change_schedule only when rule changes were given.
        series.recurrence_rule = locked.recurrence_rule
    return result


def _write_locked(locked: EventSeries, edit: _Edit, *, now: dt.datetime) -> SeriesUpdate:
    """The columns, the flag and the schedule of the locked series, saved; the signals
    queued for after commit."""
    changed = write_plain_columns(locked, edit.plain)
    columns = set(changed)
    if edit.is_active is not None:
        flipped, written = switch_active(locked, active=edit.is_active, now=now)
        changed |= flipped
        columns |= written
    schedule = change_schedule(
        locked,
        rule_changes=edit.rule_changes,
        auto_publish=edit.auto_publish,
        generation_window_weeks=edit.window,
        holidays=edit.holidays,
        now=now,
    )
    columns |= schedule.columns
    if columns:
        locked.save(update_fields=[*sorted(columns), "updated_at"])
    moved: list[Any] = []
    kept: list[BookedDate] = []
    if schedule.changed & _MOVING_FIELDS:
        # Dates the new schedule no longer holds move to their partners, unless
        # booked: those, and dates without a partner, stay (``drift`` names them).
        moved, kept = move_to_partners(locked, now=now)
    _send_edit_signals(locked, edit, schedule, changed)
    return SeriesUpdate(
        series=locked,
        changed=frozenset(changed | schedule.changed),
        cursor_reset=schedule.cursor_reset,
        moved=tuple(moved),
        kept_booked=tuple(kept),
    )


def _send_edit_signals(
    locked: EventSeries, edit: _Edit, schedule: ScheduleChange, changed: set[str]
) -> None:
    announce_schedule_change(locked, schedule)
    if edit.is_active is not None and changed & {"is_active", *PARKING_COLUMNS}:
        send_after_commit(series_resumed if edit.is_active else series_paused, series=locked)


def _replace_extra_dates(
    series: EventSeries, wanted: Iterable[dt.datetime], *, now: dt.datetime
) -> tuple[Any, ...]:
    """Make ``wanted`` the extra dates; a refusal keyed ``extra_dates``, what the caller sent."""
    try:
        return tuple(replace_extra_dates(series, wanted, now=now))
    except ValidationError as exc:
        raise extra_dates_refusal(exc) from exc


def extra_dates_refusal(exc: ValidationError) -> ValidationError:
    """A refusal of the extra date services (keyed ``instant``, one date) keyed
    ``extra_dates``, the set a create or an edit sends; each message keeps its code."""
    if hasattr(exc, "error_dict"):
        errors = [error for found in exc.error_dict.values() for error in found]
    else:
        errors = list(exc.error_list)
    return ValidationError({EXTRA_DATES_KEY: errors})


def _generate_after(series: EventSeries, update: SeriesUpdate, *, now: dt.datetime) -> SeriesUpdate:
    """After a committed change of the schedule: the new dates at once (when the series
    can generate), and the drift with bookings."""
    created: list[Any] = []
    error = None
    if update.changed & SCHEDULE_FIELDS and generation_readiness(series).ready:
        try:
            created = generate_series_events(series, now=now)
        except RecurrenceError as exc:
            # The change is committed: raising would tell the caller it failed.
            # The daily pass tries again (and parks the series when the cause
            # persists); the answer says why nothing was created.
            logger.warning("Generating series %s after an edit failed: %s", series.pk, exc)
            error = str(exc)
    return dataclasses.replace(
        update,
        created=(*update.created, *created),
        drift=current_drift(series, now=now),
        generation_error=error,
    )


def _plan_changes(edit: _Edit, extra_dates: Iterable[dt.datetime] | None) -> dict[str, Any]:
    """The schedule part of ``edit`` as a change plan's ``changes``."""
    changes: dict[str, Any] = dict(edit.rule_changes)
    if edit.window is not None:
        changes[WINDOW_KEY] = edit.window
    if edit.holidays:
        changes[HOLIDAYS_KEY] = dict(edit.holidays)
    if extra_dates is not None:
        changes[EXTRA_DATES_KEY] = list(extra_dates)
    return changes


def _apply_planned(
    series: EventSeries,
    edit: _Edit,
    changes: Mapping[str, Any],
    *,
    plan_hash: str,
    cancel_drift: CancelDriftMode | Collection[Any],
    notify: str,
    now: dt.datetime,
) -> SeriesUpdate:
    """The plan first (its hash was made from the series as it is now), then the other
    values under the lock the plan took, in one transaction: a refusal undoes both."""
    rest = dataclasses.replace(edit, window=None, rule_changes={}, holidays=None)
    validate_series_values(rest.plain, is_active=rest.is_active, auto_publish=rest.auto_publish)
    kind = "holidays" if edit.holidays and not edit.rule_changes else "plan"
    with (
        transaction.atomic(),
        series_operation(kind, series, notify=notify, plan_hash=plan_hash, now=now),
    ):
        applied = apply_recurrence_plan(
            series, plan_hash, changes, cancel_drift=cancel_drift, notify=notify, now=now
        )
        if rest.plain or rest.is_active is not None or rest.auto_publish is not None:
            update = _write_edit(series, rest, notify=notify, now=now)
        else:
            update = SeriesUpdate(series=series, changed=frozenset(), cursor_reset=False)
        generated: list[Any] = []
        if "is_active" in update.changed and series.is_active:
            # Resumed in the same call: the plan, made for the paused series, had no
            # new dates. They are created now, within the generation budget.
            generated = generate_series_events(series, now=now)
    return dataclasses.replace(
        update,
        changed=update.changed | applied.changed,
        cursor_reset=applied.cursor_reset,
        created=tuple(generated),
        applied=applied,
    )


__all__ = [
    "PLAIN_COLUMNS",
    "ScheduleChange",
    "SeriesUpdate",
    "change_schedule",
    "extra_dates_refusal",
    "merge_rule_changes",
    "update_series",
]
