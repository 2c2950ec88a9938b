"""Extra dates (RFC 5545 RDATE): dates of a series besides its rule's.

An extra date is an instant, stored in UTC in ``EventSeries.extra_dates`` beside
the exdates and shown on the rule zone's clock. Once added it is a date of the
series like the rule's (``EventSeries.dates_spec``): generated, previewed,
planned, cancelled and restored, exported as an RDATE. ``count`` bounds the
rule's own dates only (docs/decisions/0036-extra-dates.md).

Every writer holds the series lock: ``extra_dates`` is one JSON column, and two
unlocked read-modify-writes of it would lose one of them. A change plan replaces
the whole set in one step: :func:`plan_extra_dates` works it out without writing,
:func:`write_extra_dates` stores it under the plan's lock. There, unlike
:func:`remove_extra_date`, leaving out a date whose occurrence takes place is no
refusal: the occurrence is drift, shown with its bookings and kept unless the
organiser asks to cancel it.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from .. import rules
from ..context import suppress_event_notifications
from ..exceptions import OccurrenceHasBookingsError, SeriesNotReadyError
from ..instants import describe_instant
from ..models import EventSeries, RecurrenceRule, get_event_model
from ..signals import extra_date_changed
from ..validators import EXTRA_DATES_MAX
from .generation.floor import generate_locked
from .toolbox.bookings import booked_date, booked_ids, series_zone
from .toolbox.exdates import absorb_pending_exdates, drop_exdates
from .toolbox.locking import lock_series, retry_on_lock_conflict
from .toolbox.plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from .toolbox.scheduling import refresh_next_due_at, window_length

_WRITTEN = ("extra_dates", "exdates", "last_generated_until", "next_due_at")

#: The key of the extra dates in a change plan's ``changes``, and of its errors.
EXTRA_DATES_KEY = "extra_dates"


def _instant(value: object, *, key: str = "instant") -> dt.datetime:
    if not isinstance(value, dt.datetime) or not rules.is_aware(value):
        raise ValidationError(
            {
                key: [
                    gettext(
                        "Give the extra date as an aware date and time (with a UTC "
                        "offset), got %(value)s."
                    )
                    % {"value": repr(value)}
                ]
            }
        )
    # RFC 5545 DATE-TIME has no fraction of a second, and neither do the rule's dates.
    return rules.to_utc(value).replace(microsecond=0)


def _refusal(
    instant: dt.datetime,
    rule: RecurrenceRule,
    *,
    now: dt.datetime,
    current: Collection[dt.datetime],
    beside: Collection[dt.datetime] | None = None,
) -> str:
    """Why ``instant`` cannot become an extra date under ``rule``; empty when it can.

    ``beside`` are the extra dates it would join (``current`` by default): its fold
    twin among them, or among the rule's dates, is a refusal.
    """
    shown = describe_instant(instant, rule.timezone)
    if instant < now:
        return gettext("%(date)s is in the past; add a date still to come.") % {"date": shown}
    if instant < rules.to_utc(rule.dtstart):
        return gettext("%(date)s is before the series' first date; add a later date.") % {
            "date": shown
        }
    if instant in current:
        return gettext("%(date)s is an extra date of this series already.") % {"date": shown}
    spec = rule.to_spec()
    if rules.is_occurrence(spec, instant):
        return gettext("%(date)s is a date of the series' rule already.") % {"date": shown}
    twin = rules.fold_twin(instant, spec.zone)
    others = current if beside is None else beside
    if twin is not None and (twin in others or rules.is_occurrence(spec, twin)):
        return fold_twin_refusal(instant, twin, rule.timezone)
    return ""


def _over_limit(count: int) -> str:
    """Why a series cannot hold ``count`` extra dates; empty when it can."""
    if count <= EXTRA_DATES_MAX:
        return ""
    return gettext(
        "A series holds at most %(limit)d extra dates; this would give it %(count)d. "
        "Remove some first, or split the series."
    ) % {"limit": EXTRA_DATES_MAX, "count": count}


def _twice(instant: dt.datetime, zone: str | None) -> str:
    return gettext("%(date)s is given twice; give each extra date once.") % {
        "date": describe_instant(instant, zone)
    }


def _given_once(values: Iterable[object], series: EventSeries) -> tuple[dt.datetime, ...]:
    """``values`` as UTC instants, in order; ``ValidationError`` keyed ``instant`` naming
    each instant given more than once (in any zone: ``+01:00`` and ``Z`` of one instant
    are one date). A set of extra dates has each once, and every writer says so alike."""
    instants = tuple(_instant(value) for value in values)
    given = Counter(instants)
    repeated = sorted(instant for instant, times in given.items() if times > 1)
    if repeated:
        zone = series_zone(series)
        raise ValidationError({"instant": [_twice(instant, zone) for instant in repeated]})
    return instants


def fold_twin_refusal(instant: dt.datetime, twin: dt.datetime, zone: str) -> str:
    """Why ``instant`` cannot be a date beside ``twin``, its fold twin (same wall-clock time).

    A calendar app reads a date on the wall clock of the rule's zone, where the
    two are one time: subscribers would see one date where the series holds two
    (docs/decisions, extra dates in a DST fold).
    """
    return gettext(
        "%(date)s shows the same time on the clock as %(twin)s, a date of this series "
        "already (the clocks go back that night, so the hour happens twice); pick "
        "another time."
    ) % {"date": describe_instant(instant, zone), "twin": describe_instant(twin, zone)}


def _row_at(series: EventSeries, instant: dt.datetime) -> Any:
    return (
        get_event_model()
        ._default_manager.filter(series=series, is_template=False, recurrence_id=instant)
        .first()
    )


def add_extra_date(
    series: EventSeries, instant: dt.datetime, *, now: dt.datetime | None = None
) -> Any:
    """Add ``instant`` (aware, any zone) to the dates of ``series``; returns its occurrence or None.

    Under the series lock. Refused with a ``ValidationError`` keyed ``instant``
    when it is naive, in the past, before the rule's first date (dtstart), a
    date of the series already (of the rule, or an extra date), or the fold twin
    of one (the same wall-clock time in the rule's zone, an hour apart on a
    fall-back night: a calendar app would show one date), or when the series
    holds ``EXTRA_DATES_MAX`` extra dates already (past ones count); a series
    without a rule raises ``SeriesNotReadyError``. The instant is stored to the whole
    second. When generation has reached past it, or it falls inside the window,
    it is generated at once through the one generation path, and that host event
    is returned; otherwise the next due moment is refreshed and the dispatcher
    creates it in time. A stale exdate at the instant (of an extra date removed
    earlier) is dropped, unless a cancelled occurrence still holds it: then the
    date comes back cancelled, to be restored with ``restore_occurrence``.
    Sends ``extra_date_changed`` (``added=True``) after commit.
    """
    moment = now_utc(now)
    instant = _instant(instant)

    def attempt() -> tuple[EventSeries, Any]:
        with transaction.atomic():
            locked = lock_series(series.pk)
            rule = load_rule(locked)
            if rule is None:
                raise SeriesNotReadyError(
                    gettext(
                        "Series '%(series)s' has no recurrence rule; add extra dates to a"
                        " series with one."
                    )
                    % {"series": locked.name}
                )
            absorb_pending_exdates(locked)
            current = locked.extra_date_instants
            problem = _refusal(instant, rule, now=moment, current=current) or _over_limit(
                len(current) + 1
            )
            if problem:
                raise ValidationError({"instant": [problem]})
            row = _row_at(locked, instant)
            locked.extra_dates = rules.normalize_exdates([*locked.extra_dates, instant])
            if row is None:
                drop_exdates(locked, [instant])
            cursor = locked.last_generated_until
            event = None
            if (
                locked.is_active
                and locked.parked_at is None
                and cursor is not None
                and instant <= max(cursor, moment + window_length(locked))
            ):
                # Generation resumes strictly after the cursor: step back just before
                # the date, then generate to the later of the old cursor and the
                # date, so the cursor never ends behind where it was. Dates in
                # between are materialized or excluded already: skipped by slot.
                until = max(cursor, instant)
                locked.last_generated_until = min(cursor, instant - dt.timedelta(microseconds=1))
                with suppress_event_notifications():
                    generate_locked([locked], now=moment, until=until)
                event = _row_at(locked, instant)
            refresh_next_due_at(locked, now=moment)
            locked.save(update_fields=[*_WRITTEN, "updated_at"])
            send_after_commit(
                extra_date_changed, series=locked, instant=instant, added=True, occurrence=event
            )
        return locked, event

    locked, event = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    mirror_columns(series, locked, *_WRITTEN)
    return event


def remove_extra_date(
    series: EventSeries, instant: dt.datetime, *, now: dt.datetime | None = None
) -> None:
    """Remove the extra date ``instant`` (aware, any zone) from ``series``.

    Under the series lock. Refused with a ``ValidationError`` keyed ``instant``
    when it is no extra date of the series. A date materialized by an occurrence
    that still takes place is never withdrawn behind its back: one with bookings
    raises ``OccurrenceHasBookingsError`` naming it, one without a
    ``ValidationError`` asking to cancel or delete it first. An occurrence
    already cancelled keeps its row and its exdate; a date never materialized
    loses its exdate too (nothing is left for it to exclude). Sends
    ``extra_date_changed`` (``added=False``) after commit.
    """
    moment = now_utc(now)
    instant = _instant(instant)

    def attempt() -> EventSeries:
        with transaction.atomic():
            locked = lock_series(series.pk)
            rule = load_rule(locked)
            zone = rule.timezone if rule is not None else None
            shown = describe_instant(instant, zone)
            if instant not in locked.extra_date_instants:
                raise ValidationError(
                    {
                        "instant": [
                            gettext("%(date)s is not an extra date of this series.")
                            % {"date": shown}
                        ]
                    }
                )
            absorb_pending_exdates(locked)
            row = _row_at(locked, instant)
            if row is not None and not row.is_cancelled:
                if booked_ids([row]):
                    date = booked_date(row, zone)
                    raise OccurrenceHasBookingsError(
                        gettext(
                            "%(date)s of series '%(series)s' has bookings; its extra date"
                            " was not removed."
                        )
                        % {"date": date.display, "series": locked.name},
                        booked=[date],
                        field="instant",
                    )
                raise ValidationError(
                    {
                        "instant": [
                            gettext(
                                "%(date)s has an occurrence; cancel or delete it before "
                                "removing the extra date."
                            )
                            % {"date": shown}
                        ]
                    }
                )
            locked.extra_dates = rules.normalize_exdates(locked.extra_date_instants - {instant})
            if row is None:
                drop_exdates(locked, [instant])
            refresh_next_due_at(locked, now=moment)
            locked.save(update_fields=[*_WRITTEN, "updated_at"])
            send_after_commit(
                extra_date_changed, series=locked, instant=instant, added=False, occurrence=row
            )
        return locked

    locked = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    mirror_columns(series, locked, *_WRITTEN)


def add_extra_dates(series: EventSeries, instants: Iterable[dt.datetime]) -> list[Any]:
    """:func:`add_extra_date` for each of ``instants``; the occurrences generated at once.

    The same instant given twice (in two zones, say) is refused, as by
    :func:`replace_extra_dates` and a change plan (``ValidationError`` keyed
    ``instant`` naming it). Call it inside the caller's transaction: a refused
    date (``ValidationError`` keyed ``instant``) then undoes the others too.
    """
    created = []
    for instant in sorted(_given_once(instants, series)):
        event = add_extra_date(series, instant)
        if event is not None:
            created.append(event)
    return created


def replace_extra_dates(series: EventSeries, wanted: Iterable[dt.datetime]) -> list[Any]:
    """Make ``wanted`` the series' extra dates: remove those left out, add the new ones.

    Removals first (a date removed may be added again only as another instant).
    Inside the caller's transaction: a booked date refused
    (``OccurrenceHasBookingsError``) or a bad one undoes every other step. An
    instant given twice, or more than ``EXTRA_DATES_MAX`` dates, is refused
    before anything is written (``ValidationError`` keyed ``instant``). Returns
    the occurrences generated at once.
    """
    target = set(_given_once(wanted, series))
    problem = _over_limit(len(target))
    if problem:
        raise ValidationError({"instant": [problem]})
    current = series.extra_date_instants
    for instant in sorted(current - target):
        remove_extra_date(series, instant)
    return add_extra_dates(series, target - current)


def read_extra_dates(values: object) -> tuple[dt.datetime, ...]:
    """A change plan's ``extra_dates`` as UTC instants to the whole second, in the order given.

    Checks the shape only (a list of aware datetimes): a ``ValidationError`` keyed
    ``extra_dates`` otherwise. What the dates may be is :func:`plan_extra_dates`'
    question, which knows the series.
    """
    if isinstance(values, str | bytes | dict) or not isinstance(values, Iterable):
        raise ValidationError(
            {
                EXTRA_DATES_KEY: [
                    gettext("Give the extra dates as a list of aware date-times, got %(values)s.")
                    % {"values": repr(values)}
                ]
            }
        )
    return tuple(_instant(value, key=EXTRA_DATES_KEY) for value in values)


@dataclass(frozen=True)
class ExtraDatesChange:
    """A series' extra dates replaced by a whole new set, worked out without writing.

    :func:`plan_extra_dates` builds it; a change plan shows its outcome and
    :func:`write_extra_dates` stores it under the series lock.
    """

    #: The new ``extra_dates`` column, in its stored form.
    stored: list[str]
    added: frozenset[dt.datetime]
    removed: frozenset[dt.datetime]
    #: Excluded slots the change frees: an added date no occurrence holds (an
    #: exclusion left from an earlier life of that instant, as ``add_extra_date``
    #: drops it), and a removed date still to come that no occurrence holds and
    #: the rule does not have (nothing is left for it to exclude).
    lifted: frozenset[dt.datetime]

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def plan_extra_dates(
    series: EventSeries,
    rule: RecurrenceRule,
    wanted: Iterable[dt.datetime],
    *,
    held: Collection[dt.datetime],
    excluded: Collection[dt.datetime],
    now: dt.datetime,
) -> ExtraDatesChange:
    """``wanted`` as the whole new set of ``series``' extra dates under ``rule``; no query.

    ``rule`` is the rule the series will have (a change plan's new rule),
    ``held`` the slots its occurrences hold from ``now`` on (cancelled ones
    included), ``excluded`` its excluded slots (exdates and pending ones).
    ``wanted`` are instants as :func:`read_extra_dates` returns them. A date given
    twice, more than ``EXTRA_DATES_MAX`` dates, and a date that is not an extra
    date yet but is in the past, before the rule's dtstart, a date of the rule or
    the fold twin of another date (the same wall-clock time on a fall-back night),
    are refused with a ``ValidationError`` keyed ``extra_dates`` naming each.
    Dates kept from the current set are not
    checked again; removing one is never refused here: an occurrence that holds it
    becomes drift, for the plan to show and the caller to keep or cancel.
    """
    given = Counter(wanted)
    target = frozenset(given)
    current = series.extra_date_instants
    problems: list[str] = []
    for instant in sorted(target):
        if given[instant] > 1:
            problems.append(_twice(instant, rule.timezone))
        elif instant not in current:
            # Of two new fold twins, the later is refused: the first keeps its place.
            # Only the date's fold twin matters to _refusal: look it up, not every date.
            twin = rules.fold_twin(instant, rule.to_spec().zone)
            beside = (
                {twin}
                if twin is not None and twin in target and (twin in current or twin < instant)
                else set()
            )
            problem = _refusal(instant, rule, now=now, current=(), beside=beside)
            if problem:
                problems.append(problem)
    over = _over_limit(len(target))
    if over:
        problems.append(over)
    if problems:
        raise ValidationError({EXTRA_DATES_KEY: problems})
    added, removed = target - current, current - target
    own = rule.to_spec()
    lifted = {instant for instant in added if instant not in held} | {
        instant
        for instant in removed
        if instant >= now and instant not in held and not rules.is_occurrence(own, instant)
    }
    return ExtraDatesChange(
        stored=rules.normalize_exdates(target),
        added=added,
        removed=removed,
        lifted=frozenset(lifted) & frozenset(excluded),
    )


def write_extra_dates(locked: EventSeries, change: ExtraDatesChange) -> bool:
    """Store ``change`` on the locked series (not saved); whether anything changed.

    The caller holds the series lock, saves ``extra_dates`` and ``exdates``, and
    then resets the cursor and the next due moment (``change_schedule`` does).
    The pending exdates are folded in first, so a lifted slot goes from both.
    """
    if not change.changed:
        return False
    locked.extra_dates = change.stored
    if change.lifted:
        absorb_pending_exdates(locked)
        drop_exdates(locked, change.lifted)
    return True


__all__ = [
    "EXTRA_DATES_KEY",
    "ExtraDatesChange",
    "add_extra_date",
    "add_extra_dates",
    "plan_extra_dates",
    "read_extra_dates",
    "remove_extra_date",
    "replace_extra_dates",
    "write_extra_dates",
]
