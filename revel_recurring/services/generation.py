"""Rolling-window materialization: the one entry point that creates occurrences."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from django.db import connections, transaction
from django.db.models import OuterRef
from django.utils import timezone

from .. import rules
from ..conf import recurring_settings
from ..context import suppress_event_notifications
from ..exceptions import (
    GenerationTooLargeError,
    GenerationWindowError,
    InvalidArgumentError,
    SeriesNotFoundError,
)
from ..host_model import RowSizer, check_copied_unique_values
from ..mixins import RecurringEventMixin
from ..models import EventSeries, PendingExdate, RecurrenceRule, get_event_model
from ..notifications import SeriesDigest, send_series_digest
from .exdates import absorb_pending_exdates
from .locking import lock_series
from .parking import PARKING_COLUMNS, clear_parking
from .plumbing import load_rule, mirror_columns, now_utc
from .scheduling import GenerationWindow, generation_window, materialized_slots, next_due_moment

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GenerationPlan:
    """What one run would do: the new slots, the new cursor and next due moment.

    ``horizon`` is the new cursor: the window's horizon, or the old cursor when that
    is later (a generate never moves the cursor backwards).
    """

    slots: tuple[dt.datetime, ...]
    horizon: dt.datetime
    next_due_at: dt.datetime | None


def _check_until(until: dt.datetime | None, now: dt.datetime) -> None:
    if until is None:
        return
    if not isinstance(until, dt.datetime):
        raise GenerationWindowError(
            f"Cannot generate up to {until!r}: 'until' must be a datetime with a UTC offset, "
            f"not {type(until).__name__}."
        )
    if not rules.is_aware(until):
        raise GenerationWindowError(
            f"Cannot generate up to {until.isoformat()}: give an aware date and time "
            "(with a UTC offset)."
        )
    limit = now + dt.timedelta(weeks=recurring_settings.MAX_WINDOW_WEEKS)
    if rules.to_utc(until) > limit:
        raise GenerationWindowError(
            f"Cannot generate up to {rules.format_instant(until)}: at most "
            f"{recurring_settings.MAX_WINDOW_WEEKS} weeks ahead (until "
            f"{rules.format_instant(limit)}) is allowed by REVEL_RECURRING_MAX_WINDOW_WEEKS."
        )


def plan_generation(
    series: EventSeries,
    rule: RecurrenceRule,
    *,
    materialized: set[dt.datetime],
    now: dt.datetime,
    until: dt.datetime | None = None,
    backfill: bool = False,
) -> GenerationPlan:
    """Decide which slots to materialize; pure given the series state and the slots taken.

    The window runs from the cursor (exclusive) or dtstart (inclusive, first run)
    to the horizon (inclusive). Because the next run starts exclusively at the
    same horizon, a slot exactly on it is generated exactly once. Slots before
    ``now`` are left out unless ``backfill``; exdates and ``materialized`` slots
    (by original UTC slot, so moved or deleted occurrences stay gone) too.
    """
    window = generation_window(series, rule, now=now, until=until, backfill=backfill)
    # The new cursor: a run never moves it backwards (an `until` or a shrunk window
    # below it asks for dates already generated), so the next due moment is
    # searched from the later of the two as well.
    cursor = series.last_generated_until
    reached = window.horizon if cursor is None else max(cursor, window.horizon)
    exdates = series.exdate_instants
    slots = tuple(
        slot
        for slot in rules.occurrences_between(
            rule.to_spec(), window.search_from, window.horizon, inclusive=True
        )
        if (window.inclusive or slot > window.lower)
        and (backfill or slot >= now)
        and slot not in exdates
        and slot not in materialized
    )
    return GenerationPlan(
        slots=slots,
        horizon=reached,
        next_due_at=next_due_moment(
            series, rule, after=reached, materialized=materialized | set(slots)
        ),
    )


def generate_series_events(
    series: EventSeries | int,
    *,
    until: dt.datetime | None = None,
    now: dt.datetime | None = None,
    backfill: bool = False,
) -> list[RecurringEventMixin]:
    """Materialize every occurrence of ``series`` inside its rolling window.

    ``series`` is an EventSeries or its primary key (the Celery task passes the
    key and saves a query; a missing series then generates nothing). Returns the
    created host events, in start order (empty when there was nothing to do).
    ``until`` replaces the horizon ``now + generation_window_weeks`` and may reach
    at most ``REVEL_RECURRING_MAX_WINDOW_WEEKS`` ahead; an ``until`` at or before the
    cursor (``last_generated_until``) asks for dates already generated: nothing is
    created (a backfill still fills missing past slots up to it) and the cursor stays
    where it is, as no run ever moves it backwards. Occurrences that start
    before ``now`` are skipped unless ``backfill`` (for imports), which walks from
    dtstart and fills every past slot not yet materialized or excluded.

    Runs in one transaction under the series row lock: all occurrences, their
    related rows and the cursor commit together or not at all. After commit, one
    digest is sent for the batch (``notifications.send_series_digest``); a failing
    notifier is logged, never raised.
    """
    moment = now_utc(now)
    _check_until(until, moment)
    if isinstance(series, EventSeries):
        if not series.is_active or series.recurrence_rule_id is None:
            return []
        series_id = series.pk
    elif isinstance(series, int) and not isinstance(series, bool):
        series_id = series
    else:
        raise InvalidArgumentError(
            f"'series' must be an EventSeries or its primary key, got {series!r}."
        )
    created: list[RecurringEventMixin] = []
    with transaction.atomic(), suppress_event_notifications():
        try:
            # The rule is read in its own query after the lock (never joined into
            # the locking statement): after a wait, PostgreSQL re-reads only the
            # locked row, so a joined rule would be the one from before the wait.
            locked = lock_series(series_id, with_rule=True, absorb_exdates=False)
        except SeriesNotFoundError:
            return []
        # The locked row is the truth: another caller may have paused the series,
        # moved the cursor or changed the rule while we waited for the lock.
        rule = locked.recurrence_rule if locked.recurrence_rule_id is not None else None
        if not locked.is_active or rule is None:
            return []
        since = generation_window(
            locked, rule, now=moment, until=until, backfill=backfill
        ).search_from
        taken = read_taken_slots([locked.pk], since).get(locked.pk)
        if taken is None:
            absorb_pending_exdates(locked)
            disarm_series(locked)
        else:
            absorb_pending_exdates(locked, pending=taken.pending)
            plan = plan_generation(
                locked,
                rule,
                materialized=taken.materialized,
                now=moment,
                until=until,
                backfill=backfill,
            )
            created = _materialize(locked, taken.template, plan.slots)
            apply_plan(locked, plan, created=len(created))
            if created:
                # A run that wrote occurrences proves the cause of a parking gone
                # (Generate now after the template was shortened, for one). A run
                # with nothing to write (an ``until`` before the cursor, a window
                # already full) proves nothing: the series stays parked.
                clear_parking(locked)
            write_cursors([locked])
            if created:
                transaction.on_commit(
                    partial(send_series_digest, locked, created, template=taken.template)
                )
    if isinstance(series, EventSeries):
        # Mirror every column written: a later save() of the caller's instance
        # must not rewind the cursor or the index counter.
        mirror_columns(series, locked, *_CURSOR_COLUMNS, "exdates")
    return created


_CURSOR_COLUMNS = (
    "last_generated_until",
    "next_due_at",
    "last_occurrence_index",
    "updated_at",
    *PARKING_COLUMNS,
)


def apply_plan(series: EventSeries, plan: GenerationPlan, *, created: int) -> None:
    """Move the series' cursor columns past the plan (in memory; :func:`write_cursors` saves)."""
    series.last_generated_until = plan.horizon
    series.next_due_at = plan.next_due_at
    series.last_occurrence_index += created
    series.updated_at = timezone.now()


