"""Plans count enrolled users beside bookings: the checks every host runs.

A host's test file builds a weekly series that publishes its dates (at least five
upcoming ones) and three users, and calls these with them. They need nothing of
the host but its ``book_enrolled`` hook: the rows are read through the event model's
own start field, the users only by their keys.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth import get_user_model
from django.utils import timezone

from revel_recurring.models import EnrolmentDate, EventSeries, get_event_model
from revel_recurring.services.enrolments import end_enrolment, enrol, skip_date
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.plans.result import RecurrencePlan
from revel_recurring.services.splits import plan_split


def make_users(*names: str) -> tuple[Any, ...]:
    """Users of the host's user model, one per name (``name@example.com``)."""
    model = get_user_model()
    made = []
    for name in names:
        fields = {"email": f"{name}@example.com"}
        if model.USERNAME_FIELD != "email":
            fields[model.USERNAME_FIELD] = name
        made.append(model.objects.create_user(password="pw", **fields))
    return tuple(made)


def check_plans_count_enrolled_users(series: EventSeries, split_series: EventSeries) -> None:
    """Both checks on the real clock, for a host whose series are made for today: a
    cadence plan of ``series`` and a split plan of ``split_series`` (weekly, adding the
    day after next to its weekday)."""
    now = timezone.now()
    check_cadence_plan_counts(series, make_users("anna", "ben", "cleo"), now=now)
    weekday = (
        upcoming(split_series, now)[0]
        .occurrence_start.astimezone(ZoneInfo(str(split_series.recurrence_rule.timezone)))
        .weekday()
    )
    check_split_plan_counts(
        split_series,
        make_users("dora", "emil", "fritz"),
        recurrence={"weekdays": sorted({weekday, (weekday + 2) % 7})},
        now=now,
    )


def upcoming(series: EventSeries, now: dt.datetime) -> list[Any]:
    """The series' dates still to come, in start order."""
    model = get_event_model()
    start = model.RECURRING_START_FIELD
    return list(
        model._default_manager.filter(
            series=series, is_template=False, **{f"{start}__gt": now}
        ).order_by(start)
    )


def day_of(series: EventSeries, row: Any) -> dt.date:
    """The day ``row`` falls on, on the series' wall clock."""
    series.refresh_from_db()
    zone = ZoneInfo(str(series.recurrence_rule.timezone))
    return row.occurrence_start.astimezone(zone).date()


def by_id(plan: RecurrencePlan) -> dict[str, int]:
    """Each existing date of ``plan`` (staying or drifting): its enrolled users, by id."""
    return {str(row.id): row.enrolled for row in (*plan.stay, *plan.drift)}


def booked_users(rows: list[Any]) -> dict[str, set[str]]:
    """The users booked (or holding a place) on each of ``rows`` through an enrolment."""
    found: dict[str, set[str]] = {str(row.pk): set() for row in rows}
    for pk, user in EnrolmentDate.objects.filter(
        occurrence_pk__in=list(found),
        state__in=(EnrolmentDate.State.BOOKED, EnrolmentDate.State.HELD),
    ).values_list("occurrence_pk", "user_pk"):
        found[pk].add(user)
    return found


def check_cadence_plan_counts(
    series: EventSeries, users: tuple[Any, Any, Any], *, now: dt.datetime
) -> None:
    """A cadence plan counts the enrolled users on each date and on each new one.

    Anna is enrolled from today and skips the second date, Ben from the third date on.
    A plan widening the window counts 2 enrolled users, 2 on each new date, and per
    date what each holds; the hash does not count them: Cleo enrolling after the plan
    was made leaves it applicable, and the new dates book all three.
    """
    anna, ben, cleo = users
    rows = upcoming(series, now)
    assert len(rows) >= 5, "the host's series has five dates to come"
    window = {"generation_window_weeks": series.generation_window_weeks + 2}
    before = plan_recurrence_change(series, window, now=now)
    assert (before.enrolled, before.enrolled_new) == (0, 0)

    skip_date(enrol(series, anna, now=now).enrolment, rows[1], now=now)
    enrol(series, ben, starts_on=day_of(series, rows[2]), now=now)

    plan = plan_recurrence_change(series, window, now=now)
    assert plan.hash == before.hash, "enrolled users are not hashed"
    assert plan.new, "a wider window creates dates"
    assert (plan.enrolled, plan.enrolled_new) == (2, 2)
    assert [date.enrolled for date in plan.new] == [2] * len(plan.new)
    counts = by_id(plan)
    assert [counts[str(row.pk)] for row in rows[:4]] == [1, 0, 2, 2]

    # Dates the rule no longer holds keep their enrolled users when cancelled: the plan
    # says how many each holds.
    ends = plan_recurrence_change(series, {"until": rows[2].occurrence_start}, now=now)
    assert [row.enrolled for row in ends.drift] == [2] * len(ends.drift)
    assert {str(row.id) for row in ends.drift} == {str(row.pk) for row in rows[3:]}

    enrol(series, cleo, now=now)
    applied = apply_recurrence_plan(series, plan.hash, window, now=now)
    assert applied.created
    keys = {str(user.pk) for user in users}
    assert all(found == keys for found in booked_users(applied.created).values())


def check_split_plan_counts(
    series: EventSeries,
    users: tuple[Any, Any, Any],
    *,
    recurrence: Mapping[str, Any],
    now: dt.datetime,
) -> RecurrencePlan:
    """A split plan counts the enrolments the continuation takes on, and on each date.

    Split at the third date with ``recurrence`` (a change that adds dates): Anna is
    enrolled throughout, Ben from the fourth date, Cleo's enrolment ended with the
    first date, so the continuation takes on two. Returns the plan.
    """
    anna, ben, cleo = users
    rows = upcoming(series, now)
    enrol(series, anna, now=now)
    enrol(series, ben, starts_on=day_of(series, rows[3]), now=now)
    ended = enrol(series, cleo, now=now).enrolment
    end_enrolment(ended, on=day_of(series, rows[0]), now=now)

    plan = plan_split(series, at=rows[2].occurrence_start, recurrence=recurrence, now=now)

    assert plan.enrolled == 2, "Cleo's enrolment ended before the split date"
    counts = by_id(plan)
    assert [counts[str(row.pk)] for row in rows[2:5]] == [1, 2, 2]
    assert str(rows[1].pk) not in counts, "a date that stays with the original is not in the plan"
    assert plan.new, "the continuation's rule adds dates"
    zone = ZoneInfo(plan.timezone)
    bens_first = day_of(series, rows[3])
    assert [date.enrolled for date in plan.new] == [
        2 if date.start.astimezone(zone).date() >= bens_first else 1 for date in plan.new
    ]
    assert plan.enrolled_new == 2
    return plan


__all__ = [
    "booked_users",
    "by_id",
    "check_cadence_plan_counts",
    "check_plans_count_enrolled_users",
    "check_split_plan_counts",
    "day_of",
    "make_users",
    "upcoming",
]
