"""What the revert tests of every host compare: the rows, the rule, the schedule, everything.

Host-neutral: the rows are read through the host's own model
(``get_event_model()``) and its start and status fields.
"""

from __future__ import annotations

from typing import Any

from revel_recurring.models import (
    EventSeries,
    OccurrenceChange,
    OperationSeries,
    RecurrenceRule,
    SeriesOperation,
    get_event_model,
)


def rows_of(*series: EventSeries) -> list[tuple[Any, ...]]:
    """Every non-template row of ``series``: id, series, slot, start, status, in id order."""
    model: Any = get_event_model()
    return list(
        model._base_manager.filter(series__in=series, is_template=False)
        .order_by("pk")
        .values_list(
            "pk",
            "series_id",
            "recurrence_id",
            model.RECURRING_START_FIELD,
            model.RECURRING_STATUS_FIELD,
        )
    )


def rule_of(series: EventSeries) -> dict[str, Any]:
    return EventSeries.objects.get(pk=series.pk).recurrence_rule.field_values()


def schedule_of(series: EventSeries) -> tuple[Any, ...]:
    """The settings a revert puts back: exdates, extra dates, window, holidays, cursor."""
    stored = EventSeries.objects.get(pk=series.pk)
    return (
        sorted(stored.exdates or ()),
        sorted(stored.extra_dates or ()),
        stored.generation_window_weeks,
        stored.holiday_policy,
        stored.last_generated_until,
        stored.last_occurrence_index,
    )


def last_operation(series: EventSeries, kind: str) -> SeriesOperation:
    """The latest record of ``kind`` on ``series``, in the order the records were written
    (their links' ids: tests pass one ``now`` to several operations)."""
    ids = SeriesOperation.objects.filter(series_ref=series.pk, kind=kind).values_list("pk")
    written = (
        OperationSeries.objects.filter(operation_id__in=list(ids))
        .order_by("-pk")
        .values_list("operation_id", flat=True)
    )
    latest = list(written[:1])
    assert latest, f"no {kind} of {series}"
    return SeriesOperation.objects.get(pk=latest[0])


def everything() -> tuple[Any, ...]:
    """What a refused revert must leave alone: rows, series, rules, records, change log."""
    model: Any = get_event_model()
    return (
        list(model._base_manager.order_by("pk").values()),
        list(EventSeries.objects.order_by("pk").values()),
        list(RecurrenceRule.objects.order_by("pk").values()),
        SeriesOperation.objects.count(),
        OccurrenceChange.objects.count(),
    )