def write_cursors(series_list: Sequence[EventSeries]) -> None:
    """Write the cursor columns of every series in ``series_list`` in one statement.

    A plain UPDATE of these columns only: save() would rewrite (and re-normalise)
    every other column too. Several series: one UPDATE with a CASE per column.
    """
    if len(series_list) == 1:
        series = series_list[0]
        EventSeries.objects.filter(pk=series.pk).update(
            **{name: getattr(series, name) for name in _CURSOR_COLUMNS}
        )
    elif series_list:
        EventSeries.objects.bulk_update(series_list, _CURSOR_COLUMNS)


def disarm_series(series: EventSeries) -> None:
    """A series without a template leaves the dispatcher's view until it gets one.

    Otherwise the beat would select it every day for nothing. A template created
    later re-arms it (receivers.rearm_series_for_new_template), as does any
    change that recomputes ``next_due_at``.
    """
    logger.warning(
        "revel_recurring: series %s has no template; nothing generated, and it is not "
        "dispatched again until it gets one",
        series.pk,
    )
    if series.next_due_at is not None:
        series.next_due_at = None
        EventSeries.objects.filter(pk=series.pk).update(next_due_at=None)


@dataclass(frozen=True)
class TakenSlots:
    """What generation reads after the lock: the template, slots materialized, pending exdates."""

    template: RecurringEventMixin
    materialized: set[dt.datetime]
    pending: list[dt.datetime]


