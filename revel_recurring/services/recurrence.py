"""Changing a series' cadence: its rule, its window and its auto-publish flag.

Re-exported from :mod:`revel_recurring.services.lifecycle`, where it was first
imported from; both paths stay valid. It is
:func:`~revel_recurring.services.editing.update_series` with the cadence
arguments only.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from ..models import EventSeries
from .editing import update_series


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
    rule from its start (never materializing the past). A future occurrence without
    bookings that the new rule no longer holds moves to its partner, the new rule's
    date in the same period (as :func:`~revel_recurring.services.editing.update_series`
    does); booked ones and those without a partner stay, and
    :func:`~revel_recurring.services.drift.detect_cadence_drift` finds them. Nothing
    is cancelled. Returns the series' fresh state; the passed
    instance is updated as well. Sends ``series_recurrence_changed`` after commit
    when anything changed. A change whose next generation run would exceed
    ``REVEL_RECURRING_MAX_GENERATION_BYTES`` raises ``GenerationTooLargeError``
    and changes nothing.
    """
    return update_series(
        series,
        rule_changes=rule_changes,
        auto_publish=auto_publish,
        generation_window_weeks=generation_window_weeks,
        now=now,
    ).series


__all__ = ["update_series_recurrence"]
