""" "This and following": split a series at one of its dates, in one transaction.

The original series ends before the date; a new series continues from it with
the original's rule and template plus the caller's changes. Occurrences from the
date on change series (their ids, bookings and tickets stay), exdates and extra
dates from the date on go with them, and the new series is generated to its window. Nothing is
deleted and recreated, and a booked date is never cancelled: a moved date that
does not fit the new rule is drift of the new series, for the organiser to plan.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from .. import rules
from ..context import suppress_event_notifications
from ..exceptions import PlanOutdatedError, SeriesNotReadyError
from ..host_model import single_line_fields
from ..instants import describe_instant
from ..models import EventSeries, OccurrenceChange, RecurrenceRule, get_event_model
from ..signals import series_split
from ..validators import (
    validate_dtstart_zone,
    validate_no_nul_characters,
    validate_rule_keys,
    validate_single_line_values,
)
from .drift import detect_cadence_drift
from .editing import merge_rule_changes
from .from_event import template_data_from_event
from .generation.floor import generate_locked
from .plans import RecurrencePlan
from .plans.compute import plan_outcome
from .plans.state import PlanState, read_plan_state
from .templates import build_template, save_template
from .toolbox.bookings import BookedDate, booked_dates, booked_ids
from .toolbox.exdates import absorb_pending_exdates, exdates_from, hand_over_exdates
from .toolbox.locking import lock_series, lock_several_series, retry_on_lock_conflict
from .toolbox.plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from .toolbox.scheduling import refresh_next_due_at


@dataclass(frozen=True)
class SplitResult:
    """What :func:`split_series` did."""

    #: The series split, now ending at ``last_before`` (fresh state).
    original: EventSeries
    #: The new series starting at ``at``.
    continuation: EventSeries
    #: The split instant (UTC) and the original's last slot before it (UTC).
    at: dt.datetime
    last_before: dt.datetime
    #: Ids of the occurrences that moved to the continuation, in start order.
    moved: list[Any]
    #: The occurrences generated for the continuation, in start order.
    created: list[Any]
    #: Moved dates that hold bookings and that the continuation's rule does not
    #: hold: kept as they are (drift of the continuation), never cancelled.
    kept_booked: list[BookedDate]


def split_series(
    series: EventSeries,
    *,
    at: dt.datetime,
    recurrence: Mapping[str, Any] | None = None,
    template: Mapping[str, Any] | None = None,
    name: str | None = None,
    plan_hash: str | None = None,
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
    - Occurrences whose slot is at or after ``at`` change series (one UPDATE;
      ids, bookings and related rows stay); those that fit the continuation's
      rule and were not edited by hand get the new template's propagatable
      fields (a date the new rule does not hold keeps the old details: it is
      drift, for the organiser to decide); their change stamp moves.
    - Exdates (and pending ones) at or after ``at`` go with them.
    - The continuation is generated to its window, or as far as the original
      was generated when that is later (one digest for what is created, none
      for what moved); ``series_split`` is sent after commit.

    One transaction under the locks of the original (and of its former
    continuation) in ascending id order: anything refused writes nothing. With
    ``plan_hash`` (from :func:`plan_split`), the plan is computed again under the
    locks and a different hash raises ``PlanOutdatedError`` with the fresh plan.
    """
    moment = now_utc(now)
    instant = _check_at(at)
    rule_changes = dict(recurrence or {})
    validate_rule_keys(rule_changes)
    template_changes = _check_template_changes(template or {})
    _check_name(name)

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
                raise SeriesNotReadyError(
                    gettext("%(series)s has no recurrence rule, so it cannot be split.")
                    % {"series": locked.name}
                )
            return _split_locked(
                locked,
                rule,
                follower,
                at=instant,
                rule_changes=rule_changes,
                template_changes=template_changes,
                name=name,
                plan_hash=plan_hash,
                now=moment,
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
    now: dt.datetime | None = None,
) -> RecurrencePlan:
    """What :func:`split_series` with the same arguments would do, written nowhere.

    A :class:`~revel_recurring.services.plans.RecurrencePlan` of the continuation:
    ``stay`` and ``drift`` are the occurrences that would move (drift: those the
    continuation's rule does not hold, with their bookings), ``new`` the dates its
    generation would create, ``hash`` what ``split_series(plan_hash=...)`` checks.
    The same validation as the split (``ValidationError`` keyed by field); no lock.
    """
    moment = now_utc(now)
    instant = _check_at(at)
    rule_changes = dict(recurrence or {})
    validate_rule_keys(rule_changes)
    template_changes = _check_template_changes(template or {})
    _check_name(name)
    fresh = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk)
    rule = fresh.recurrence_rule if fresh.recurrence_rule_id is not None else None
    if rule is None:
        raise SeriesNotReadyError(
            gettext("%(series)s has no recurrence rule, so it cannot be split.")
            % {"series": fresh.name}
        )
    prepared = _prepare(
        fresh,
        rule,
        at=instant,
        rule_changes=rule_changes,
        template_changes=template_changes,
        name=name,
        now=moment,
    )
    state = read_plan_state(fresh, now=moment)
    return _plan(
        fresh,
        rule,
        state,
        prepared,
        at=instant,
        template_changes=template_changes,
        name=name,
        now=moment,
    )