def read_taken_slots(series_ids: Sequence[int], since: dt.datetime) -> dict[int, TakenSlots]:
    """Per locked series with a template: the template, slots from ``since`` on, pending exdates.

    Series without a template are absent. Read after the series locks are held,
    so all reflect every writer that held them before us. Pending exdates (slots
    of occurrences hosts deleted) are read in the same statement as the
    materialized slots or after it: a delete that commits in between is then
    seen in one or the other, never in neither. On PostgreSQL the slots and the
    pending exdates ride along with the templates as ARRAY subqueries (one
    statement for any number of series); elsewhere three statements, in that order.
    """
    manager = get_event_model()._default_manager
    queryset = manager.filter(series_id__in=series_ids, is_template=True)
    if connections[queryset.db].vendor == "postgresql":
        from django.contrib.postgres.expressions import ArraySubquery

        taken = manager.filter(series_id=OuterRef("series_id"), recurrence_id__gte=since).values(
            "recurrence_id"
        )
        pending = PendingExdate.objects.filter(series_id=OuterRef("series_id")).values("instant")
        return {
            int(template.series_id): TakenSlots(
                template,
                set(getattr(template, "_revel_taken", None) or ()),
                list(getattr(template, "_revel_pending", None) or ()),
            )
            for template in queryset.annotate(
                _revel_taken=ArraySubquery(taken), _revel_pending=ArraySubquery(pending)
            )
        }
    templates = {cast(int, template.series_id): template for template in queryset}
    materialized: dict[int, set[dt.datetime]] = {pk: set() for pk in templates}
    for series_id, slot in manager.filter(
        series_id__in=list(templates), recurrence_id__gte=since
    ).values_list("series_id", "recurrence_id"):
        if slot is not None:
            materialized[series_id].add(slot)
    pending_by_series: dict[int, list[dt.datetime]] = {pk: [] for pk in templates}
    for series_id, instant in PendingExdate.objects.filter(
        series_id__in=list(templates)
    ).values_list("series_id", "instant"):
        pending_by_series[series_id].append(instant)
    return {
        pk: TakenSlots(template, materialized[pk], pending_by_series[pk])
        for pk, template in templates.items()
    }


def preview_series_events(
    series: EventSeries,
    *,
    until: dt.datetime | None = None,
    now: dt.datetime | None = None,
    backfill: bool = False,
) -> list[dt.datetime]:
    """The slots (UTC) a call to :func:`generate_series_events` would create now.

    Reads only; takes no lock, so a concurrent run may get there first.
    """
    moment = now_utc(now)
    _check_until(until, moment)
    if not series.is_active or series.recurrence_rule_id is None:
        return []
    rule = load_rule(series)
    assert rule is not None
    window = generation_window(series, rule, now=moment, until=until, backfill=backfill)
    materialized = materialized_slots(series, window.search_from)
    plan = plan_generation(
        series, rule, materialized=materialized, now=moment, until=until, backfill=backfill
    )
    return list(plan.slots)


def _materialize(series: EventSeries, template: Any, slots: Sequence[dt.datetime]) -> list[Any]:
    occurrences = build_occurrences(series, template, slots)
    if not occurrences:
        return []
    bulk_insert(type(template), occurrences)
    type(template).clone_related(template, occurrences)
    return occurrences


# PostgreSQL accepts at most 65,535 parameters in one statement.
_MAX_PARAMETERS = 60_000


