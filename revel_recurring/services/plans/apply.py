"""Applying a change plan: exactly the plan a person saw, or nothing."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping
from typing import Any, Literal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from ... import rules
from ...context import suppress_event_notifications
from ...exceptions import InvalidArgumentError, PlanOutdatedError
from ...holiday_settings import HOLIDAY_FIELDS
from ...models import EventSeries, get_event_model
from ..drift import cancel_stale_locked
from ..extra_dates import ExtraDatesChange
from ..generation.floor import CURSOR_COLUMNS, generate_locked
from ..generation.rows import check_planned_size
from ..schedule_change import ScheduleChange, announce_schedule_change, change_schedule
from ..toolbox.bookings import BookedDate, booked_date, booked_ids, series_zone
from ..toolbox.enrolled_counts import flag_enrolments
from ..toolbox.exdates import absorb_pending_exdates, remap_zone_exdates
from ..toolbox.locking import lock_series, retry_on_lock_conflict
from ..toolbox.operation import dates_operation, notify_mode, people_told, planning_for
from ..toolbox.plumbing import mirror_columns, now_utc
from .changes import Changes, split_changes
from .compute import compute_change, compute_plan
from .digest import hash_matches
from .enrolled import with_enrolled
from .judging import judge, judge_rows
from .moving import lock_movers, write_moves
from .result import AppliedPlan, PlannedOccurrence, RecurrencePlan
from .state import read_plan_state
from .told import with_people_told

#: What ``cancel_drift`` accepts besides a collection of ids.
CancelDriftMode = Literal["none", "unbooked", "all"]
CANCEL_DRIFT_MODES: tuple[str, ...] = ("none", "unbooked", "all")
#: The modes that cancel no booked date: the host is asked again under the row locks,
#: so a date booked since the plan is kept, and the plan still applies.
_ASKS_AGAIN = ("none", "unbooked")


def plan_recurrence_change(
    series: EventSeries,
    changes: Mapping[str, Any] | None = None,
    *,
    notify: object = None,
    now: dt.datetime | None = None,
) -> RecurrencePlan:
    """What changing ``series``' rule, window, holidays or extra dates by ``changes`` would
    do, written nowhere.

    ``changes`` holds rule fields (as ``update_series_recurrence``'s
    ``rule_changes``), optionally ``generation_window_weeks``, ``holidays``
    (holiday settings, :mod:`revel_recurring.holiday_settings`) and
    ``extra_dates``: the whole new set of the series' extra dates (aware
    datetimes, as a PATCH takes them). An added date within the window is among
    the ``new`` dates (or ``excluded``, when a cancelled occurrence still holds
    it); an occurrence on a removed one is ``drift`` like any row off the rule. A
    date given twice, more than ``EXTRA_DATES_MAX`` dates, or an added one in the
    past, before dtstart or on a date of the (new) rule, is a ``ValidationError``
    keyed ``extra_dates``. A pure read: the
    series with its rule, the rows the plan judges, the pending exdates, the
    bookings of the judged rows and, when the plan creates dates, the template
    (to weigh them): at most five queries whatever the number of occurrences; no
    lock (``people_told`` asks the host once more, when it names people and a booked
    date would move or be cancelled). ``ValidationError`` keyed by field for a change
    the validators refuse
    (as the change itself would be), ``GenerationTooLargeError`` for one whose new
    dates would exceed ``REVEL_RECURRING_MAX_GENERATION_BYTES``,
    ``SeriesNotReadyError`` for a series without a rule. Pass the plan's ``hash``
    to :func:`apply_recurrence_plan`. ``notify`` is the one the plan will be applied
    with: with the people told, booked dates that can move are shown moving (no new
    date beside them); the hash is the same either way.
    """
    moment = now_utc(now)
    requested = split_changes(changes)
    fresh = flag_enrolments(EventSeries.objects.select_related("recurrence_rule")).get(pk=series.pk)
    rule = fresh.recurrence_rule if fresh.recurrence_rule_id is not None else None
    state = read_plan_state(fresh, now=moment)
    with planning_for(notify):
        plan = compute_plan(fresh, rule, state, requested, now=moment)
    # Applying refuses a run over the generation byte budget: so does the plan
    # (one more query, only when the plan creates dates).
    check_planned_size(fresh, count=len(plan.new))
    # The enrolled users the dates concern: two reads, none without enrolments.
    plan = with_enrolled(plan, fresh, now=moment, books_new=fresh.auto_publish)
    # How many people would be told: one more question to the host, only when it
    # says who is booked and a booked date would move or be cancelled (nobody
    # under "none").
    if notify_mode(notify) == "none":
        return plan
    return with_people_told(plan, state)


def current_drift(
    series: EventSeries, *, now: dt.datetime | None = None
) -> tuple[PlannedOccurrence, ...]:
    """The future occurrences of ``series`` that do not fit its rule now, with bookings.

    What a plan of no change lists as drift, without planning anything: no
    generation window, no hash, no size check (a caller reporting a change that is
    already saved must not be refused for the next run's size). The series with its
    rule, the rows and the pending exdates, and one booking count: four queries.
    Empty for a series without a rule.
    """
    moment = now_utc(now)
    fresh = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk)
    if fresh.recurrence_rule_id is None or fresh.recurrence_rule is None:
        return ()
    state = read_plan_state(fresh, now=moment)
    return judge_rows(fresh, fresh.recurrence_rule, state, state.upcoming(moment), now=moment)[1]


def apply_recurrence_plan(
    series: EventSeries,
    plan_hash: str,
    changes: Mapping[str, Any] | None = None,
    *,
    cancel_drift: CancelDriftMode | Collection[Any] = "none",
    drift_ids: Collection[Any] | None = None,
    generate: bool = True,
    notify: object = None,
    operation: str = "plan",
    now: dt.datetime | None = None,
) -> AppliedPlan:
    """Apply ``changes`` if the series is still in the state its plan (``plan_hash``) saw.

    Under the series lock, in one transaction: the plan is computed again; when
    its hash differs from ``plan_hash`` (anything it depends on was committed in
    between: another change, a cancel or restore, an occurrence edited, a
    generation run; with ``cancel_drift`` ``"all"`` or ids, also a drifted date
    booked or freed since: the person decided on the bookings the plan showed)
    :class:`~revel_recurring.exceptions.PlanOutdatedError` is raised carrying the
    fresh plan, and nothing is written. Otherwise:

    - the rule, window and holiday settings change as ``update_series`` changes
      them, and the extra dates become the set given (``series_recurrence_changed``
      is sent once, after commit, with ``"extra_dates"`` among its fields when
      they changed; ``extra_date_changed`` is not sent);
    - drifted dates are cancelled per ``cancel_drift``: ``"none"``; ``"unbooked"``
      (booked dates kept and named in ``kept_booked``); ``"all"`` (booked ones
      too); or a collection of ids naming exactly the drifted dates to cancel
      (booked ones among them included: the person ticked them). A booked date
      is cancelled only when the plan showed it booked: bookings are asked again
      under the row locks, and one taken after the hash was checked keeps its
      date (named in ``kept_booked``). Dates moved or
      edited by hand are never cancelled here and are named in ``kept_modified``;
      each cancelled date becomes an exdate and sends ``occurrence_cancelled``.
      ``drift_ids`` narrows ``"unbooked"`` and ``"all"`` to those drifted dates
      (the others are left as they are, as under ``"none"``);
    - the generation cursor resets when the plan says so (``cursor_reset``),
      also for a change of nothing on a series whose dates were placed with
      other holiday data (:mod:`revel_recurring.services.holiday_data`);
    - with ``generate`` (and an active series), the plan's ``new`` dates are
      materialized in the same transaction, with one digest after commit;
    - the people booked on the dates it moves or cancels get one message each
      unless ``notify`` is "none" (None: ``REVEL_RECURRING_NOTIFY_PEOPLE``); with
      them told (and a host that says who is booked), booked dates move like
      unbooked ones under every ``cancel_drift`` but a list of ids. ``operation``
      is the kind ``series_dates_changed`` names ("plan"; "holidays" when only the
      holiday settings change; "holiday_data" from the holiday data command).
    """
    moment = now_utc(now)
    requested = split_changes(changes)
    mode = cancel_mode(cancel_drift)
    among = None if drift_ids is None else frozenset(drift_ids)
    notify = notify_mode(notify)
    if operation == "plan" and requested.holidays and not requested.rule:
        operation = "holidays"
    if not isinstance(plan_hash, str) or not plan_hash.strip():
        raise ValidationError({"plan_hash": [gettext("Give the hash of the plan you looked at.")]})

    def attempt() -> tuple[EventSeries, AppliedPlan]:
        with transaction.atomic():
            locked = lock_series(series.pk, with_rule=True)
            with dates_operation(operation, locked, notify=notify, plan_hash=plan_hash, now=moment):
                return _apply_locked(
                    locked, requested, plan_hash, mode, among=among, generate=generate, now=moment
                )

    locked, applied = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    mirror_columns(
        series,
        locked,
        "exdates",
        "extra_dates",
        "generation_window_weeks",
        *HOLIDAY_FIELDS.values(),
        *CURSOR_COLUMNS,
    )
    series.recurrence_rule = locked.recurrence_rule
    return applied


def _apply_locked(
    locked: EventSeries,
    requested: Changes,
    plan_hash: str,
    mode: str | frozenset[Any],
    *,
    among: frozenset[Any] | None,
    generate: bool,
    now: dt.datetime,
) -> tuple[EventSeries, AppliedPlan]:
    """:func:`apply_recurrence_plan` under the series lock: check, change, move and cancel
    drift, generate."""
    plan, extra_dates = _checked_plan(
        locked, requested, plan_hash, bookings_seen=mode not in _ASKS_AGAIN, now=now
    )
    _follow_zone_data(locked, now=now)
    schedule = _change_schedule(
        locked, requested, extra_dates, cursor_reset=plan.cursor_reset, now=now
    )
    moved, kept_in_place = _move_drift(locked, plan, mode, among=among)
    cancelled, kept_booked, kept_modified = cancel_planned_drift(
        locked, plan, mode, among=among, now=now
    )
    created = _generate(locked, now=now) if generate else []
    return locked, AppliedPlan(
        plan=plan,
        changed=schedule.changed,
        cursor_reset=schedule.cursor_reset,
        created=created,
        cancelled=cancelled,
        kept_booked=sorted([*kept_in_place, *kept_booked], key=lambda date: date.start),
        kept_modified=kept_modified,
        moved=moved,
    )


def _follow_zone_data(locked: EventSeries, *, now: dt.datetime) -> None:
    """Newer zone data: move the exdates to their dates' new instants, as the plan did,
    and save them (before the cursor resets, which ends ``zone_data_changed``)."""
    rule = locked.recurrence_rule if locked.recurrence_rule_id is not None else None
    if rule is None or not locked.zone_data_changed(rule):
        return
    absorb_pending_exdates(locked)
    model = get_event_model()
    held = {
        rules.to_utc(slot)
        for slot in model._default_manager.filter(
            series_id=locked.pk, recurrence_id__gte=now
        ).values_list("recurrence_id", flat=True)
        if slot is not None
    }
    if remap_zone_exdates(locked, rule, held=held, now=now):
        locked.save(update_fields=["exdates", "updated_at"])


def _checked_plan(
    locked: EventSeries,
    requested: Changes,
    plan_hash: str,
    *,
    bookings_seen: bool,
    now: dt.datetime,
) -> tuple[RecurrencePlan, ExtraDatesChange | None]:
    """The plan computed again under the lock, with the change of the extra dates it
    assumed, if its hash is ``plan_hash`` (``PlanOutdatedError`` with it otherwise)."""
    rule = locked.recurrence_rule if locked.recurrence_rule_id is not None else None
    state = read_plan_state(locked, now=now)
    plan, extra_dates = compute_change(locked, rule, state, requested, now=now)
    if not hash_matches(plan.hash, plan_hash, bookings_seen=bookings_seen):
        raise PlanOutdatedError(
            gettext(
                "%(series)s changed since this plan was made; review the fresh "
                "plan and apply that one."
            )
            % {"series": locked.name},
            # The fresh plan as a person reads it: its enrolled users counted too.
            plan=with_enrolled(plan, locked, now=now, books_new=locked.auto_publish),
        )
    return plan, extra_dates


def _change_schedule(
    locked: EventSeries,
    requested: Changes,
    extra_dates: ExtraDatesChange | None,
    *,
    cursor_reset: bool,
    now: dt.datetime,
) -> ScheduleChange:
    """Change the rule, window, holidays and extra dates as ``update_series`` does, save
    the columns that changed and send ``series_recurrence_changed`` after commit."""
    schedule = change_schedule(
        locked,
        rule_changes=requested.rule,
        auto_publish=None,
        generation_window_weeks=requested.window,
        holidays=requested.holidays,
        extra_dates=extra_dates,
        now=now,
        reset_cursor=cursor_reset,
    )
    if schedule.columns:
        locked.save(update_fields=[*sorted(schedule.columns), "updated_at"])
    announce_schedule_change(locked, schedule)
    return schedule


def _generate(locked: EventSeries, *, now: dt.datetime) -> list[Any]:
    """Materialize an active series' new dates in the same transaction (one digest)."""
    if not locked.is_active:
        return []
    with suppress_event_notifications():
        run = generate_locked([locked], now=now)
    return run.batches[0].occurrences if run.batches else []


def cancel_mode(value: object) -> str | frozenset[Any]:
    if isinstance(value, str) and value in CANCEL_DRIFT_MODES:
        return value
    if isinstance(value, Collection) and not isinstance(value, str):
        return frozenset(value)
    raise InvalidArgumentError(
        gettext(
            "'cancel_drift' must be one of %(names)s or a list of drifted occurrence ids,"
            " got %(value)s."
        )
        % {"names": ", ".join(CANCEL_DRIFT_MODES), "value": repr(value)},
        field="cancel_drift",
    )


def _move_drift(
    locked: EventSeries,
    plan: RecurrencePlan,
    mode: str | frozenset[Any],
    *,
    among: frozenset[Any] | None = None,
) -> tuple[list[Any], list[BookedDate]]:
    """Move the drifted dates that have somewhere to go (``moves_to``), as ``mode`` says
    (:func:`move_planned`)."""
    return move_planned(locked, plan.drift, plan.cancelled_moves, mode, among=among)


def move_to_partners(
    locked: EventSeries, *, now: dt.datetime
) -> tuple[list[Any], list[BookedDate]]:
    """After a schedule change without a plan (a PATCH, the admin's series form), under the
    series lock: move the future dates without bookings that the new schedule does not
    hold to their partners (and the cancelled ones with their exclusion), cancelling
    nothing. Booked dates stay where they are and are returned; so do, by
    :func:`current_drift`, those without a partner. Three reads (rows, pending
    exdates, bookings) and the moves' few writes.
    """
    rule = locked.recurrence_rule if locked.recurrence_rule_id is not None else None
    if rule is None:
        return [], []
    state = read_plan_state(locked, now=now)
    judged = judge(locked, rule, state, state.upcoming(now), now=now)
    return move_planned(locked, judged.drift, judged.cancelled_moves, "none")


def move_planned(
    series: EventSeries,
    drift: tuple[PlannedOccurrence, ...],
    cancelled_moves: tuple[PlannedOccurrence, ...],
    mode: str | frozenset[Any],
    *,
    among: frozenset[Any] | None = None,
) -> tuple[list[Any], list[BookedDate]]:
    """Move the ``drift`` dates that have a date to move to (``moves_to``), and the
    ``cancelled_moves``, onto ``series`` (their series once moved; its exdates follow
    the cancelled ones, saved).

    Dates without bookings always move (a move loses nobody's place), under every
    ``mode``: ``"none"`` and ``"unbooked"`` keep the booked ones where they are
    (named), ``"all"`` moves them too, a collection of ids moves exactly the dates
    it names (an unnamed one stays: the organiser unticked it). A booked date moves
    only when the plan showed it booked: bookings are asked again under the row
    locks. ``among`` narrows the string modes to those dates. Returns the ids
    moved, in the order of their new starts, and the booked dates kept.
    """
    movable = {row.id: row for row in drift if row.moves_to is not None}
    if isinstance(mode, frozenset):
        named = {str(item) for item in mode}
        chosen = {pk for pk in movable if str(pk) in named}
    else:
        chosen = set(movable) if among is None else {pk for pk in movable if pk in among}
    shown_booked = {pk for pk in chosen if movable[pk].booked}
    planned = {pk: movable[pk] for pk in chosen}
    planned.update({row.id: row for row in cancelled_moves})
    events = lock_movers(planned, modified=[pk for pk, row in planned.items() if row.is_modified])
    booked = booked_ids([event for event in events if event.pk in movable])
    may_move_booked = isinstance(mode, frozenset) or mode == "all"
    # With their people told, a booked date moves as a free one does (ticks still decide).
    told = people_told()
    staying = {pk for pk in booked if not (told or (may_move_booked and pk in shown_booked))}
    zone = series_zone(series)
    kept = [booked_date(event, zone) for event in events if event.pk in staying]
    moving = [event for event in events if event.pk not in staying]
    return write_moves(series, moving, planned), kept


def cancel_planned_drift(
    locked: EventSeries,
    plan: RecurrencePlan,
    mode: str | frozenset[Any],
    *,
    among: frozenset[Any] | None,
    now: dt.datetime,
) -> tuple[list[Any], list[BookedDate], list[PlannedOccurrence]]:
    """Cancel the plan's drifted dates ``mode`` asks for (of ``among`` only, when given);
    the ids cancelled and the dates kept."""
    kept_modified = [row for row in plan.drift if row.is_modified and row.moves_to is None]
    shown_booked = {row.id for row in plan.drift if row.bookings}
    candidates = [row.id for row in plan.drift if not row.is_modified and row.moves_to is None]
    if among is not None and not isinstance(mode, frozenset):
        candidates = [pk for pk in candidates if pk in among]
    if isinstance(mode, frozenset):
        # Dates that move (moves_to) may be named too: _move_drift moves them.
        by_text = {str(row.id): row.id for row in plan.drift if not row.is_modified}
        unknown = sorted(str(pk) for pk in mode if str(pk) not in by_text)
        if unknown:
            raise ValidationError(
                {
                    "cancel_drift": [
                        gettext(
                            "Not a drifted date of this plan: %(names)s. Name only dates "
                            "the plan lists under drift."
                        )
                        % {"names": ", ".join(unknown)}
                    ]
                }
            )
        named = {by_text[str(pk)] for pk in mode}
        ids: list[Any] = [pk for pk in candidates if pk in named]
        # A booked date goes only when the plan showed it booked: one booked
        # after the hash was checked (the host asked again under the row locks)
        # is kept and named.
        include: bool | Collection[Any] = named & shown_booked
    elif mode == "none":
        return [], [], kept_modified
    else:
        ids, include = candidates, shown_booked if mode == "all" else False
    if not ids:
        return [], [], kept_modified
    events, kept = cancel_stale_locked(
        locked, locked.recurrence_rule, ids=set(ids), include_booked=include, now=now
    )
    return [event.pk for event in events], kept, kept_modified


__all__ = [
    "CANCEL_DRIFT_MODES",
    "apply_recurrence_plan",
    "cancel_mode",
    "cancel_planned_drift",
    "current_drift",
    "move_planned",
    "move_to_partners",
    "plan_recurrence_change",
]
