"""A series' rule and settings as JSON: what an operation keeps ``before`` and ``after``.

The shape is stable (a revert restores a series from it): plain JSON values,
instants as UTC ISO-8601 text, lists sorted as stored. Add keys, never rename
one; ``SNAPSHOT_VERSION`` goes up when a key's meaning changes.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..models import EventSeries, RecurrenceRule
from ..rules import RULE_FIELDS

#: Written into every snapshot as ``"version"``; bumped when a key changes meaning.
SNAPSHOT_VERSION = 1

#: The series' own columns a snapshot holds, as stored.
SERIES_FIELDS = (
    "name",
    "slug",
    "description",
    "is_active",
    "auto_publish",
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
    "next_due_at",
    "parked_at",
    "parked_reason",
)


def _json(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            return value.isoformat()
        return value.astimezone(dt.UTC).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_json(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json(item) for key, item in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def rule_snapshot(rule: RecurrenceRule | None) -> dict[str, Any] | None:
    """The rule's fields (:data:`~revel_recurring.rules.RULE_FIELDS`) as JSON; None without one."""
    if rule is None:
        return None
    return {name: _json(getattr(rule, name)) for name in RULE_FIELDS}


def settings_snapshot(series: EventSeries) -> dict[str, Any]:
    """``series``' rule and settings as JSON, read from the instance given (no query
    but its rule's, when not loaded yet).

    Keys: ``version``, ``id``, ``rule`` (None for a series without one), every
    column of :data:`SERIES_FIELDS`, ``split_from`` (the series this one
    continues, by primary key) and ``timezone`` (the rule's, for a reader).
    """
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    snapshot: dict[str, Any] = {"version": SNAPSHOT_VERSION, "id": series.pk}
    snapshot["rule"] = rule_snapshot(rule)
    snapshot["timezone"] = None if rule is None else str(rule.timezone)
    for name in SERIES_FIELDS:
        snapshot[name] = _json(getattr(series, name))
    snapshot["split_from"] = series.split_from_id
    return snapshot


__all__ = ["SERIES_FIELDS", "SNAPSHOT_VERSION", "rule_snapshot", "settings_snapshot"]