def insert_batches(model: Any, rows: Sequence[Any]) -> list[list[Any]]:
    """``rows`` cut into INSERT batches by ``REVEL_RECURRING_INSERT_BATCH_BYTES`` and count.

    Every batch holds at least one row, at most as many as fit the parameter
    limit, and (beyond its first row) no more estimated bytes than the budget:
    a large template text then costs more statements, never one statement too
    large for the server (PostgreSQL refuses to allocate 1 GB for one).
    """
    budget = recurring_settings.INSERT_BATCH_BYTES
    most = max(1, _MAX_PARAMETERS // max(1, len(model._meta.concrete_fields)))
    sizer = RowSizer(model)
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


def bulk_insert(model: Any, rows: Sequence[Any]) -> None:
    """INSERT ``rows`` in as few statements as :func:`insert_batches` allows.

    ``bulk_create`` sets the primary keys on the same objects (RETURNING where
    the backend has it). Django still splits a batch further by the backend's own
    parameter limit (SQLite's 999 or 32,766).
    """
    manager = model._default_manager
    for batch in insert_batches(model, rows):
        manager.bulk_create(batch, batch_size=len(batch))


def check_generation_size(series: EventSeries, template: Any, occurrences: Sequence[Any]) -> None:
    """Refuse a run whose rows would exceed ``REVEL_RECURRING_MAX_GENERATION_BYTES``.

    In memory, before anything is written. The error names the template's
    largest field: that copied value is what multiplies by the number of dates.
    """
    if not occurrences:
        return
    sizer = RowSizer(type(template))
    total = sum(sizer.row_bytes(occurrence) for occurrence in occurrences)
    _refuse_oversized(series, template, sizer, count=len(occurrences), total=total)


def check_next_run_size(series: EventSeries, *, now: dt.datetime) -> None:
    """Refuse a schedule change whose next run would exceed the generation budget.

    For writers that change the rule or the window and leave the generation to
    the next pass: the organiser gets the 400 now, instead of the pass parking
    the series tomorrow. Each occurrence is counted at its template's size.
    Reads the template and the slots taken (two queries); ``series`` is locked
    and carries its new rule and window.
    """
    if not series.is_active or series.recurrence_rule_id is None:
        return
    template = series.get_template()
    if template is None:
        return
    slots = preview_series_events(series, now=now)
    sizer = RowSizer(type(template))
    per_row = sizer.row_bytes(template)
    _refuse_oversized(series, template, sizer, count=len(slots), total=per_row * len(slots))


def _refuse_oversized(
    series: EventSeries, template: Any, sizer: RowSizer, *, count: int, total: int
) -> None:
    limit = recurring_settings.MAX_GENERATION_BYTES
    if total <= limit or not count:
        return
    name, size = sizer.largest_field(template, type(template))
    raise GenerationTooLargeError(
        f"Series {series.pk} would write {count} occurrences of about "
        f"{_megabytes(total / count)} each ({_megabytes(total)} in all; the "
        f"template's '{name}' alone is {_megabytes(size)}), over the "
        f"{_megabytes(limit)} REVEL_RECURRING_MAX_GENERATION_BYTES allows for one run. "
        f"Shorten '{name}' or choose a shorter generation window.",
        field=name,
    )


def _megabytes(size: float) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def build_occurrences(
    series: EventSeries, template: RecurringEventMixin, slots: Sequence[dt.datetime]
) -> list[RecurringEventMixin]:
    """The unsaved occurrences of ``slots``, numbered on from the series' index counter.

    Raises DuplicateUniqueValueError before anything is written when the built
    occurrences would repeat a unique value, GenerationTooLargeError when they
    would weigh more than ``REVEL_RECURRING_MAX_GENERATION_BYTES``.
    """
    if not slots:
        return []
    model = type(template)
    status = model.RECURRING_STATUS_OPEN if series.auto_publish else model.RECURRING_STATUS_DRAFT
    # A counter on the series row (written under its lock) rather than MAX() over
    # the occurrences: indices keep increasing even when the newest occurrence
    # was deleted, and the batch saves a query.
    start_index = series.last_occurrence_index + 1
    occurrences = [
        template.prepare_occurrence(start=slot, occurrence_index=start_index + i, status=status)
        for i, slot in enumerate(slots)
    ]
    check_copied_unique_values(template, occurrences)
    check_generation_size(series, template, occurrences)
    return occurrences


__all__ = [
    "GenerationPlan",
    "GenerationWindow",
    "SeriesDigest",
    "TakenSlots",
    "apply_plan",
    "build_occurrences",
    "bulk_insert",
    "check_generation_size",
    "check_next_run_size",
    "disarm_series",
    "generate_series_events",
    "insert_batches",
    "plan_generation",
    "preview_series_events",
    "read_taken_slots",
    "write_cursors",
]
