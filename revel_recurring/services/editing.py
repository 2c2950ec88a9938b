"""Editing a series in one step: its plain columns, its flags, its window and its rule.

:func:`update_series` is what an edit form or a ``PATCH`` calls: everything it is
given is validated, then written under one series lock in one transaction, so a
rule the validators refuse leaves the new name unwritten as well, and a beat run
never sees half an edit. :func:`~revel_recurring.services.recurrence.update_series_recurrence`,
:func:`~revel_recurring.services.lifecycle.pause_series` and
:func:`~revel_recurring.services.lifecycle.resume_series` are this function with
fewer arguments.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from .. import rules
from ..exceptions import SeriesNotReadyError
from ..holiday_settings import (
    HOLIDAY_FIELDS,
    holiday_settings_of,
    normalize_holiday_settings,
    set_holiday_settings,
)
from ..host_model import single_line_fields
from ..models import EventSeries, RecurrenceRule
from ..signals import series_paused, series_recurrence_changed, series_resumed
from ..validators import (
    validate_dtstart_zone,
    validate_no_nul_characters,
    validate_rule,
    validate_rule_keys,
    validate_series_options,
    validate_single_line_values,
)
from .extra_dates import EXTRA_DATES_KEY, ExtraDatesChange, write_extra_dates
from .generation import check_next_run_size
from .toolbox.exdates import absorb_pending_exdates
from .toolbox.locking import lock_series, retry_on_lock_conflict
from .toolbox.parking import PARKING_COLUMNS, clear_parking
from .toolbox.plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from .toolbox.scheduling import refresh_next_due_at

#: The series' own text columns: no other row depends on them.
PLAIN_COLUMNS = ("name", "slug", "description")

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
    walks the new rule from its start.
    """

    series: EventSeries
    changed: frozenset[str]
    cursor_reset: bool


@dataclass(frozen=True)
class ScheduleChange:
    """What :func:`change_schedule` did: the fields changed, the columns to save, the reset."""

    changed: frozenset[str]
    columns: frozenset[str]
    cursor_reset: bool


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
    now: dt.datetime | None = None,
) -> SeriesUpdate:
    """Change any of a series' editable values at once; ``None`` leaves a value as it is.

    - ``name``, ``slug``, ``description``: plain columns, checked with the model's
      own field validation (length, blank name, a slug another series holds). An
      empty ``slug`` is filled from the name, as on create.
    - ``is_active``: ``False`` pauses, ``True`` resumes, exactly as
      :func:`~revel_recurring.services.lifecycle.pause_series` and
      :func:`~revel_recurring.services.lifecycle.resume_series`: resuming also
      unparks a parked series, even one that is active. A form that always posts
      the flag passes it only when the person changed it, so saving an unrelated
      field never unparks.
    - ``auto_publish``, ``generation_window_weeks`` and ``rule_changes`` (a
      partial mapping of rule field names to values): as
      :func:`~revel_recurring.services.recurrence.update_series_recurrence`
      describes. Changing ``frequency`` clears the optional fields the new one
      does not read; the cursor is reset exactly when the window or a rule field
      really changes; a change whose next run would exceed
      ``REVEL_RECURRING_MAX_GENERATION_BYTES`` raises ``GenerationTooLargeError``.
      The size is checked for the series as it will be (a series resumed in the
      same call is checked, a paused one is not).
    - ``holidays``: holiday settings to change (any of ``country``,
      ``subdivision``, ``categories``, ``policy``; see
      :mod:`revel_recurring.holiday_settings`), a schedule change like a rule
      change: errors keyed ``holiday_country`` ... by the model field.

    Everything is validated before anything is kept: a ``ValidationError`` keyed
    by field (rule fields under their own names) or a ``RecurrenceError`` leaves
    the series, its rule and its flags exactly as they were. One transaction, one
    series lock (retried like the other services on a lock conflict). Sends after
    commit ``series_recurrence_changed`` when the rule, the window or
    ``auto_publish`` changed, then ``series_paused`` / ``series_resumed`` when
    ``is_active`` changed (or a resume unparked); a change of the plain columns
    sends nothing.
    """
    moment = now_utc(now)
    plain = {
        key: value
        for key, value in zip(PLAIN_COLUMNS, (name, slug, description), strict=True)
        if value is not None
    }
    changes = dict(rule_changes or {})
    _validate_input(plain, changes, is_active=is_active, auto_publish=auto_publish)
    validate_series_options(generation_window_weeks=generation_window_weeks)

    def attempt() -> tuple[EventSeries, SeriesUpdate, RecurrenceRule | None]:
        with transaction.atomic():
            locked = lock_series(series.pk)
            changed = _write_plain(locked, plain)
            columns = set(changed)
            if is_active is not None:
                flipped, written = _switch_active(locked, active=is_active, now=moment)
                changed |= flipped
                columns |= written
            schedule = change_schedule(
                locked,
                rule_changes=changes,
                auto_publish=auto_publish,
                generation_window_weeks=generation_window_weeks,
                holidays=holidays,
                now=moment,
            )
            columns |= schedule.columns
            if columns:
                locked.save(update_fields=[*sorted(columns), "updated_at"])
            if schedule.changed:
                send_after_commit(
                    series_recurrence_changed,
                    series=locked,
                    changed_fields=schedule.changed,
                    cursor_reset=schedule.cursor_reset,
                )
            if is_active is not None and changed & {"is_active", *PARKING_COLUMNS}:
                send_after_commit(series_resumed if is_active else series_paused, series=locked)
        result = SeriesUpdate(
            series=locked,
            changed=frozenset(changed | schedule.changed),
            cursor_reset=schedule.cursor_reset,
        )
        # The rule is attached by change_schedule only when rule_changes were given.
        return locked, result, locked.recurrence_rule if changes else None

    locked, result, rule = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    # Only what the caller asked about is copied back: a caller holding a form's
    # unsaved values on its instance keeps them for the columns it did not pass.
    mirrored = [*plain, *_SCHEDULE_COLUMNS]
    if is_active is not None:
        mirrored += ["is_active", *PARKING_COLUMNS]
    if holidays:
        mirrored += HOLIDAY_FIELDS.values()
    mirror_columns(series, locked, *mirrored)
    if rule is not None:
        series.recurrence_rule = rule
    return result