def _check_at(at: object) -> dt.datetime:
    if not isinstance(at, dt.datetime) or not rules.is_aware(at):
        raise ValidationError(
            {"at": [gettext("Give the date to split at as a date and time with a UTC offset.")]}
        )
    return rules.to_utc(at)


def _check_name(name: str | None) -> None:
    if name is not None:
        validate_single_line_values({"name": name}, ["name"])
        validate_no_nul_characters({"name": name})


def _check_template_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    model = get_event_model()
    allowed = set(model.PROPAGATABLE_FIELDS)
    refused = sorted(key for key in changes if key not in allowed)
    if refused:
        names = ", ".join(sorted(allowed)) or "none"
        raise ValidationError(
            {
                key: [
                    gettext(
                        "'%(key)s' cannot change at a split; the template fields that can"
                        " are: %(names)s."
                    )
                    % {"key": key, "names": names}
                ]
                for key in refused
            }
        )
    validate_single_line_values(changes, single_line_fields(model))
    validate_no_nul_characters(changes)
    return dict(changes)


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


def _former_continuation(locked: EventSeries) -> EventSeries | None:
    return EventSeries.objects.filter(split_from=locked).first()


@dataclass(frozen=True)
class _Prepared:
    """A split validated in memory: nothing written yet."""

    last_before: dt.datetime
    before: int
    new_rule: RecurrenceRule
    changed: set[str]
    original_template: Any
    new_template: Any
    continuation: EventSeries


def _prepare(
    locked: EventSeries,
    rule: RecurrenceRule,
    *,
    at: dt.datetime,
    rule_changes: Mapping[str, Any],
    template_changes: Mapping[str, Any],
    name: str | None,
    now: dt.datetime,
) -> _Prepared:
    """Validate the split and build the continuation's rule, template and row (unsaved)."""
    model = get_event_model()
    spec = rule.to_spec()
    zone = rule.timezone
    before = slots_before(rule, at)
    _refuse_bad_slot(spec, at, before, zone=zone, now=now, extra=locked.extra_date_instants)

    # The continuation's rule: the original's from `at` on, plus the changes.
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
    carried = RecurrenceRule(**base)
    merged, changed = merge_rule_changes(carried, rule_changes)
    if "dtstart" in rule_changes:
        validate_dtstart_zone(merged["dtstart"], merged["timezone"])
        if rules.to_utc(merged["dtstart"]) < at:
            raise ValidationError(
                {
                    "dtstart": [
                        gettext("The continuation cannot start before the split date %(date)s.")
                        % {"date": describe_instant(at, zone)}
                    ]
                }
            )
    new_rule = RecurrenceRule(**merged)
    new_rule.normalize()

    original_template = model._default_manager.filter(series=locked, is_template=True).first()
    if original_template is None:
        raise SeriesNotReadyError(
            gettext("%(series)s has no template event, so it cannot be split.")
            % {"series": locked.name}
        )
    data = template_data_from_event(original_template, start=merged["dtstart"])
    data.update(_as_attnames(model, template_changes))
    new_template = build_template(data, dtstart=merged["dtstart"])
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
    return _Prepared(
        last_before=before[-1],
        before=len(before),
        new_rule=new_rule,
        changed=changed,
        original_template=original_template,
        new_template=new_template,
        continuation=continuation,
    )


