"""Changing a locked series' schedule: its rule, window, holidays, extra dates, auto-publish.

The step every schedule writer shares: :func:`~revel_recurring.services.editing.update_series`
(a PATCH, the admin form) and applying a change plan
(:mod:`revel_recurring.services.plans`) call :func:`change_schedule` under the series
lock; planning and splitting merge a rule change with :func:`merge_rule_changes`.
Public through :mod:`revel_recurring.services.editing`, where they were first.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

from .. import rules
from ..exceptions import SeriesNotReadyError
from ..holiday_settings import (
    HOLIDAY_FIELDS,
    holiday_settings_of,
    normalize_holiday_settings,
    set_holiday_settings,
)
from ..models import EventSeries, RecurrenceRule
from ..signals import series_recurrence_changed
from ..validators import validate_dtstart_zone, validate_rule
from .generation import check_next_run_size
from .toolbox.exdates import absorb_pending_exdates
from .toolbox.extra_dates import EXTRA_DATES_KEY, ExtraDatesChange, write_extra_dates
from .toolbox.plumbing import load_rule, send_after_commit
from .toolbox.scheduling import refresh_next_due_at

#: The fields whose change moves the series' dates: the rule's, the window, the holidays.
SCHEDULE_FIELDS = frozenset(
    {*rules.RULE_FIELDS, "generation_window_weeks", *HOLIDAY_FIELDS.values()}
)


@dataclass(frozen=True)
class ScheduleChange:
    """What :func:`change_schedule` did: the fields changed, the columns to save, the reset."""

    changed: frozenset[str]
    columns: frozenset[str]
    cursor_reset: bool


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


def announce_schedule_change(locked: EventSeries, schedule: ScheduleChange) -> None:
    """Send ``series_recurrence_changed`` after commit when ``schedule`` changed anything."""
    if schedule.changed:
        send_after_commit(
            series_recurrence_changed,
            series=locked,
            changed_fields=schedule.changed,
            cursor_reset=schedule.cursor_reset,
        )


__all__ = [
    "SCHEDULE_FIELDS",
    "ScheduleChange",
    "announce_schedule_change",
    "change_schedule",
    "merge_rule_changes",
]