def _validate_input(
    plain: Mapping[str, Any],
    rule_changes: Mapping[str, Any],
    *,
    is_active: object,
    auto_publish: object,
) -> None:
    validate_rule_keys(rule_changes)
    errors: dict[str, list[str]] = {}
    for key, value in plain.items():
        if not isinstance(value, str):
            errors[key] = [gettext("Give a text, got %(value)s.") % {"value": repr(value)}]
    for key, flag in (("is_active", is_active), ("auto_publish", auto_publish)):
        if flag is not None and not isinstance(flag, bool):
            errors[key] = [gettext("Give True or False, got %(flag)s.") % {"flag": repr(flag)}]
    if errors:
        raise ValidationError(errors)
    validate_single_line_values(plain, single_line_fields(EventSeries))
    validate_no_nul_characters(plain)


def _write_plain(locked: EventSeries, plain: Mapping[str, str]) -> set[str]:
    """Set the plain columns that differ and validate them on the locked row."""
    changed = {key for key, value in plain.items() if getattr(locked, key) != value}
    for key in changed:
        setattr(locked, key, plain[key])
    if changed:
        others = [f.name for f in EventSeries._meta.concrete_fields if f.name not in changed]
        # Only the written columns: a slug another series holds is refused here
        # (keyed "slug") rather than by the database after the rule was written.
        locked.full_clean(exclude=others)
    return changed


def _switch_active(
    locked: EventSeries, *, active: bool, now: dt.datetime
) -> tuple[set[str], set[str]]:
    """Pause or resume the locked series in memory: what changed, and the columns to save."""
    unparked = active and clear_parking(locked)
    changed = {"is_active"} if locked.is_active != active else set()
    if unparked:
        changed |= set(PARKING_COLUMNS)
    if not changed:
        return changed, set()
    locked.is_active = active
    written = {"is_active"}
    if active:
        # The next due moment skips excluded slots: fold the pending ones first.
        absorb_pending_exdates(locked)
        refresh_next_due_at(locked, now=now)
        written |= {"next_due_at", *PARKING_COLUMNS}
    return changed, written


def _normalized(name: str, value: Any) -> Any:
    """A comparable form: datetimes as UTC instants, weekdays as a sorted list."""
    if isinstance(value, dt.datetime) and value.utcoffset() is not None:
        return rules.to_utc(value)
    if name == "weekdays":
        try:
            return sorted(value or [])
        except TypeError:
            return value
    if name == "monthly_type":
        return value or ""
    return value


