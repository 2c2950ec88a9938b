"""Enrolling a user in a series, ending it, skipping one date and taking it back.

Each runs in its own transaction under the series lock, like every writer of the
series' dates, so it never races the daily pass booking the same dates: a date is
booked once, and never lost between an enrolment and a run.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from ...exceptions import EnrolmentDateError, EnrolmentsUnavailableError, InvalidArgumentError
from ...models import Enrolment, EnrolmentDate, EventSeries, get_event_model
from ..toolbox.enrolled import (
    EnrolmentBatch,
    book_enrolled_rows,
    bookable,
    host_enrols,
    local_day,
    release_dates,
    zone_of,
)
from ..toolbox.locking import lock_series, retry_on_lock_conflict
from ..toolbox.plumbing import load_rule, now_utc
from .carry import locked_continuations


@dataclass(frozen=True)
class EnrolmentResult:
    """An enrolment as a change left it, with the dates that change booked or released."""

    enrolment: Enrolment
    batch: EnrolmentBatch
    released: int = 0


def _require_host() -> None:
    if not host_enrols():
        raise EnrolmentsUnavailableError(
            gettext("This site books no enrolled users: its event model has no book_enrolled hook.")
        )


def _user_key(user: Any) -> str:
    key = getattr(user, "pk", user)
    if key is None or str(key) == "":
        raise InvalidArgumentError(gettext("An enrolment needs a saved user."), field="user")
    return str(key)


def _future_rows(series: EventSeries, now: dt.datetime, pks: list[str] | None = None) -> list[Any]:
    model = get_event_model()
    start = model.RECURRING_START_FIELD
    rows = model._base_manager.filter(
        series_id=series.pk, is_template=False, **{f"{start}__gt": now}
    )
    if pks is not None:
        rows = rows.filter(pk__in=pks)
    return list(rows.order_by(start))


def enrol(
    series: EventSeries,
    user: Any,
    *,
    starts_on: dt.date | None = None,
    ends_on: dt.date | None = None,
    by: Any = None,
    now: dt.datetime | None = None,
) -> EnrolmentResult:
    """Enrol ``user`` in ``series`` from ``starts_on`` (default: today on the series' clock).

    Books them at once on every open date to come that the enrolment covers, and
    on each date created later (generation books it). Enrolling again changes the
    days of the existing enrolment (one per user and series). In a series that was
    split, the days from the split day on go to the continuation, as the split
    carries the enrolments it finds (the answer is the first enrolment made). ``by`` is who did it
    (the user or an organiser). Raises :class:`EnrolmentsUnavailableError` on a host
    without the booking hook, :class:`InvalidArgumentError` (field ``ends_on``) for
    an end before the start.
    """
    _require_host()
    moment = now_utc(now)
    key = _user_key(user)

    def attempt() -> EnrolmentResult:
        with transaction.atomic():
            locked = lock_series(series.pk)
            load_rule(locked)
            today = local_day(moment, zone_of(locked))
            first = starts_on or today
            if ends_on is not None and ends_on < first:
                raise InvalidArgumentError(
                    gettext("The enrolment cannot end before it starts."), field="ends_on"
                )
            made: list[EnrolmentResult] = []
            for half, half_first, half_end in _halves(locked, first, ends_on):
                enrolment, created = Enrolment.objects.update_or_create(
                    series=half,
                    user_pk=key,
                    defaults={
                        "starts_on": half_first,
                        "ends_on": half_end,
                        "ended_at": None,
                        "created_by_pk": "" if by is None else _user_key(by),
                    },
                )
                # Enrolling again with other days: what they no longer cover is released.
                released = 0 if created else _release_uncovered(enrolment, half, moment)
                batch = book_enrolled_rows(
                    _future_rows(half, moment), {half.pk: half}, now=moment, users=[key]
                )
                made.append(EnrolmentResult(enrolment, batch, released=released))
            return made[0]

    return retry_on_lock_conflict(attempt, series_ids=[series.pk])


def _halves(
    locked: EventSeries, first: dt.date, last: dt.date | None
) -> list[tuple[EventSeries, dt.date, dt.date | None]]:
    """Where an enrolment of ``locked`` from ``first`` to ``last`` goes: ``locked`` and, when
    it was split, each continuation from its first day on (as the split carries one).

    A series never split: ``locked`` alone. An enrolment starting on or after a split day
    goes to the continuation alone; one ending before it stays in ``locked``.
    """
    halves = [(locked, first, last)]
    for continuation, day in locked_continuations(locked):
        series, start, end = halves[-1]
        if end is not None and end < day:
            break
        if start >= day:
            halves.pop()
        else:
            halves[-1] = (series, start, day - dt.timedelta(days=1))
        halves.append((continuation, max(start, day), end))
    return halves


def end_enrolment(
    enrolment: Enrolment, *, on: dt.date | None = None, now: dt.datetime | None = None
) -> EnrolmentResult:
    """End ``enrolment`` after the day ``on`` (default: now) and release what it booked after.

    Releases, in one host call, the dates still to come that were booked through
    the enrolment (state "booked") and fall after ``on``; a date the user booked on
    their own, or one already past, is left alone.
    """
    _require_host()
    moment = now_utc(now)

    def attempt() -> EnrolmentResult:
        with transaction.atomic():
            locked = lock_series(enrolment.series_id)
            load_rule(locked)
            zone = zone_of(locked)
            fresh = Enrolment.objects.get(pk=enrolment.pk)
            last = on if on is not None else local_day(moment, zone) - dt.timedelta(days=1)
            fresh.ends_on = max(last, fresh.starts_on - dt.timedelta(days=1))
            fresh.ended_at = moment
            fresh.save(update_fields=["ends_on", "ended_at"])
            released = _release_uncovered(fresh, locked, moment)
            return EnrolmentResult(fresh, EnrolmentBatch(), released=released)

    result = retry_on_lock_conflict(attempt, series_ids=[enrolment.series_id])
    enrolment.ends_on, enrolment.ended_at = result.enrolment.ends_on, result.enrolment.ended_at
    return result


def _release_uncovered(enrolment: Enrolment, locked: EventSeries, now: dt.datetime) -> int:
    """Release the dates to come booked through ``enrolment`` that its days no longer cover.

    By the rows' starts now (a booked date may have moved since it was booked), in
    one host call; dates the user booked on their own are not the enrolment's to
    release. How many were released.
    """
    zone = zone_of(locked)
    pks = list(
        EnrolmentDate.objects.filter(
            series_id=locked.pk, user_pk=enrolment.user_pk, state=EnrolmentDate.State.BOOKED
        ).values_list("occurrence_pk", flat=True)
    )
    rows = [
        row
        for row in _future_rows(locked, now, pks)
        if not enrolment.covers(local_day(row.occurrence_start, zone))
    ]
    release_dates(
        [(row, enrolment.user_pk) for row in rows], state=EnrolmentDate.State.RELEASED, now=now
    )
    return len(rows)


def _enrolled_row(enrolment: Enrolment, occurrence: Any, now: dt.datetime) -> Any:
    """The locked series' row ``occurrence`` (an event or its key), checked for a skip."""
    key = getattr(occurrence, "pk", occurrence)
    rows = _future_rows(enrolment.series, now, [str(key)])
    if not rows:
        raise EnrolmentDateError(
            gettext("Only a date of this series still to come can be skipped or taken back.")
        )
    row = rows[0]
    if not enrolment.covers(local_day(row.occurrence_start, zone_of(enrolment.series))):
        raise EnrolmentDateError(gettext("The enrolment does not cover this date."))
    return row


def skip_date(
    enrolment: Enrolment, occurrence: Any, *, now: dt.datetime | None = None
) -> EnrolmentDate:
    """Skip one date: the host releases the booking the enrolment made on it (its waitlist
    may move).

    A booking the user made on their own (the date is ``held``) is theirs to cancel
    as they made it: the date is marked skipped and the booking left alone. The date
    stays skipped: neither generation nor a restore books it again until the user
    takes it back (:func:`take_back_date`).
    """
    _require_host()
    moment = now_utc(now)

    def attempt() -> EnrolmentDate:
        with transaction.atomic():
            locked = lock_series(enrolment.series_id)
            load_rule(locked)
            fresh = Enrolment.objects.select_related("series").get(pk=enrolment.pk)
            fresh.series = locked
            row = _enrolled_row(fresh, occurrence, moment)
            own = EnrolmentDate.objects.filter(
                user_pk=fresh.user_pk, occurrence_pk=str(row.pk), state=EnrolmentDate.State.HELD
            ).exists()
            release_dates(
                [(row, fresh.user_pk)],
                state=EnrolmentDate.State.SKIPPED,
                now=moment,
                keep={(fresh.user_pk, str(row.pk))} if own else (),
            )
            return EnrolmentDate.objects.get(user_pk=fresh.user_pk, occurrence_pk=str(row.pk))

    return retry_on_lock_conflict(attempt, series_ids=[enrolment.series_id])


def take_back_date(
    enrolment: Enrolment, occurrence: Any, *, now: dt.datetime | None = None
) -> EnrolmentDate:
    """Take back a skipped date while it is open and to come: the host books it again.

    The answer may be a refusal (the place went to someone on the waitlist): the
    date's state then says so, with the host's reason.
    """
    _require_host()
    moment = now_utc(now)

    def attempt() -> EnrolmentDate:
        with transaction.atomic():
            locked = lock_series(enrolment.series_id)
            load_rule(locked)
            fresh = Enrolment.objects.get(pk=enrolment.pk)
            fresh.series = locked
            row = _enrolled_row(fresh, occurrence, moment)
            if not bookable(get_event_model(), row, moment):
                raise EnrolmentDateError(gettext("This date is not open for bookings."))
            book_enrolled_rows(
                [row],
                {locked.pk: locked},
                now=moment,
                users=[fresh.user_pk],
                retry=(EnrolmentDate.State.SKIPPED,),
                tell="none",
            )
            return EnrolmentDate.objects.get(user_pk=fresh.user_pk, occurrence_pk=str(row.pk))

    return retry_on_lock_conflict(attempt, series_ids=[enrolment.series_id])
