"""A split worked out in memory: the continuation's rule, template and row, and its plan.

Nothing here writes. :func:`prepare` validates the split and builds what it would
save; :func:`split_plan` is the plan a person looks at and, under the locks, the
plan a split with a hash checks and then applies: which of the rows that move the
continuation's rule does not hold (drift, with their bookings), judged once by
:func:`~revel_recurring.services.plans.judging.judge_rows`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ... import rules
from ...exceptions import SeriesNotReadyError
from ...holiday_settings import (
    holiday_settings_of,
    normalize_holiday_settings,
    set_holiday_settings,
)
from ...instants import describe_instant
from ...models import EventSeries, RecurrenceRule, get_event_model
from ...validators import validate_dtstart_zone
from ..from_event import template_data_from_event
from ..plans.compute import plan_outcome
from ..plans.judging import judge_rows
from ..plans.result import PlannedOccurrence, RecurrencePlan
from ..plans.state import PlanRow, PlanState
from ..schedule_change import merge_rule_changes
from ..templates import build_template
from ..toolbox.exdates import exdates_from
from .inputs import SplitRequest, refuse_bad_slot, slots_before


@dataclass(frozen=True)
class Prepared:
    """A split validated in memory: nothing written yet."""

    last_before: dt.datetime
    before: int
    new_rule: RecurrenceRule
    changed: set[str]
    original_template: Any
    new_template: Any
    continuation: EventSeries


def prepare(
    locked: EventSeries, rule: RecurrenceRule, request: SplitRequest, *, now: dt.datetime
) -> Prepared:
    """Validate the split and build the continuation's rule, template and row (unsaved)."""
    at = request.at
    before = slots_before(rule, at)
    refuse_bad_slot(
        rule.to_spec(), at, before, zone=rule.timezone, now=now, extra=locked.extra_date_instants
    )
    new_rule, changed, dtstart = _continuation_rule(
        rule, at=at, before=before, rule_changes=request.rule_changes
    )
    original_template, new_template = _templates(
        locked, dtstart=dtstart, template_changes=request.template_changes
    )
    continuation = _continuation_row(locked, at=at, name=request.name)
    if request.holidays:
        # The continuation's own holiday calendar and policy, over the original's.
        settings = normalize_holiday_settings(request.holidays, current=holiday_settings_of(locked))
        set_holiday_settings(continuation, settings)
    return Prepared(
        last_before=before[-1],
        before=len(before),
        new_rule=new_rule,
        changed=changed,
        original_template=original_template,
        new_template=new_template,
        continuation=continuation,
    )


def _continuation_rule(
    rule: RecurrenceRule,
    *,
    at: dt.datetime,
    before: list[dt.datetime],
    rule_changes: Mapping[str, Any],
) -> tuple[RecurrenceRule, set[str], dt.datetime]:
    """The original's rule from ``at`` on plus the changes (unsaved), the fields changed,
    and its start as given (before the rule stores it as UTC in whole seconds)."""
    base = rule.field_values()
    base["dtstart"] = at
    if rule.count is not None:
        base["count"] = rule.count - len(before)
    elif rule.until is not None and rules.to_utc(rule.until) == at:
        # Split at the rule's last date (one slot before a continuation split off
        # earlier, say): the continuation holds that one date. "until = dtstart"
        # is refused by the validators, so it says COUNT=1, as the original half
        # does when one date is left to it.
        base["until"], base["count"] = None, 1
    merged, changed = merge_rule_changes(RecurrenceRule(**base), rule_changes)
    if "dtstart" in rule_changes:
        validate_dtstart_zone(merged["dtstart"], merged["timezone"])
        if rules.to_utc(merged["dtstart"]) < at:
            raise ValidationError(
                {
                    "dtstart": [
                        gettext("The continuation cannot start before the split date %(date)s.")
                        % {"date": describe_instant(at, rule.timezone)}
                    ]
                }
            )
    new_rule = RecurrenceRule(**merged)
    new_rule.normalize()
    return new_rule, changed, merged["dtstart"]


