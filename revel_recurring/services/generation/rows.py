"""The occurrence rows of a run: built from the template, weighed, inserted in bulk."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext

from ...conf import recurring_settings
from ...exceptions import GenerationTooLargeError
from ...exclusions import FOLDED
from ...host_model import RowSizer, check_copied_unique_values
from ...mixins import RecurringEventMixin
from ...models import EventSeries
from .plan import preview_series_events

# PostgreSQL accepts at most 65,535 parameters in one statement.
_MAX_PARAMETERS = 60_000


def build_occurrences(
    series: EventSeries,
    template: RecurringEventMixin,
    slots: Sequence[dt.datetime],
    *,
    starts: Mapping[dt.datetime, dt.datetime] | None = None,
    sizer: RowSizer | None = None,
) -> list[RecurringEventMixin]:
    """The unsaved occurrences of ``slots``, numbered on from the series' index counter.

    Each starts on its slot, or where ``starts`` says (a date a holiday shifted:
    it keeps its slot as ``recurrence_id``, so a later change knows where it came from).

    Raises DuplicateUniqueValueError before anything is written when the built
    occurrences would repeat a unique value, GenerationTooLargeError when they
    would weigh more than ``REVEL_RECURRING_MAX_GENERATION_BYTES``. ``sizer``
    weighs them (a run passes its own to :func:`bulk_insert`, which then weighs
    nothing twice).
    """
    if not slots:
        return []
    model = type(template)
    status = model.RECURRING_STATUS_OPEN if series.auto_publish else model.RECURRING_STATUS_DRAFT
    # A counter on the series row (written under its lock) rather than MAX() over
    # the occurrences: indices keep increasing even when the newest occurrence
    # was deleted, and the batch saves a query.
    start_index = series.last_occurrence_index + 1
    starts = starts or {}
    occurrences = []
    for i, slot in enumerate(slots):
        occurrence = template.prepare_occurrence(
            start=starts.get(slot, slot), occurrence_index=start_index + i, status=status
        )
        occurrence.recurrence_id = slot
        occurrences.append(occurrence)
    check_copied_unique_values(template, occurrences)
    check_generation_size(series, template, occurrences, sizer=sizer)
    return occurrences


def insert_batches(
    model: Any, rows: Sequence[Any], *, sizer: RowSizer | None = None
) -> list[list[Any]]:
    """``rows`` cut into INSERT batches by ``REVEL_RECURRING_INSERT_BATCH_BYTES`` and count.

    Every batch holds at least one row, at most as many as fit the parameter
    limit, and (beyond its first row) no more estimated bytes than the budget:
    a large template text then costs more statements, never one statement too
    large for the server (PostgreSQL refuses to allocate 1 GB for one).
    """
    budget = recurring_settings.INSERT_BATCH_BYTES
    most = max(1, _MAX_PARAMETERS // max(1, len(model._meta.concrete_fields)))
    sizer = sizer or RowSizer(model)
    batches: list[list[Any]] = []
    current: list[Any] = []
    weight = 0
    for row in rows:
        size = sizer.row_bytes(row)
        if current and (weight + size > budget or len(current) >= most):
            batches.append(current)
            current, weight = [], 0
        current.append(row)
        weight += size
    if current:
        batches.append(current)
    return batches


def bulk_insert(model: Any, rows: Sequence[Any], *, sizer: RowSizer | None = None) -> None:
    """INSERT ``rows`` in as few statements as :func:`insert_batches` allows.

    ``bulk_create`` sets the primary keys on the same objects (RETURNING where
    the backend has it). Django still splits a batch further by the backend's own
    parameter limit (SQLite's 999 or 32,766).
    """
    manager = model._default_manager
    for batch in insert_batches(model, rows, sizer=sizer):
        manager.bulk_create(batch, batch_size=len(batch))


def check_generation_size(
    series: EventSeries, template: Any, occurrences: Sequence[Any], *, sizer: RowSizer | None = None
) -> None:
    """Refuse a run whose rows would exceed ``REVEL_RECURRING_MAX_GENERATION_BYTES``.

    In memory, before anything is written. The error names the template's
    largest field: that copied value is what multiplies by the number of dates.
    """
    if not occurrences:
        return
    sizer = sizer or RowSizer(type(template))
    total = sum(sizer.row_bytes(occurrence) for occurrence in occurrences)
    _refuse_oversized(series, template, sizer, count=len(occurrences), total=total)


def check_next_run_size(series: EventSeries, *, now: dt.datetime) -> None:
    """Refuse a schedule change whose next run would exceed the generation budget.

    For writers that change the rule or the window and leave the generation to
    the next pass: the organiser gets the 400 now, instead of the pass parking
    the series tomorrow. Each occurrence is counted at its template's size
    (:func:`check_planned_size`). Reads the slots taken and, when there are new
    dates, the template (at most two queries); ``series`` is locked,
    carries its new rule and window, and its pending exdates are folded in.
    """
    if not series.is_active or series.recurrence_rule_id is None:
        return
    check_planned_size(series, count=len(preview_series_events(series, now=now, pending=FOLDED)))


def check_planned_size(series: EventSeries, *, count: int) -> None:
    """Refuse a plan whose ``count`` new dates would exceed the generation budget.

    What :func:`check_next_run_size` refuses when the change is made, said when
    it is planned: an organiser is never shown a plan that applying would refuse.
    Reads the template (one query); nothing for no new dates.
    """
    if not count:
        return
    template = series.get_template()
    if template is None:
        return
    sizer = RowSizer(type(template))
    total = sizer.row_bytes(template) * count
    _refuse_oversized(series, template, sizer, count=count, total=total)


def _refuse_oversized(
    series: EventSeries, template: Any, sizer: RowSizer, *, count: int, total: int
) -> None:
    limit = recurring_settings.MAX_GENERATION_BYTES
    if total <= limit or not count:
        return
    name, size = sizer.largest_field(template, type(template))
    raise GenerationTooLargeError(
        gettext(
            "%(series)s would write %(count)s occurrences of about %(each)s each "
            "(%(total)s in all; the template's '%(name)s' alone is %(field_size)s), over the "
            "%(limit)s REVEL_RECURRING_MAX_GENERATION_BYTES allows for one run. Shorten "
            "'%(name)s' or choose a shorter generation window."
        )
        % {
            "series": series.name,
            "count": count,
            "each": _megabytes(total / count),
            "total": _megabytes(total),
            "name": name,
            "field_size": _megabytes(size),
            "limit": _megabytes(limit),
        },
        field=name,
    )


def _megabytes(size: float) -> str:
    return f"{size / (1024 * 1024):.1f} MB"
