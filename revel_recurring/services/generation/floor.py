"""The floor both generation paths share: plan, read the taken slots, build, insert, write cursors.

``generate_series_events`` (one series, waiting for its lock) and the daily
pass's chunks (:mod:`.chunks`: many series, ``SKIP LOCKED``) differ in how they lock,
in what becomes of a series whose planning fails and in which host hook copies
related rows. Everything between their locks and their commit is
:func:`generate_locked`, so a rule behaves the same on both paths.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

from django.db import DatabaseError, connections, transaction
from django.db.models import OuterRef
from django.utils import timezone

from ...exclusions import Exclusions, excluded_for_series, pending_instants_of, read_pending
from ...holiday_rules import data_version
from ...host_model import RowSizer
from ...mixins import RecurringEventMixin
from ...models import EventSeries, RecurrenceRule, get_event_model
from ...notifications import send_series_digest
from ...rules.zone_data import zone_fingerprint
from ..toolbox.columns import update_columns
from ..toolbox.enrolled import book_enrolled_rows
from ..toolbox.exdates import absorb_pending_exdates
from ..toolbox.parking import PARKING_COLUMNS, clear_parking
from ..toolbox.scheduling import GenerationWindow, generation_window
from .plan import GenerationPlan, plan_generation
from .rows import build_occurrences, bulk_insert

logger = logging.getLogger(__name__)

#: The series columns a run writes (:func:`write_cursors`).
CURSOR_COLUMNS = (
    "last_generated_until",
    "next_due_at",
    "last_occurrence_index",
    "updated_at",
    "holidays_version",
    "zone_fingerprint",
    *PARKING_COLUMNS,
)


@dataclass(frozen=True)
class TakenSlots:
    """What generation reads after the lock: the template, slots materialized, pending exdates."""

    template: RecurringEventMixin
    materialized: set[dt.datetime]
    pending: list[dt.datetime]


@dataclass(frozen=True)
class SeriesBatch:
    """One series' share of a run: the locked series, its template, its new occurrences."""

    series: EventSeries
    template: Any
    occurrences: list[Any]


@dataclass(frozen=True)
class GenerationRun:
    """What :func:`generate_locked` did.

    ``batches`` holds every series planned, in the order given, its cursor written
    and its occurrences saved (none when nothing was due). ``failed`` holds the ids
    of the series whose planning raised, with the error (only with ``chunk=True``).
    Series without a template are in neither: they were disarmed. ``owed``: the
    run (a chunk) booked enrolled users and left their messages owed, for
    ``tell_enrolled_users`` after the commit.
    """

    batches: list[SeriesBatch]
    failed: list[tuple[int, Exception]]
    owed: bool = False

    @property
    def created(self) -> int:
        """The number of occurrences created, all series together."""
        return sum(len(batch.occurrences) for batch in self.batches)


def generate_locked(
    locked: Sequence[EventSeries],
    *,
    now: dt.datetime,
    until: dt.datetime | None = None,
    backfill: bool = False,
    chunk: bool = False,
) -> GenerationRun:
    """Materialize the window of every series in ``locked``; the caller holds their locks.

    Each series carries its rule (read after the lock). Per run: each series'
    window, computed once; the templates with their taken slots and pending
    exdates, read together; per series, its pending exdates folded in, then the
    plan and the built occurrences (a series without a template is disarmed);
    one bulk INSERT of every occurrence; the host's related rows; the enrolled
    users booked on the new dates (one host call); one UPDATE of the cursors;
    after commit, one digest per series that got occurrences.

    ``chunk=True`` is the daily pass: a series whose planning raises anything but
    a database error (which breaks the transaction, so it propagates) is left out
    with its cursor unmoved and listed in ``failed``, and the host's
    ``clone_related_many`` copies the related rows of all series at once.
    Otherwise any error propagates and ``clone_related`` copies each series' rows.
    Call inside the transaction that took the locks, notifications suppressed.
    """
    windows = [
        (series, generation_window(series, _rule(series), now=now, until=until, backfill=backfill))
        for series in locked
    ]
    if not windows:
        return GenerationRun(batches=[], failed=[])
    # One sizer for the run: each row is weighed once, for the size check and the
    # INSERT cut.
    sizer = RowSizer(get_event_model())
    batches, failed = _build_batches(windows, now=now, backfill=backfill, chunk=chunk, sizer=sizer)
    _insert(batches, chunk=chunk, sizer=sizer)
    # The enrolled users of every series, booked on the new dates in one host call. The
    # daily pass's chunks leave their messages to the chunk task, after the commit.
    enrolled = book_enrolled_rows(
        [occurrence for batch in batches for occurrence in batch.occurrences],
        {batch.series.pk: batch.series for batch in batches if batch.occurrences},
        now=now,
        tell="later" if chunk else "now",
    )
    write_cursors([batch.series for batch in batches])
    _digest_after_commit(batches)
    owed = chunk and bool(enrolled.booked or enrolled.refused)
    return GenerationRun(batches=batches, failed=failed, owed=owed)


