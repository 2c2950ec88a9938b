"""Extra dates (RFC 5545 RDATE): dates of a series besides its rule's.

An extra date is an instant, stored in UTC in ``EventSeries.extra_dates`` beside
the exdates and shown on the rule zone's clock. Once added it is a date of the
series like the rule's (``EventSeries.dates_spec``): generated, previewed,
planned, cancelled and restored, exported as an RDATE. ``count`` bounds the
rule's own dates only (docs/decisions/0036-extra-dates.md).

Both writers hold the series lock: ``extra_dates`` is one JSON column, and two
unlocked read-modify-writes of it would lose one of them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from .. import rules
from ..context import suppress_event_notifications
from ..exceptions import OccurrenceHasBookingsError, SeriesNotReadyError
from ..instants import describe_instant
from ..models import EventSeries, get_event_model
from ..signals import extra_date_changed
from .bookings import booked_date, booked_ids
from .exdates import absorb_pending_exdates, drop_exdates
from .generation.floor import generate_locked
from .locking import lock_series, retry_on_lock_conflict
from .plumbing import load_rule, mirror_columns, now_utc, send_after_commit
from .scheduling import refresh_next_due_at, window_length

_WRITTEN = ("extra_dates", "exdates", "last_generated_until", "next_due_at")


def _instant(value: object) -> dt.datetime:
    if not isinstance(value, dt.datetime) or not rules.is_aware(value):
        raise ValidationError(
            {
                "instant": [
                    f"Give the extra date as an aware date and time (with a UTC offset), "
                    f"got {value!r}."
                ]
            }
        )
    # RFC 5545 DATE-TIME has no fraction of a second, and neither do the rule's dates.
    return rules.to_utc(value).replace(microsecond=0)


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
    when it is naive, in the past, before the rule's first date (dtstart), or a
    date of the series already (of the rule, or an extra date); a series without
    a rule raises ``SeriesNotReadyError``. The instant is stored to the whole
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
                    f"Series '{locked.name}' has no recurrence rule; add extra dates to a "
                    "series with one."
                )
            absorb_pending_exdates(locked)
            shown = describe_instant(instant, rule.timezone)
            if instant < moment:
                problem = f"{shown} is in the past; add a date still to come."
            elif instant < rules.to_utc(rule.dtstart):
                problem = f"{shown} is before the series' first date; add a later date."
            elif instant in locked.extra_date_instants:
                problem = f"{shown} is an extra date of this series already."
            elif rules.is_occurrence(rule.to_spec(), instant):
                problem = f"{shown} is a date of the series' rule already."
            else:
                problem = ""
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
                    {"instant": [f"{shown} is not an extra date of this series."]}
                )
            absorb_pending_exdates(locked)
            row = _row_at(locked, instant)
            if row is not None and row.occurrence_status != row.RECURRING_STATUS_CANCELLED:
                if booked_ids([row]):
                    date = booked_date(row, zone)
                    raise OccurrenceHasBookingsError(
                        f"{date.display} of series '{locked.name}' has bookings; its extra "
                        "date was not removed.",
                        booked=[date],
                        field="instant",
                    )
                raise ValidationError(
                    {
                        "instant": [
                            f"{shown} has an occurrence; cancel or delete it before removing "
                            "the extra date."
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

    The same instant given twice (in two zones, say) is one date, not a refusal.
    Call it inside the caller's transaction: a refused date (``ValidationError``
    keyed ``instant``) then undoes the others too.
    """
    created = []
    for instant in sorted({_instant(value) for value in instants}):
        event = add_extra_date(series, instant)
        if event is not None:
            created.append(event)
    return created


def replace_extra_dates(series: EventSeries, wanted: Iterable[dt.datetime]) -> list[Any]:
    """Make ``wanted`` the series' extra dates: remove those left out, add the new ones.

    Removals first (a date removed may be added again only as another instant).
    Inside the caller's transaction: a booked date refused
    (``OccurrenceHasBookingsError``) or a bad one undoes every other step. Returns
    the occurrences generated at once.
    """
    target = {_instant(value) for value in wanted}
    current = series.extra_date_instants
    for instant in sorted(current - target):
        remove_extra_date(series, instant)
    return add_extra_dates(series, target - current)


__all__ = ["add_extra_date", "add_extra_dates", "remove_extra_date", "replace_extra_dates"]