def _templates(
    locked: EventSeries, *, dtstart: dt.datetime, template_changes: Mapping[str, Any]
) -> tuple[Any, Any]:
    """The original's template, and the continuation's built from it with the changes."""
    model = get_event_model()
    original_template = model._default_manager.filter(series=locked, is_template=True).first()
    if original_template is None:
        raise SeriesNotReadyError(
            gettext("%(series)s has no template event, so it cannot be split.")
            % {"series": locked.name}
        )
    data = template_data_from_event(original_template, start=dtstart)
    data.update(_as_attnames(model, template_changes))
    return original_template, build_template(data, dtstart=dtstart)


def _as_attnames(model: Any, changes: Mapping[str, Any]) -> dict[str, Any]:
    """Template changes keyed as the copied data is (a foreign key by its column).

    A change given by field name (``hall``: an instance) replaces the copied
    column (``hall_id``), so the template never gets both.
    """
    keyed: dict[str, Any] = {}
    for key, value in changes.items():
        field = model._meta.get_field(key)
        if key == field.name and field.attname != field.name:
            keyed[field.attname] = getattr(value, "pk", value)
        else:
            keyed[key] = value
    return keyed


def _continuation_row(locked: EventSeries, *, at: dt.datetime, name: str | None) -> EventSeries:
    """The continuation's series row (unsaved, validated): the original's settings, and
    its exdates, extra dates and kept holidays from ``at`` on."""
    continuation = EventSeries(
        name=name if name is not None else locked.name,
        description=locked.description,
        is_active=locked.is_active,
        auto_publish=locked.auto_publish,
        generation_window_weeks=locked.generation_window_weeks,
        last_occurrence_index=locked.last_occurrence_index,
        exdates=exdates_from(locked, at),
        extra_dates=rules.split_stored(locked.extra_dates, at)[1],
        # The holiday calendar and policy go on; so do the holiday dates kept on
        # purpose from ``at`` on (they are slots of the rows that move).
        holiday_country=locked.holiday_country,
        holiday_subdivision=locked.holiday_subdivision,
        holiday_categories=list(locked.holiday_categories or []),
        holiday_policy=locked.holiday_policy,
        holidays_kept=rules.split_stored(locked.holidays_kept or [], at)[1],
        holidays_version=locked.holidays_version,
    )
    continuation.full_clean(exclude=["recurrence_rule", "slug", "split_from", "exdates"])
    return continuation


def moving_rows(state: PlanState, at: dt.datetime) -> list[PlanRow]:
    """The rows a split at ``at`` moves to the continuation: those whose slot is from ``at`` on."""
    return [row for row in state.rows if row.slot is not None and row.slot >= at]


def moving_drift(
    prepared: Prepared, state: PlanState, *, at: dt.datetime
) -> tuple[PlannedOccurrence, ...]:
    """The rows that move and that the continuation's rule does not hold, with bookings:
    a split's drift as :func:`split_plan` lists it, without planning the rest."""
    return judge_rows(prepared.continuation, prepared.new_rule, state, moving_rows(state, at))[1]


def split_plan(
    locked: EventSeries,
    rule: RecurrenceRule,
    state: PlanState,
    prepared: Prepared,
    request: SplitRequest,
    *,
    now: dt.datetime,
) -> RecurrencePlan:
    """The split's plan: the rows that would move, judged by the continuation's rule."""
    at = request.at
    return plan_outcome(
        locked,
        rule,
        prepared.new_rule,
        prepared.continuation,
        state,
        judged=moving_rows(state, at),
        changed=prepared.changed,
        cursor_reset=False,
        now=now,
        until=horizon(locked, now),
        extra={
            "split_at": at.isoformat(),
            "template": {
                key: str(value) for key, value in sorted(request.template_changes.items())
            },
            "name": request.name,
            "holidays": request.holidays,
        },
    )


def horizon(original: EventSeries, now: dt.datetime) -> dt.datetime:
    """How far the continuation is generated: its window, or as far as the original was.

    Dates the original had materialized (bookable) beyond the window stay
    bookable on the continuation's rule too.
    """
    window_end = now + dt.timedelta(weeks=original.generation_window_weeks)
    cursor = original.last_generated_until
    return cursor if cursor is not None and cursor > window_end else window_end


__all__ = [
    "Prepared",
    "horizon",
    "moving_drift",
    "moving_rows",
    "prepare",
    "split_plan",
]
