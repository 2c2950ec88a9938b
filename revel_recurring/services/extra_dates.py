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
organiser asks to cancel it. What an extra date may be, and the plan's steps,
are :mod:`revel_recurring.services.toolbox.extra_dates` (re-exported here).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from .. import rules
from ..context import suppress_event_notifications
from ..exceptions import OccurrenceHasBookingsError, SeriesNotReadyError
from ..instants import describe_instant
from ..models import EventSeries, get_event_model
from ..signals import extra_date_changed
from .generation.floor import generate_locked
from .toolbox.bookings import booked_date, booked_ids, series_zone
from .toolbox.exdates import absorb_pending_exdates, drop_exdates
from .toolbox.extra_dates import (
    EXTRA_DATES_KEY,
    ExtraDatesChange,
    extra_date_instant,
    extra_date_refusal,
    fold_twin_refusal,
    given_twice_refusal,
    over_limit_refusal,
    plan_extra_dates,
    read_extra_dates,
    write_extra_dates,
)
from .toolbox.locking import lock_series, retry_on_lock_conflict
from .toolbox.operation import series_operation
from .toolbox.plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from .toolbox.scheduling import refresh_next_due_at, window_length

_WRITTEN = ("extra_dates", "exdates", "last_generated_until", "next_due_at")


def _given_once(values: Iterable[object], series: EventSeries) -> tuple[dt.datetime, ...]:
    """``values`` as UTC instants, in order; ``ValidationError`` keyed ``instant`` naming
    each instant given more than once (in any zone: ``+01:00`` and ``Z`` of one instant
    are one date). A set of extra dates has each once, and every writer says so alike."""
    instants = tuple(extra_date_instant(value) for value in values)
    given = Counter(instants)
    repeated = sorted(instant for instant, times in given.items() if times > 1)
    if repeated:
        zone = series_zone(series)
        raise ValidationError(
            {"instant": [given_twice_refusal(instant, zone) for instant in repeated]}
        )
    return instants


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
    instant = extra_date_instant(instant)

    def attempt() -> tuple[EventSeries, Any]:
        with transaction.atomic(), series_operation("extra_date", series, now=moment):
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
            problem = extra_date_refusal(
                instant, rule, now=moment, current=current
            ) or over_limit_refusal(len(current) + 1)
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
    instant = extra_date_instant(instant)

    def attempt() -> EventSeries:
        with transaction.atomic(), series_operation("extra_date", series, now=moment):
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


def add_extra_dates(
    series: EventSeries, instants: Iterable[dt.datetime], *, now: dt.datetime | None = None
) -> list[Any]:
    """:func:`add_extra_date` for each of ``instants``; the occurrences generated at once.

    The same instant given twice (in two zones, say) is refused, as by
    :func:`replace_extra_dates` and a change plan (``ValidationError`` keyed
    ``instant`` naming it). Call it inside the caller's transaction: a refused
    date (``ValidationError`` keyed ``instant``) then undoes the others too.
    """
    created: list[Any] = []
    given = sorted(_given_once(instants, series))
    if not given:
        return created
    with transaction.atomic(), series_operation("extra_date", series, now=now):
        for instant in given:
            event = add_extra_date(series, instant, now=now)
            if event is not None:
                created.append(event)
    return created


def replace_extra_dates(
    series: EventSeries, wanted: Iterable[dt.datetime], *, now: dt.datetime | None = None
) -> list[Any]:
    """Make ``wanted`` the series' extra dates: remove those left out, add the new ones.

    Removals first (a date removed may be added again only as another instant).
    Inside the caller's transaction: a booked date refused
    (``OccurrenceHasBookingsError``) or a bad one undoes every other step. An
    instant given twice, or more than ``EXTRA_DATES_MAX`` dates, is refused
    before anything is written (``ValidationError`` keyed ``instant``). Returns
    the occurrences generated at once.
    """
    target = set(_given_once(wanted, series))
    problem = over_limit_refusal(len(target))
    if problem:
        raise ValidationError({"instant": [problem]})
    current = series.extra_date_instants
    if current == target:
        return []
    with transaction.atomic(), series_operation("extra_date", series, now=now):
        for instant in sorted(current - target):
            remove_extra_date(series, instant, now=now)
        return add_extra_dates(series, target - current, now=now)


__all__ = [
    "EXTRA_DATES_KEY",
    "ExtraDatesChange",
    "add_extra_date",
    "add_extra_dates",
    "fold_twin_refusal",
    "plan_extra_dates",
    "read_extra_dates",
    "remove_extra_date",
    "replace_extra_dates",
    "write_extra_dates",
]
