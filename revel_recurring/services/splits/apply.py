"""Splitting a series, or planning the split: one transaction under the series locks.

:func:`split_series` validates, reads the rows that move and judges them once,
by the continuation's rule (with a plan hash: the plan it recomputes for the hash
check is the plan it applies), then writes: the continuation with its rule and
template, the rows handed over, the original ended, the continuation generated.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from ... import rules
from ...context import suppress_event_notifications
from ...exceptions import PlanOutdatedError
from ...models import EventSeries, RecurrenceRule, get_event_model
from ...signals import series_split
from ..enrolments.carry import carry_enrolments
from ..generation.floor import generate_locked
from ..plans.apply import CancelDriftMode, cancel_mode, cancel_planned_drift, move_planned
from ..plans.digest import hash_matches
from ..plans.enrolled import with_enrolled
from ..plans.result import PlannedOccurrence, RecurrencePlan, plan_rows
from ..plans.state import read_plan_state
from ..plans.told import with_people_told
from ..templates import save_template
from ..toolbox.bookings import BookedDate
from ..toolbox.enrolled import local_day, zone_of
from ..toolbox.enrolled_counts import flag_enrolments
from ..toolbox.exdates import (
    absorb_pending_exdates,
    drop_exdates,
    hand_over_exdates,
    merge_exdates,
)
from ..toolbox.locking import lock_series, lock_several_series, retry_on_lock_conflict
from ..toolbox.operation import dates_operation, notify_mode, planning_for
from ..toolbox.plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from ..toolbox.scheduling import refresh_next_due_at
from .compute import Prepared, horizon, prepare, split_plan
from .inputs import SplitRequest, no_rule, read_request, title_follows_name
from .result import SplitResult
from .rows import drift_left_alone, move_rows, propagate


def split_series(
    series: EventSeries,
    *,
    at: dt.datetime,
    recurrence: Mapping[str, Any] | None = None,
    template: Mapping[str, Any] | None = None,
    name: str | None = None,
    holidays: Mapping[str, Any] | None = None,
    plan_hash: str | None = None,
    cancel_drift: CancelDriftMode | Collection[Any] = "none",
    notify: object = None,
    now: dt.datetime | None = None,
) -> SplitResult:
    """Split ``series`` at its slot ``at``: it ends before, a new series continues from it.

    - ``at`` must be an aware instant that is a date of the rule, not in the past
      and not the rule's first date (``ValidationError`` on ``at`` saying which).
    - The original's rule gets ``until`` = its last date before ``at`` (a COUNT
      rule becomes that UNTIL rule, and the continuation counts what was left;
      when that last date is dtstart itself, ``count=1`` says it instead),
      its past and present rows untouched.
    - The continuation gets the original's rule starting at ``at`` plus the
      ``recurrence`` changes (rule fields; a ``dtstart`` must not be before
      ``at``), a template copied from the original's plus the ``template``
      changes (only the host's ``PROPAGATABLE_FIELDS``), the original's window,
      flags and description, ``name`` (default: the original's) and
      ``split_from`` = the original. A continuation the original had already is
      re-linked to follow the new series, so the chain stays in date order.
      A new ``name`` without a title in ``template`` is the title of the dates
      too (:func:`~.inputs.title_follows_name`).
    - ``holidays`` (any of the four settings of
      :mod:`revel_recurring.holiday_settings`) changes the continuation's
      holiday calendar and policy; the original's go on otherwise.
    - Occurrences whose slot is at or after ``at`` change series (one UPDATE;
      ids, bookings and related rows stay), but cancelled dates of the old
      schedule the continuation's rule does not hold (they stay with the
      original, their exdates too).
    - A moved date the continuation's rule does not hold moves to its partner
      (:mod:`~revel_recurring.services.plans.partners`: the new rule's date in
      the same period) as a change plan's apply moves it, under ``cancel_drift``
      (the same modes and ticks: dates without bookings always move, booked
      ones under ``"all"`` or when named); one without a partner is cancelled
      as ``cancel_drift`` says (``"none"`` by default: kept as drift). Dates
      that fit the continuation's rule (moved ones included) and were not edited
      by hand get the new template's propagatable fields; a date left as drift
      keeps the old details; the change stamp moves.
    - Exdates (and pending ones) at or after ``at`` go with them.
    - The people booked on dates that change series (their calendars know them by
      the continuation's UID now), move or are cancelled get one message each
      unless ``notify`` is "none"; with them told, booked dates move as free ones.
    - The continuation is generated to its window, or as far as the original
      was generated when that is later (one digest for what is created, none
      for what moved); ``series_split`` is sent after commit.

    One transaction under the locks of the original (and of its former
    continuation) in ascending id order: anything refused writes nothing. With
    ``plan_hash`` (from :func:`plan_split`), the plan is computed again under the
    locks and a different hash raises ``PlanOutdatedError`` with the fresh plan;
    an equal one is the plan applied (booked dates it neither moves nor cancels
    are named in ``kept_booked``).
    """
    moment = now_utc(now)
    request = read_request(
        at=at, recurrence=recurrence, template=template, name=name, holidays=holidays
    )
    mode = cancel_mode(cancel_drift)
    notify = notify_mode(notify)

    def attempt() -> tuple[EventSeries, SplitResult]:
        with transaction.atomic():
            locked = lock_series(series.pk)
            follower = _former_continuation(locked)
            if follower is not None:
                # Both in ascending id order; the original is locked already and
                # always has the lower id (a continuation is created after it).
                lock_several_series([follower.pk])
            rule = load_rule(locked)
            if rule is None:
                raise no_rule(locked)
            watched = [locked] if follower is None else [locked, follower]
            with dates_operation(
                "split", watched, notify=notify, plan_hash=plan_hash or "", now=moment
            ):
                return _split_locked(
                    locked, rule, follower, request, plan_hash=plan_hash, mode=mode, now=moment
                )

    locked, result = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    mirror_columns(
        series, locked, "exdates", "extra_dates", "holidays_kept", "next_due_at", "updated_at"
    )
    series.recurrence_rule = locked.recurrence_rule
    return result


def plan_split(
    series: EventSeries,
    *,
    at: dt.datetime,
    recurrence: Mapping[str, Any] | None = None,
    template: Mapping[str, Any] | None = None,
    name: str | None = None,
    holidays: Mapping[str, Any] | None = None,
    notify: object = None,
    now: dt.datetime | None = None,
) -> RecurrencePlan:
    """What :func:`split_series` with the same arguments would do, written nowhere.

    A :class:`~revel_recurring.services.plans.RecurrencePlan` of the continuation:
    ``stay`` and ``drift`` are the occurrences that would move (drift: those the
    continuation's rule does not hold, with their bookings), ``new`` the dates its
    generation would create, ``hash`` what ``split_series(plan_hash=...)`` checks.
    The same validation as the split (``ValidationError`` keyed by field); no lock.
    ``notify`` as the split will be told: with the people told, booked dates that
    can move are shown moving. ``people_told``: the people booked on the dates that
    change series.
    """
    moment = now_utc(now)
    request = read_request(
        at=at, recurrence=recurrence, template=template, name=name, holidays=holidays
    )
    fresh = flag_enrolments(EventSeries.objects.select_related("recurrence_rule")).get(pk=series.pk)
    rule = fresh.recurrence_rule if fresh.recurrence_rule_id is not None else None
    if rule is None:
        raise no_rule(fresh)
    request = title_follows_name(request, fresh)
    prepared = prepare(fresh, rule, request, now=moment)
    state = read_plan_state(fresh, now=moment)
    with planning_for(notify):
        plan = split_plan(fresh, rule, state, prepared, request, now=moment)
    # The enrolments the continuation takes on: those reaching the split day.
    plan = with_enrolled(
        plan,
        fresh,
        day=local_day(request.at, zone_of(fresh)),
        now=moment,
        books_new=prepared.continuation.auto_publish,
    )
    if notify_mode(notify) == "none":
        return plan
    return with_people_told(plan, state, split=True)


def _former_continuation(locked: EventSeries) -> EventSeries | None:
    return EventSeries.objects.filter(split_from=locked).first()


def _split_locked(
    locked: EventSeries,
    rule: RecurrenceRule,
    follower: EventSeries | None,
    request: SplitRequest,
    *,
    plan_hash: str | None,
    mode: str | frozenset[Any],
    now: dt.datetime,
) -> tuple[EventSeries, SplitResult]:
    """The split under the locks: validate and plan, then write, then generate."""
    at = request.at
    request = title_follows_name(request, locked)
    prepared = _prepare_planned(locked, rule, request, planned=plan_hash is not None, now=now)
    state = read_plan_state(locked, now=now)
    plan = split_plan(locked, rule, state, prepared, request, now=now)
    if plan_hash is not None:
        _check_hash(
            locked,
            plan,
            plan_hash,
            bookings_seen=mode not in ("none", "unbooked"),
            day=local_day(at, zone_of(locked)),
            books_new=prepared.continuation.auto_publish,
            now=now,
        )

    # Everything is validated: write.
    absorb_pending_exdates(locked)
    staying = [row for row in plan.cancelled_off if row.slot is not None]
    continuation = _save_continuation(locked, follower, prepared, at=at, staying=staying)
    model = get_event_model()
    moved = move_rows(model, locked, continuation, at=at, keep={row.id for row in staying})
    carry_enrolments(locked, continuation, at=at, moved=moved)
    # The dates the continuation's rule does not hold: moved to their partners or
    # cancelled as ticked (the unbooked ones move anyway), the rest kept as they are.
    rescheduled, kept_in_place = move_planned(continuation, plan.drift, plan.cancelled_moves, mode)
    cancelled, kept_booked, kept_modified = cancel_planned_drift(
        continuation, plan, mode, among=None, now=now
    )
    gone = {*rescheduled, *cancelled}
    drifted = drift_left_alone([row for row in plan.drift if row.id not in gone], moved, now=now)
    propagate(model, moved, {row.id for row in drifted}, prepared.new_template)
    _end_original(locked, rule, at=at, last_before=prepared.last_before, now=now)
    created = _generate_continuation(continuation, original=locked, now=now)
    send_after_commit(series_split, original=locked, continuation=continuation, at=at, moved=moved)
    return (
        locked,
        SplitResult(
            original=locked,
            continuation=continuation,
            at=at,
            last_before=prepared.last_before,
            moved=moved,
            created=created,
            kept_booked=_kept_booked(plan, [*kept_in_place, *kept_booked], gone),
            rescheduled=rescheduled,
            cancelled=cancelled,
            kept_modified=kept_modified,
            moved_cancelled=_cancelled_among(plan, moved),
            plan=plan,
        ),
    )


def _kept_booked(plan: RecurrencePlan, kept: list[BookedDate], gone: set[Any]) -> list[BookedDate]:
    """The booked dates the new rule does not hold that the split left where they were:
    those the services kept (booked since the plan, or not asked to move), and those
    the plan showed booked that the ticks left alone; in start order."""
    found = {str(date.id): date for date in kept}
    for row in plan.drift:
        if row.booked and not row.is_modified and row.id not in gone:
            found.setdefault(
                str(row.id), BookedDate(id=row.id, start=row.start, display=row.display)
            )
    return sorted(found.values(), key=lambda date: (date.start, str(date.id)))


def _cancelled_among(plan: RecurrencePlan, moved: list[Any]) -> list[Any]:
    """The ids of ``moved`` that were cancelled before the split (in the plan's reading)."""
    model = get_event_model()
    cancelled = model.RECURRING_STATUS_CANCELLED
    handed = set(moved)
    return [
        row.id
        for row in plan_rows(plan)
        if row.id in handed and model.is_status(row.status, cancelled)
    ]


def _prepare_planned(
    locked: EventSeries,
    rule: RecurrenceRule,
    request: SplitRequest,
    *,
    planned: bool,
    now: dt.datetime,
) -> Prepared:
    """:func:`prepare`; for a planned split a refusal says the plan is outdated, and why."""
    try:
        return prepare(locked, rule, request, now=now)
    except ValidationError as exc:
        if not planned:
            raise
        # The planned split was valid when planned: the series changed since
        # (another split took the date, for one). Outdated, with the reason.
        reasons = " ".join(exc.messages)
        raise PlanOutdatedError(
            gettext(
                "%(series)s changed since this split was planned, and the split no longer"
                " applies: %(reasons)s"
            )
            % {"series": locked.name, "reasons": reasons},
            plan=None,
        ) from None


def _check_hash(
    locked: EventSeries,
    plan: RecurrencePlan,
    plan_hash: str,
    *,
    bookings_seen: bool,
    day: dt.date,
    books_new: bool,
    now: dt.datetime,
) -> None:
    """``PlanOutdatedError`` with the fresh ``plan`` (its enrolled users counted from the
    split ``day``) unless its hash is ``plan_hash``
    (:func:`~revel_recurring.services.plans.digest.hash_matches`: which drifted dates
    are booked counts only when the split may move or cancel booked ones)."""
    if not hash_matches(plan.hash, plan_hash, bookings_seen=bookings_seen):
        plan = with_enrolled(plan, locked, day=day, now=now, books_new=books_new)
        raise PlanOutdatedError(
            gettext(
                "%(series)s changed since this split was planned; review the fresh "
                "plan and apply that one."
            )
            % {"series": locked.name},
            plan=plan,
        )


def _save_continuation(
    locked: EventSeries,
    follower: EventSeries | None,
    prepared: Prepared,
    *,
    at: dt.datetime,
    staying: list[PlannedOccurrence],
) -> EventSeries:
    """Save the continuation with its rule, its exdates from ``at`` on and its template,
    linked after the original (and before the original's former continuation).

    The exdates of ``staying`` (cancelled dates of the old schedule only, which stay
    with the original) stay with the original."""
    model = get_event_model()
    continuation = prepared.continuation
    prepared.new_rule.save()
    continuation.recurrence_rule = prepared.new_rule
    # Both columns change here; the original's is saved in _end_original.
    # (The continuation's extra dates were cut off the original's in prepare.)
    hand_over_exdates(locked, continuation, at)
    slots = [row.slot for row in staying if row.slot is not None]
    if slots:
        drop_exdates(continuation, slots)
        merge_exdates(locked, slots)
    continuation.split_from = locked
    if follower is not None:
        # A OneToOne link: the former continuation lets go before the new one takes it.
        EventSeries.objects.filter(pk=follower.pk).update(split_from=None)
    continuation.save()
    if follower is not None:
        EventSeries.objects.filter(pk=follower.pk).update(split_from=continuation)
    # A blueprint, not an event anyone attends: the host's per-event
    # notifications stay quiet for it, as for everything a batch writes.
    with suppress_event_notifications():
        save_template(continuation, prepared.new_template)
        model.clone_related(prepared.original_template, [prepared.new_template])
    return continuation


def _end_original(
    locked: EventSeries,
    rule: RecurrenceRule,
    *,
    at: dt.datetime,
    last_before: dt.datetime,
    now: dt.datetime,
) -> None:
    """End the original's rule at ``last_before``; its extra and kept holiday dates from
    ``at`` on went to the continuation."""
    if last_before == rules.to_utc(rule.dtstart):
        # One date left: "until = dtstart" is refused by the validators (an end
        # must come after the start), and COUNT=1 says the same.
        rule.until, rule.count = None, 1
    else:
        rule.until, rule.count = last_before, None
    rule.save()
    locked.recurrence_rule = rule
    # Extra dates go with the rule's dates: those from `at` on to the continuation.
    locked.extra_dates = rules.split_stored(locked.extra_dates, at)[0]
    locked.holidays_kept = rules.split_stored(locked.holidays_kept or [], at)[0]
    refresh_next_due_at(locked, now=now)
    locked.save(
        update_fields=["exdates", "extra_dates", "holidays_kept", "next_due_at", "updated_at"]
    )


def _generate_continuation(
    continuation: EventSeries, *, original: EventSeries, now: dt.datetime
) -> list[Any]:
    """Generate an active continuation as far as :func:`~.compute.horizon` says (no
    per-event notifications); the occurrences created, in start order."""
    if continuation.is_active:
        with suppress_event_notifications():
            run = generate_locked([continuation], now=now, until=horizon(original, now))
        return run.batches[0].occurrences if run.batches else []
    refresh_next_due_at(continuation, now=now)
    continuation.save(update_fields=["next_due_at", "updated_at"])
    return []


__all__ = ["plan_split", "split_series"]
