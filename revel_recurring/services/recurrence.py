"""Changing a series' cadence: its rule, its window and its auto-publish flag.

Re-exported from :mod:`revel_recurring.services.lifecycle`, where it was first
imported from; both paths stay valid.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from .. import rules
from ..exceptions import SeriesNotReadyError
from ..models import EventSeries, RecurrenceRule
from ..signals import series_recurrence_changed
from ..validators import (
    validate_dtstart_zone,
    validate_rule,
    validate_rule_keys,
    validate_series_options,
)
from .exdates import absorb_pending_exdates
from .generation import check_next_run_size
from .locking import lock_series
from .plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from .scheduling import refresh_next_due_at


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


def update_series_recurrence(
    series: EventSeries,
    *,
    rule_changes: Mapping[str, Any] | None = None,
    auto_publish: bool | None = None,
    generation_window_weeks: int | None = None,
    now: dt.datetime | None = None,
) -> EventSeries:
    """Apply a partial change to a series' rule, window and auto-publish flag.

    ``rule_changes`` maps rule field names to new values; ``None`` options are left
    as they are. Changing ``frequency`` clears the optional fields the new
    frequency does not read (unless ``rule_changes`` sets them, which then fails
    validation). The merged rule is validated with the shared validators;
    ``ValidationError`` is keyed by field and nothing is written.

    The cursor ``last_generated_until`` is reset exactly when a value that shifts
    the schedule really changes (compared as UTC instants and sorted weekdays):
    the window size or any rule field. Then the next generation run walks the new
    rule from its start (never materializing the past). Occurrences already
    materialized are not moved; :func:`~revel_recurring.services.drift.detect_cadence_drift`
    finds those that no longer fit. Returns the series' fresh state; the passed
    instance is updated as well. Sends ``series_recurrence_changed`` after commit
    when anything changed. A change whose next generation run would exceed
    ``REVEL_RECURRING_MAX_GENERATION_BYTES`` raises ``GenerationTooLargeError``
    and changes nothing.
    """
    moment = now_utc(now)
    changes = dict(rule_changes or {})
    validate_rule_keys(changes)
    if auto_publish is not None and not isinstance(auto_publish, bool):
        raise ValidationError({"auto_publish": f"Give True or False, got {auto_publish!r}."})
    validate_series_options(generation_window_weeks=generation_window_weeks)
    with transaction.atomic():
        locked = lock_series(series.pk)
        changed: set[str] = set()
        rule: RecurrenceRule | None = None
        if changes:
            if locked.recurrence_rule_id is None:
                raise SeriesNotReadyError(
                    f"Series {locked.pk} has no recurrence rule to change; create one first."
                )
            rule = load_rule(locked)
            assert rule is not None
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
            if changed:
                for name in changed:
                    setattr(rule, name, merged[name])
                rule.save()
            locked.recurrence_rule = rule
        update_fields: set[str] = set()
        if auto_publish is not None and auto_publish != locked.auto_publish:
            locked.auto_publish = auto_publish
            changed.add("auto_publish")
            update_fields.add("auto_publish")
        if (
            generation_window_weeks is not None
            and generation_window_weeks != locked.generation_window_weeks
        ):
            locked.generation_window_weeks = generation_window_weeks
            changed.add("generation_window_weeks")
            update_fields.add("generation_window_weeks")
        cursor_reset = bool(changed - {"auto_publish"}) and locked.last_generated_until is not None
        if changed - {"auto_publish"}:
            locked.last_generated_until = None
            absorb_pending_exdates(locked)
            # Refused here (a 400 for the organiser) rather than parked by the pass.
            check_next_run_size(locked, now=moment)
            refresh_next_due_at(locked, now=moment)
            update_fields |= {"last_generated_until", "next_due_at"}
        if update_fields:
            locked.save(update_fields=[*update_fields, "updated_at"])
        if changed:
            send_after_commit(
                series_recurrence_changed,
                series=locked,
                changed_fields=frozenset(changed),
                cursor_reset=cursor_reset,
            )
    mirror_columns(
        series,
        locked,
        "auto_publish",
        "generation_window_weeks",
        "last_generated_until",
        "next_due_at",
        "updated_at",
    )
    if rule is not None:
        series.recurrence_rule = rule
    return locked


__all__ = ["update_series_recurrence"]