def materialize_locked(
    series: EventSeries, slot: dt.datetime, *, start: dt.datetime, now: dt.datetime
) -> Any:
    """Materialize the one date ``slot`` of ``series`` (taking place at ``start``); the caller
    holds its lock, folded its pending exdates and checked the date.

    The row is built and inserted as a run builds every date: the template copied
    through ``prepare_occurrence`` (the next ``occurrence_index`` of the series'
    counter), the size checks, the INSERT, the host's ``clone_related``, the
    enrolled users booked (told now), the counter written, one digest after
    commit. The cursor and the next due moment stay where they are: when the
    window reaches ``slot``, the daily pass finds it taken
    (:func:`read_taken_slots`) and builds nothing for it. Returns the saved row,
    or None when the series has no template (nothing to copy).
    """
    taken = read_taken_slots([series.pk], slot)
    state = taken.get(series.pk)
    if state is None:
        return None
    sizer = RowSizer(get_event_model())
    occurrences = build_occurrences(
        series,
        state.template,
        [slot],
        starts={slot: start} if start != slot else None,
        sizer=sizer,
    )
    batch = SeriesBatch(series, state.template, occurrences)
    _insert([batch], chunk=False, sizer=sizer)
    book_enrolled_rows(occurrences, {series.pk: series}, now=now, tell="now")
    series.last_occurrence_index += len(occurrences)
    series.updated_at = timezone.now()
    write_cursors([series])
    _digest_after_commit([batch])
    return occurrences[0]


def _read_run(
    windows: Sequence[tuple[EventSeries, GenerationWindow]],
) -> tuple[dict[int, TakenSlots], dict[Any, Exclusions]]:
    """The run's reads: every series' taken slots and pending exdates, then its exclusions."""
    # One lower bound for all: each series gets a superset of its own taken
    # slots, cut back to its window in _build.
    since = min(window.search_from for _, window in windows)
    taken = read_taken_slots([series.pk for series, _ in windows], since)
    # Every slot a plan looks at (its window, the next due moment after it) lies
    # at or after its window's lower bound; the pending slots came with the taken ones.
    excluded = excluded_for_series(
        [series for series, _ in windows],
        min(window.lower for _, window in windows),
        pending={pk: state.pending for pk, state in taken.items()},
    )
    return taken, excluded


def _build_batches(
    windows: Sequence[tuple[EventSeries, GenerationWindow]],
    *,
    now: dt.datetime,
    backfill: bool,
    chunk: bool,
    sizer: RowSizer,
) -> tuple[list[SeriesBatch], list[tuple[int, Exception]]]:
    """Per series: its pending exdates folded in, its plan and occurrences built.

    A series without a template is disarmed and left out; with ``chunk=True`` a
    series whose planning raises anything but a database error is listed in the
    failures instead (see :func:`generate_locked`).
    """
    taken, excluded = _read_run(windows)
    batches: list[SeriesBatch] = []
    failed: list[tuple[int, Exception]] = []
    # One change stamp: the cursor UPDATE writes a shared value once.
    stamp = timezone.now()
    for series, window in windows:
        state = taken.get(series.pk)
        if state is None:
            absorb_pending_exdates(series)
            disarm_series(series)
            continue
        absorb_pending_exdates(series, pending=state.pending)
        try:
            occurrences = _build(
                series,
                state,
                window,
                excluded[series.pk],
                now=now,
                backfill=backfill,
                sizer=sizer,
                stamp=stamp,
            )
        except Exception as exc:
            # A database error leaves the transaction unusable: it always propagates.
            if not chunk or isinstance(exc, DatabaseError):
                raise
            # Nothing of this series was written but its exdates: leave it out of
            # the insert, with the others' work intact, for the caller to park.
            failed.append((series.pk, exc))
            continue
        batches.append(SeriesBatch(series, state.template, occurrences))
    return batches, failed


def _digest_after_commit(batches: Sequence[SeriesBatch]) -> None:
    """After commit, one digest per series that got occurrences."""
    for batch in batches:
        if batch.occurrences:
            transaction.on_commit(
                partial(
                    send_series_digest, batch.series, batch.occurrences, template=batch.template
                )
            )


def _rule(series: EventSeries) -> RecurrenceRule:
    rule = series.recurrence_rule
    assert rule is not None, "the caller skips series without a rule"
    return rule