def _plan(
    locked: EventSeries,
    rule: RecurrenceRule,
    state: PlanState,
    prepared: _Prepared,
    *,
    at: dt.datetime,
    template_changes: Mapping[str, Any],
    name: str | None,
    now: dt.datetime,
) -> RecurrencePlan:
    """The split's plan: the rows that would move, judged by the continuation's rule."""
    judged = [row for row in state.rows if row.slot is not None and row.slot >= at]
    return plan_outcome(
        locked,
        rule,
        prepared.new_rule,
        prepared.continuation,
        state,
        judged=judged,
        changed=prepared.changed,
        cursor_reset=False,
        now=now,
        until=_horizon(locked, now),
        extra={
            "split_at": at.isoformat(),
            "template": {key: str(value) for key, value in sorted(template_changes.items())},
            "name": name,
        },
    )


def _horizon(original: EventSeries, now: dt.datetime) -> dt.datetime:
    """How far the continuation is generated: its window, or as far as the original was.

    Dates the original had materialized (bookable) beyond the window stay
    bookable on the continuation's rule too.
    """
    horizon = now + dt.timedelta(weeks=original.generation_window_weeks)
    cursor = original.last_generated_until
    return cursor if cursor is not None and cursor > horizon else horizon


def _split_locked(
    locked: EventSeries,
    rule: RecurrenceRule,
    follower: EventSeries | None,
    *,
    at: dt.datetime,
    rule_changes: Mapping[str, Any],
    template_changes: Mapping[str, Any],
    name: str | None,
    plan_hash: str | None,
    now: dt.datetime,
) -> tuple[EventSeries, SplitResult]:
    model = get_event_model()
    try:
        prepared = _prepare(
            locked,
            rule,
            at=at,
            rule_changes=rule_changes,
            template_changes=template_changes,
            name=name,
            now=now,
        )
    except ValidationError as exc:
        if plan_hash is None:
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
    if plan_hash is not None:
        state = read_plan_state(locked, now=now)
        plan = _plan(
            locked,
            rule,
            state,
            prepared,
            at=at,
            template_changes=template_changes,
            name=name,
            now=now,
        )
        if plan.hash != plan_hash.strip():
            raise PlanOutdatedError(
                gettext(
                    "%(series)s changed since this split was planned; review the fresh "
                    "plan and apply that one."
                )
                % {"series": locked.name},
                plan=plan,
            )
    last_before = prepared.last_before
    new_rule = prepared.new_rule
    original_template = prepared.original_template
    new_template = prepared.new_template
    continuation = prepared.continuation

    # Everything is validated: write.
    absorb_pending_exdates(locked)
    new_rule.save()
    continuation.recurrence_rule = new_rule
    # Both columns change here; the original's is saved with its new rule below.
    # (The continuation's extra dates were cut off the original's in _prepare.)
    hand_over_exdates(locked, continuation, at)
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
        save_template(continuation, new_template)
        model.clone_related(original_template, [new_template])

    moved = _move_rows(model, locked, continuation, at=at)
    # Moved dates the continuation's rule does not hold: drift, kept as they are.
    moving = set(moved)
    drifted = [pk for pk in detect_cadence_drift(continuation, now=now) if pk in moving]
    _propagate(model, moved, set(drifted), new_template)
    kept_booked = _booked_drift(model, drifted, new_rule.timezone)

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

    created: list[Any] = []
    if continuation.is_active:
        with suppress_event_notifications():
            run = generate_locked([continuation], now=now, until=_horizon(locked, now))
        if run.batches:
            created = run.batches[0].occurrences
    else:
        refresh_next_due_at(continuation, now=now)
        continuation.save(update_fields=["next_due_at", "updated_at"])
    send_after_commit(series_split, original=locked, continuation=continuation, at=at, moved=moved)
    return (
        locked,
        SplitResult(
            original=locked,
            continuation=continuation,
            at=at,
            last_before=last_before,
            moved=moved,
            created=created,
            kept_booked=kept_booked,
        ),
    )


def slots_before(rule: RecurrenceRule, at: dt.datetime) -> list[dt.datetime]:
    """The rule's own dates before ``at`` (UTC, from its start): the original's after a split.

    The last one is where the original ends; their number is what a COUNT rule's
    continuation no longer counts.
    """
    instant = rules.to_utc(at)
    return [
        slot
        for slot in rules.occurrences_between(rule.to_spec(), rule.dtstart, instant, inclusive=True)
        if slot < instant
    ]