def merge_rule_changes(
    rule: RecurrenceRule, changes: Mapping[str, Any]
) -> tuple[dict[str, Any], set[str]]:
    """The rule's values with ``changes`` applied and validated, and the fields that differ.

    Changing ``frequency`` clears the optional fields the new one does not read
    (unless ``changes`` sets them). ``ValidationError`` keyed by field.
    """
    old = rule.field_values()
    merged = {**old, **changes}
    new_frequency = merged["frequency"]
    known = any(f == new_frequency for f in rules.Frequency)
    if known and new_frequency != old["frequency"]:
        used = rules.FIELDS_USED_BY[rules.Frequency(new_frequency)]
        for name in rules.OPTIONAL_RULE_FIELDS:
            if name not in used and name not in changes:
                merged[name] = rules.UNSET_RULE_VALUES[name]
    validate_rule(merged)
    changed = {
        name
        for name in rules.RULE_FIELDS
        if _normalized(name, merged[name]) != _normalized(name, old[name])
    }
    if "dtstart" in changed:
        validate_dtstart_zone(merged["dtstart"], merged["timezone"])
    return merged, changed


def change_schedule(
    locked: EventSeries,
    *,
    rule_changes: Mapping[str, Any],
    auto_publish: bool | None,
    generation_window_weeks: int | None,
    now: dt.datetime,
    holidays: Mapping[str, Any] | None = None,
    reset_cursor: bool = False,
    extra_dates: ExtraDatesChange | None = None,
) -> ScheduleChange:
    """Apply rule, window, holiday, extra dates and auto-publish changes to the locked series.

    The rule is saved. ``holidays`` holds holiday settings to change
    (:mod:`revel_recurring.holiday_settings`); a change of them moves dates like
    a rule change does. ``extra_dates`` (a change plan's new set, checked against
    the new rule by ``plan_extra_dates``) does too, with ``"extra_dates"`` among
    the changed fields. ``reset_cursor`` resets the generation cursor even when
    nothing else changes (a plan made for newer holiday data). The caller holds
    the series lock and saves ``columns`` of the series. Used by
    :func:`update_series` and by applying a change plan
    (:mod:`revel_recurring.services.plans`).
    """
    changed: set[str] = set()
    if rule_changes:
        if locked.recurrence_rule_id is None:
            raise SeriesNotReadyError(
                gettext("Series %(id)s has no recurrence rule to change; create one first.")
                % {"id": locked.pk}
            )
        rule = load_rule(locked)
        assert rule is not None
        merged, changed = merge_rule_changes(rule, rule_changes)
        if changed:
            for name in changed:
                setattr(rule, name, merged[name])
            rule.save()
        locked.recurrence_rule = rule
    columns: set[str] = set()
    if holidays:
        settings = normalize_holiday_settings(holidays, current=holiday_settings_of(locked))
        moved = set_holiday_settings(locked, settings)
        changed |= moved
        columns |= moved
    if auto_publish is not None and auto_publish != locked.auto_publish:
        locked.auto_publish = auto_publish
        changed.add("auto_publish")
        columns.add("auto_publish")
    if (
        generation_window_weeks is not None
        and generation_window_weeks != locked.generation_window_weeks
    ):
        locked.generation_window_weeks = generation_window_weeks
        changed.add("generation_window_weeks")
        columns.add("generation_window_weeks")
    if extra_dates is not None and write_extra_dates(locked, extra_dates):
        changed.add(EXTRA_DATES_KEY)
        columns |= {"extra_dates", "exdates"}
    shifts = bool(changed - {"auto_publish"}) or reset_cursor
    cursor_reset = shifts and locked.last_generated_until is not None
    if shifts:
        locked.last_generated_until = None
        absorb_pending_exdates(locked)
        # Refused here (a 400 for the organiser) rather than parked by the pass.
        check_next_run_size(locked, now=now)
        refresh_next_due_at(locked, now=now)
        columns |= {"last_generated_until", "next_due_at"}
    return ScheduleChange(
        changed=frozenset(changed), columns=frozenset(columns), cursor_reset=cursor_reset
    )


__all__ = [
    "PLAIN_COLUMNS",
    "ScheduleChange",
    "SeriesUpdate",
    "change_schedule",
    "merge_rule_changes",
    "update_series",
]