def _build(
    series: EventSeries,
    state: TakenSlots,
    window: GenerationWindow,
    excluded: Exclusions,
    *,
    now: dt.datetime,
    backfill: bool,
    sizer: RowSizer,
    stamp: dt.datetime,
) -> list[Any]:
    """Plan ``series`` and build its occurrences; moves its cursor in memory only.

    A series whose zone now has other UTC offsets up to its cursor than when its
    dates were placed (``zone_data_changed``) is held: nothing is generated and
    its cursor stays, since a slot of the new data near the cursor may be a date
    already generated at the old instant. The zone data command (or the daily
    pass, per ``REVEL_RECURRING_ZONE_DATA_AUTO_APPLY``) moves its dates first.
    """
    rule = _rule(series)
    if series.zone_data_changed(rule):
        logger.warning(
            "revel_recurring: series %s held: the time-zone data of %s changed since its "
            "dates were placed (manage.py revel_recurring_data)",
            series.pk,
            rule.timezone,
        )
        return []
    plan = plan_generation(
        series,
        _rule(series),
        materialized={slot for slot in state.materialized if slot >= window.search_from},
        now=now,
        backfill=backfill,
        window=window,
        excluded=excluded,
    )
    occurrences = build_occurrences(
        series, state.template, plan.slots, starts=plan.starts, sizer=sizer
    )
    apply_plan(series, plan, created=len(occurrences), stamp=stamp)
    # The zone's offsets as this process loads them, over the dates placed so far.
    cursor = series.last_generated_until
    series.zone_fingerprint = "" if cursor is None else zone_fingerprint(rule.timezone, now, cursor)
    if occurrences:
        # A run that writes occurrences proves the cause of a parking gone
        # (Generate now after the template was shortened, for one). A run with
        # nothing to write (an ``until`` before the cursor, a window already
        # full) proves nothing: the series stays parked.
        clear_parking(series)
    return occurrences


def _insert(batches: Sequence[SeriesBatch], *, chunk: bool, sizer: RowSizer) -> None:
    everything = [occurrence for batch in batches for occurrence in batch.occurrences]
    if not everything:
        return
    model = get_event_model()
    # bulk_create sets the primary keys on the same objects (RETURNING), so each
    # batch's list now holds saved occurrences.
    bulk_insert(model, everything, sizer=sizer)
    if chunk:
        model.clone_related_many([(batch.template, batch.occurrences) for batch in batches])
        return
    for batch in batches:
        if batch.occurrences:
            model.clone_related(batch.template, batch.occurrences)


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
        # Imported here: django.contrib.postgres needs psycopg, which a site on
        # SQLite or MariaDB may not have installed.
        from django.contrib.postgres.expressions import ArraySubquery

        taken = manager.filter(series_id=OuterRef("series_id"), recurrence_id__gte=since).values(
            "recurrence_id"
        )
        pending = pending_instants_of(OuterRef("series_id"))
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
    pending_by_series = read_pending(list(templates))
    return {
        pk: TakenSlots(template, materialized[pk], pending_by_series[pk])
        for pk, template in templates.items()
    }


def apply_plan(
    series: EventSeries, plan: GenerationPlan, *, created: int, stamp: dt.datetime | None = None
) -> None:
    """Move the series' cursor columns past the plan (in memory; :func:`write_cursors` saves).

    ``stamp`` is the run's ``updated_at`` (one instant for every series of a run,
    so the cursor UPDATE writes it once); the current time when not given.
    """
    if series.holiday_country and series.last_generated_until is None:
        # Which holiday data the generated dates were placed with: a newer package
        # may know holidays this one did not (services.holiday_data). Written only
        # by a run that places them all (the first, or after a reset): a run that
        # adds a week leaves the dates before it as the older data placed them.
        series.holidays_version = data_version()
    series.last_generated_until = plan.horizon
    series.next_due_at = plan.next_due_at
    series.last_occurrence_index += created
    series.updated_at = stamp or timezone.now()


def write_cursors(series_list: Sequence[EventSeries]) -> None:
    """Write the cursor columns of every series in ``series_list`` in one statement.

    A plain UPDATE of these columns only: save() would rewrite (and re-normalise)
    every other column too. Several series: one UPDATE with a CASE per column
    whose values differ (:func:`~revel_recurring.services.toolbox.columns.update_columns`).
    """
    if len(series_list) == 1:
        series = series_list[0]
        EventSeries.objects.filter(pk=series.pk).update(
            **{name: getattr(series, name) for name in CURSOR_COLUMNS}
        )
    elif series_list:
        update_columns(series_list, CURSOR_COLUMNS)


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