def is_split_point(rule: RecurrenceRule, at: dt.datetime, *, now: dt.datetime) -> bool:
    """Whether :func:`split_series` takes ``at``: a date of the rule, to come, not its first."""
    return at >= now and rules.is_occurrence(rule.to_spec(), at) and bool(slots_before(rule, at))


def _refuse_bad_slot(
    spec: rules.RuleSpec,
    at: dt.datetime,
    before: list[dt.datetime],
    *,
    zone: str,
    now: dt.datetime,
    extra: frozenset[dt.datetime] = frozenset(),
) -> None:
    shown = describe_instant(at, zone)
    if at in extra and not rules.is_occurrence(spec, at):
        # The continuation's rule starts at `at`: an extra date would give it
        # another time of day. Its extra dates from `at` on go with it anyway.
        message = gettext("%(date)s is an extra date; split at a date of the series' rule.") % {
            "date": shown
        }
    elif not rules.is_occurrence(spec, at):
        message = gettext("%(date)s is not a date of this series; split at one of its dates.") % {
            "date": shown
        }
    elif at < now:
        message = gettext("%(date)s is in the past; split at a date still to come.") % {
            "date": shown
        }
    elif not before:
        message = gettext(
            "%(date)s is the series' first date; change the series itself instead."
        ) % {"date": shown}
    else:
        return
    raise ValidationError({"at": [message]})


def _move_rows(
    model: Any, locked: EventSeries, continuation: EventSeries, *, at: dt.datetime
) -> list[Any]:
    """Move the occurrences whose slot is at or after ``at``; a MOVED record for each.

    Three statements: the rows read, the change records (one INSERT), the move.
    Returns the moved ids in start order.
    """
    start = model.RECURRING_START_FIELD
    rows = list(
        model._default_manager.filter(series=locked, is_template=False, recurrence_id__gte=at)
        .order_by(start, "pk")
        .values_list("pk", "recurrence_id", "occurrence_index")
    )
    if not rows:
        return []
    # The original's change log says where each one went: a client syncing only
    # the original with modified_since learns they left, and for which series.
    OccurrenceChange.objects.bulk_create(
        [
            OccurrenceChange(
                series=locked,
                occurrence_pk=str(pk),
                recurrence_id=slot,
                occurrence_index=index,
                kind=OccurrenceChange.Kind.MOVED,
                moved_to=continuation,
            )
            for pk, slot, index in rows
        ]
    )
    moved = [pk for pk, _, _ in rows]
    stamp = {model.RECURRING_UPDATED_FIELD: timezone.now()} if model.RECURRING_UPDATED_FIELD else {}
    # QuerySet.update(): no save() signals, so is_modified stays as it is.
    model._default_manager.filter(pk__in=moved).update(series=continuation, **stamp)
    return moved


def _propagate(model: Any, moved: list[Any], drifted: set[Any], new_template: Any) -> None:
    """The new template's propagatable fields onto the moved dates that fit its rule.

    Those nobody edited by hand and not cancelled (cancelled ones get them when
    restored, as after a template edit). A date the new rule does not hold is
    still the old arrangement (Tuesday in the old room): it keeps its details
    until the organiser decides about it. One UPDATE.
    """
    fresh = {
        model._meta.get_field(name).attname: getattr(
            new_template, model._meta.get_field(name).attname
        )
        for name in model.PROPAGATABLE_FIELDS
    }
    if not fresh or not moved:
        return
    model._default_manager.filter(pk__in=moved, is_modified=False).exclude(pk__in=drifted).exclude(
        **{model.RECURRING_STATUS_FIELD: model.RECURRING_STATUS_CANCELLED}
    ).update(**fresh)


def _booked_drift(model: Any, drifted: list[Any], zone: str) -> list[BookedDate]:
    """The moved dates the continuation's rule does not hold that carry bookings."""
    if not drifted:
        return []
    events = list(
        model._default_manager.filter(pk__in=drifted).only("pk", model.RECURRING_START_FIELD)
    )
    booked = booked_ids(events)
    return booked_dates([event for event in events if event.pk in booked], zone=zone)


__all__ = ["SplitResult", "is_split_point", "plan_split", "slots_before", "split_series"]
