"""The enrolled users a plan concerns, counted beside its bookings.

A plan shown to an organiser says how many users are enrolled in the series (for a
split: the enrolments the continuation takes on from the split date), how many of
them each new date would book (generation books the enrolled users on every date it
creates, a partner date a move creates among them) and how many are on each date
that stays, moves or drifts (a moved date keeps its bookings, being the same row; a
cancelled one keeps them too: a cancellation releases nothing). Two reads whatever
the number of dates (:mod:`..toolbox.enrolled_counts`), none on a host that books
no enrolled users.

The counts are not part of the plan's hash: applying a plan books whoever is enrolled
when it runs, and which dates it creates, moves or cancels never depends on an
enrolment (an enrolled user's booking is a booking, which the hash's second half
covers already).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from zoneinfo import ZoneInfo

from ...models import EventSeries
from ..toolbox.enrolled_counts import enrolled_from, enrolled_on, per_event
from .result import PlannedDate, PlannedOccurrence, RecurrencePlan


def with_enrolled(
    plan: RecurrencePlan,
    series: EventSeries,
    *,
    day: dt.date | None = None,
    now: dt.datetime,
    books_new: bool,
) -> RecurrencePlan:
    """``plan`` with its enrolled users counted: no query for a series read through
    :func:`~..toolbox.enrolled_counts.flag_enrolments` without enrolments, else one for
    the enrolments and one aggregate for the dates.

    ``series`` is the series whose enrolments count (a split's original); ``day`` the
    first day they must reach (default: today in the plan's zone; a split: the split
    day); ``books_new``: whether the new dates are created open, so that generation
    books enrolled users on them (a series publishing its dates), or as drafts.
    """
    first = day if day is not None else now.astimezone(ZoneInfo(plan.timezone)).date()
    spans = enrolled_from(series, first)
    if not spans:
        return plan
    zone = ZoneInfo(plan.timezone)
    new_users: set[str] = set()
    new: list[PlannedDate] = []
    for date in plan.new:
        users = spans.covering(date.start.astimezone(zone).date()) if books_new else frozenset()
        new_users |= users
        new.append(dataclasses.replace(date, enrolled=len(users)))
    rows = (*plan.stay, *plan.drift)
    counts = enrolled_on([series.pk], (row.id for row in rows), day=first)

    def counted(group: tuple[PlannedOccurrence, ...]) -> tuple[PlannedOccurrence, ...]:
        return tuple(dataclasses.replace(row, enrolled=per_event(counts, row.id)) for row in group)

    return dataclasses.replace(
        plan,
        stay=counted(plan.stay),
        drift=counted(plan.drift),
        new=tuple(new),
        enrolled=len(spans),
        enrolled_new=len(new_users),
    )


__all__ = ["with_enrolled"]
