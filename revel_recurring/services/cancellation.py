"""Cancelling one occurrence slot of a series, and the undo.

A slot is cancelled by writing its UTC instant into the series' exdates (so
generation never materializes it) and, when it is already materialized, by
setting that host event to the cancelled status. Both happen under the series
lock: exdates is one JSON column, and two unlocked read-modify-writes of it would
silently drop one organiser's cancellation.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext

from .. import rules
from ..context import suspend_modification_tracking
from ..exceptions import NotAnOccurrenceError, NotCancelledError, OccurrenceHasBookingsError
from ..exclusions import FOLDED, Exclusions, excluded_between
from ..instants import describe_instant
from ..mixins import RecurringEventMixin
from ..models import EventSeries, get_event_model
from ..signals import occurrence_cancelled, occurrence_restored
from .propagation import occurrence_error, reapply_template
from .toolbox.bookings import booked_date, booked_ids, series_zone
from .toolbox.exdates import absorb_pending_exdates, drop_exdates, keep_holiday_dates, merge_exdates
from .toolbox.locking import lock_rows, lock_series, retry_on_lock_conflict
from .toolbox.operation import dates_operation, notify_mode
from .toolbox.plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from .toolbox.scheduling import refresh_next_due_at


def _as_instant(value: dt.datetime) -> dt.datetime:
    if not isinstance(value, dt.datetime):
        raise NotAnOccurrenceError(
            gettext(
                "The occurrence must be given as an aware datetime (its start), got "
                "%(model)s %(value)s."
            )
            % {"model": type(value).__name__, "value": repr(value)}
        )
    try:
        return rules.to_utc(value)
    except ValueError:
        raise NotAnOccurrenceError(
            gettext(
                "Occurrence %(value)s has no time zone; give an aware datetime (any zone:"
                " it is compared as a UTC instant)."
            )
            % {"value": value.isoformat()}
        ) from None


def _find_materialized(series: EventSeries, instant: dt.datetime) -> Any:
    """The occurrence whose original slot or current start is ``instant``, or None.

    The original slot (``recurrence_id``) wins when both match different rows: it
    is the identity of a slot, and the row that merely moved onto that instant
    has a slot of its own.
    """
    model = get_event_model()
    start = model.RECURRING_START_FIELD
    candidates = list(
        lock_rows(
            model._default_manager.filter(series=series, is_template=False)
            .filter(Q(recurrence_id=instant) | Q(**{start: instant}))
            .order_by("pk")
        )
    )
    for candidate in candidates:
        if candidate.recurrence_id == instant:
            return candidate
    return candidates[0] if candidates else None


def _rule_has(series: EventSeries, instant: dt.datetime) -> bool:
    rule = load_rule(series)
    return rule is not None and rules.is_occurrence(series.dates_spec(rule), instant)


def _slot_instants(
    series: EventSeries, instant: dt.datetime, occurrence: Any, *also: dt.datetime
) -> set[dt.datetime]:
    """The exdate instants that stand for this occurrence.

    The original slot of the matched occurrence, plus the requested instant (and
    ``also``, e.g. its current start) so either form given to restore_occurrence
    later finds it again. An instant that is *another* slot of the rule (a moved
    occurrence sitting on a later slot's time) is left out: excluding it would
    cancel, or restore, that other slot as a side effect.
    """
    if occurrence is None or occurrence.recurrence_id is None:
        return {instant, *also}
    own = rules.to_utc(occurrence.recurrence_id)
    rule = load_rule(series)
    slots = {own}
    for value in (instant, *also):
        if value == own or rule is None or not rules.is_occurrence(series.dates_spec(rule), value):
            slots.add(value)
    return slots


def _locate(series: EventSeries, instant: dt.datetime) -> Any:
    """The materialized occurrence at ``instant`` (or None when it is only a rule slot).

    Raises NotAnOccurrenceError when the instant is neither.
    """
    event = _find_materialized(series, instant)
    if event is None and not _rule_has(series, instant):
        raise NotAnOccurrenceError(
            gettext(
                "%(date)s is not an occurrence of series '%(series)s': the rule has no "
                "slot then and no occurrence starts then."
            )
            % {"date": describe_instant(instant, series_zone(series)), "series": series.name}
        )
    return event


def cancel_occurrence(
    series: EventSeries,
    instant: dt.datetime,
    *,
    include_booked: bool = False,
    notify: object = None,
    now: dt.datetime | None = None,
) -> RecurringEventMixin | None:
    """Cancel the occurrence of ``series`` at ``instant`` (an aware datetime, any zone).

    Under the series lock: the UTC instant is added to exdates (stored once however
    many zones it is written in) and, if that slot is materialized (matched by
    original slot or by current start, as instants), the host event is saved with
    the cancelled status. Raises :class:`NotAnOccurrenceError` for an instant that
    is neither an occurrence of the rule nor a materialized occurrence. Cancelling
    a slot twice changes nothing the second time. A materialized occurrence that
    holds bookings (the host's ``booked_among`` hook) is refused with
    :class:`OccurrenceHasBookingsError`, naming its date, unless ``include_booked``
    is True: bookings are never cancelled without being asked for by name.
    Returns the cancelled host event,
    or None when the slot was not materialized yet. Sends ``occurrence_cancelled``
    after commit when something changed. The people booked on a cancelled date
    get one message each unless ``notify`` is "none" (None: the site's
    ``REVEL_RECURRING_NOTIFY_PEOPLE``).
    """
    moment = now_utc(now)
    instant = _as_instant(instant)
    notify = notify_mode(notify)

    def attempt() -> tuple[EventSeries, RecurringEventMixin | None]:
        with transaction.atomic():
            locked = lock_series(series.pk)
            with dates_operation("cancel", locked, notify=notify, now=moment):
                return _cancel_locked(locked, instant, include_booked=include_booked, now=moment)

    locked, event = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    mirror_columns(series, locked, "exdates", "next_due_at")
    return event


def _cancel_locked(
    locked: EventSeries, instant: dt.datetime, *, include_booked: bool, now: dt.datetime
) -> tuple[EventSeries, RecurringEventMixin | None]:
    """Cancel the slot at ``instant`` of the locked series; see :func:`cancel_occurrence`."""
    absorb_pending_exdates(locked)
    event = _locate(locked, instant)
    if not include_booked and event is not None and not event.is_cancelled and booked_ids([event]):
        date = booked_date(event, series_zone(locked))
        raise OccurrenceHasBookingsError(
            gettext(
                "%(date)s of series '%(series)s' has bookings and was not "
                "cancelled; include booked dates (include_booked) to cancel it "
                "with its bookings."
            )
            % {"date": date.display, "series": locked.name},
            booked=[date],
        )
    changed = merge_exdates(locked, _slot_instants(locked, instant, event))
    if changed:
        refresh_next_due_at(locked, now=now)
        locked.save(update_fields=["exdates", "next_due_at", "updated_at"])
    fields = event.mark_cancelled() if event is not None else []
    if fields:
        # Through save(): host receivers hear of the cancellation (to tell
        # attendees); status is not a tracked field, so is_modified stays.
        event.save(update_fields=fields)
        changed = True
    if changed:
        send_after_commit(occurrence_cancelled, series=locked, instant=instant, occurrence=event)
    return locked, event


def _catch_up_with_template(series: EventSeries, event: Any, *, now: dt.datetime) -> list[str]:
    """The template edits a cancelled occurrence missed, applied to it; fields changed.

    Propagation leaves cancelled rows alone, so a restored one would keep the values
    from before every edit propagated meanwhile. It gets the template's current
    propagatable values back, as an upcoming row that was never cancelled holds them,
    unless an organiser edited it on its own (``is_modified``: their values stay, as
    ``future_unmodified`` propagation keeps them). A past occurrence keeps its values,
    like every past row. Called under the series lock, which every template edit
    through ``update_template`` holds too, so the template read is its latest.
    """
    if event.is_modified or rules.to_utc(event.occurrence_start) < now:
        return []
    template = get_event_model()._default_manager.filter(series=series, is_template=True).first()
    if template is None:
        return []
    changed = reapply_template(event, template)
    # As propagation does: the host's validation runs on what the copy produced.
    if changed:
        try:
            event.full_clean()
        except ValidationError as exc:
            raise occurrence_error(event, exc) from exc
    return changed


#: The series columns a restore writes.
_RESTORE_WRITES = ("exdates", "holidays_kept", "last_generated_until", "next_due_at")


def restore_occurrence(
    series: EventSeries,
    instant: dt.datetime,
    *,
    notify: object = None,
    now: dt.datetime | None = None,
) -> RecurringEventMixin | None:
    """Undo :func:`cancel_occurrence` for the slot at ``instant``.

    The slot's exdate is removed. A cancelled materialized occurrence gets back the
    status it had before its cancellation (kept in ``status_before_cancellation``);
    one cancelled without a remembered status gets the status generation would
    give it today (open when the series auto-publishes, draft otherwise). A slot not
    materialized yet is created by the next generation run if it still lies ahead
    of ``now``; the cursor is moved back before it when it had already passed it.
    An upcoming occurrence not edited on its own (``is_modified`` false) also gets
    the template's current propagatable fields back: the template edits propagated
    while it was cancelled skipped it. Raises :class:`NotAnOccurrenceError` as
    cancel does, and :class:`NotCancelledError` when the slot is not cancelled.
    Returns the restored
    host event or None. Sends ``occurrence_restored`` after commit. The people
    booked on a restored date get one message each unless ``notify`` is "none".
    """
    moment = now_utc(now)
    instant = _as_instant(instant)
    notify = notify_mode(notify)

    def attempt() -> tuple[EventSeries, RecurringEventMixin | None]:
        with (
            transaction.atomic(),
            dates_operation(
                "restore", lock_series(series.pk), notify=notify, now=moment
            ) as operation,
        ):
            locked = operation.facts.series
            absorb_pending_exdates(locked)
            event, slots, excluded = _cancelled_at(locked, instant)
            event_cancelled = event is not None and event.is_cancelled
            _lift_exclusions(
                locked, instant, slots, excluded, materialized=event is not None, now=moment
            )
            if event_cancelled:
                _restore_row(locked, event, now=moment)
            send_after_commit(occurrence_restored, series=locked, instant=instant, occurrence=event)
        return locked, event

    locked, event = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    mirror_columns(series, locked, *_RESTORE_WRITES)
    return event


def _cancelled_at(
    locked: EventSeries, instant: dt.datetime
) -> tuple[Any, set[dt.datetime], Exclusions]:
    """What restoring ``instant`` undoes: the occurrence there, its slots, the exclusions.

    The occurrence is None when only a rule slot is cancelled there. Raises
    :class:`NotCancelledError` when neither the slots nor the occurrence are.
    """
    event = _locate(locked, instant)
    # Cancelled by its moved start, restored by its slot (or the reverse).
    moved_to = () if event is None else (rules.to_utc(event.occurrence_start),)
    slots = _slot_instants(locked, instant, event, *moved_to)
    excluded = excluded_between(locked, pending=FOLDED)
    event_cancelled = event is not None and event.is_cancelled
    if event is not None and not event_cancelled and not _any_in(slots, excluded):
        # A live occurrence was moved onto a slot that is itself cancelled:
        # the instant names that slot, not the occurrence sitting on it.
        event, slots = None, {instant}
    if not _any_in(slots, excluded) and not event_cancelled:
        raise NotCancelledError(
            gettext(
                "The occurrence at %(date)s of series '%(series)s' is not "
                "cancelled; there is nothing to restore."
            )
            % {"date": describe_instant(instant, series_zone(locked)), "series": locked.name}
        )
    return event, slots, excluded


def _lift_exclusions(
    locked: EventSeries,
    instant: dt.datetime,
    slots: set[dt.datetime],
    excluded: Exclusions,
    *,
    materialized: bool,
    now: dt.datetime,
) -> None:
    """Take ``slots`` out of the exclusions and let generation reach them again; saved."""
    drop_exdates(locked, slots)
    # A date a holiday skips is kept from now on: restoring it says "this
    # one takes place anyway" (the per-date override of a holiday rule).
    keep_holiday_dates(locked, excluded, slots)
    cursor = locked.last_generated_until
    if not materialized and cursor is not None and now <= instant <= cursor:
        # Generation resumes strictly after the cursor; step back just before
        # the slot so the next run sees it. Materialized slots in between are
        # skipped by recurrence_id, so nothing is created twice.
        locked.last_generated_until = instant - dt.timedelta(microseconds=1)
    refresh_next_due_at(locked, now=now)
    locked.save(update_fields=[*_RESTORE_WRITES, "updated_at"])


def _restore_row(locked: EventSeries, event: Any, *, now: dt.datetime) -> None:
    """The cancelled occurrence's status back, and the template edits it missed; saved."""
    model = get_event_model()
    fallback = model.RECURRING_STATUS_OPEN if locked.auto_publish else model.RECURRING_STATUS_DRAFT
    fields = event.mark_restored(fallback=fallback)
    fields += _catch_up_with_template(locked, event, now=now)
    with suspend_modification_tracking():
        event.save(update_fields=fields)


def _any_in(slots: set[dt.datetime], excluded: Exclusions) -> bool:
    return any(slot in excluded for slot in slots)


__all__ = ["cancel_occurrence", "restore_occurrence"]
