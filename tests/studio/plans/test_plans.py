"""Change plans on the studio host: UUID lessons, one Booking row per pupil, a change stamp.

Every id a plan or its apply names is the lesson's UUID; bookings are counted by
the host's ``count_bookings_among`` (Booking rows); and the host's
``RECURRING_UPDATED_FIELD`` (``changed_at``) is part of the hash, so even a second
edit of a lesson already edited by hand outdates a plan.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from revel_recurring.exceptions import PlanOutdatedError
from revel_recurring.models import EventSeries, PendingExdate, RecurrenceRule
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.plans import (
    EXTRA_DATES_KEY,
    apply_recurrence_plan,
    plan_recurrence_change,
)
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import BERLIN, MakeSeries, lessons
from tests.support.drift import ended_before_its_dates

pytestmark = pytest.mark.django_db

FRIDAYS = {"weekdays": [4]}
SCRAPPED = Lesson.State.SCRAPPED


def pupils(count: int) -> list[User]:
    return [
        User.objects.create_user(f"pupil{number}@studio.example", "pw") for number in range(count)
    ]


def book(lesson: Lesson, *who: User) -> None:
    Booking.objects.bulk_create([Booking(lesson=lesson, pupil=pupil) for pupil in who])


def state_of(lesson: Lesson) -> str:
    return Lesson.objects.values_list("state", flat=True).get(pk=lesson.pk)


def snapshot(series: EventSeries) -> tuple[Any, ...]:
    stored = EventSeries.objects.get(pk=series.pk)
    columns = {f.attname: getattr(stored, f.attname) for f in EventSeries._meta.concrete_fields}
    rule = RecurrenceRule.objects.filter(series=stored).values().first()
    rows = list(Lesson.objects.filter(series=series).order_by("pk").values())
    bookings = list(Booking.objects.filter(lesson__series=series).order_by("pk").values())
    pending = list(PendingExdate.objects.filter(series=series).values())
    return columns, rule, rows, bookings, pending


@pytest.fixture
def now() -> dt.datetime:
    """One moment for a plan and its apply: a date entering the window in between is a change."""
    return timezone.now()


def test_a_plan_counts_booking_rows_and_apply_keeps_the_booked_lessons(
    make_series: MakeSeries, now: dt.datetime
) -> None:
    series = make_series()
    thursdays = lessons(series)
    first, second, third = pupils(3)
    book(thursdays[1], first, second)
    book(thursdays[3], third)

    # The rule ends before the lessons: they drift with nowhere to move (to Fridays, they
    # would move, free or booked, as tests/studio/plans/test_api_plans.py shows).
    ended = ended_before_its_dates(series)
    plan = plan_recurrence_change(series, ended, now=now)

    assert plan.stay == ()
    assert [row.id for row in plan.drift] == [lesson.pk for lesson in thursdays]
    assert [row.bookings for row in plan.drift] == [0, 2, 0, 1] + [0] * (len(thursdays) - 4)
    assert [row.id for row in plan.booked_drift] == [thursdays[1].pk, thursdays[3].pk]
    assert plan.moves == ()
    assert plan.new == ()

    applied = apply_recurrence_plan(series, plan.hash, ended, cancel_drift="unbooked", now=now)

    assert [date.id for date in applied.kept_booked] == [thursdays[1].pk, thursdays[3].pk]
    local = thursdays[1].begins.astimezone(BERLIN)
    assert applied.kept_booked[0].display == (
        f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Berlin)"
    )
    free = [lesson for lesson in thursdays if lesson not in (thursdays[1], thursdays[3])]
    assert applied.cancelled == [lesson.pk for lesson in free]
    assert all(state_of(lesson) == SCRAPPED for lesson in free)
    assert state_of(thursdays[1]) != SCRAPPED
    assert applied.created == []  # the plan has no new dates
    assert Booking.objects.count() == 3
    assert detect_cadence_drift(series, now=now) == [thursdays[1].pk, thursdays[3].pk]


def test_uuid_ids_given_as_text_cancel_exactly_those(
    make_series: MakeSeries, now: dt.datetime
) -> None:
    series = make_series()
    thursdays = lessons(series)
    (pupil,) = pupils(1)
    book(thursdays[0], pupil)
    ended = ended_before_its_dates(series)
    plan = plan_recurrence_change(series, ended, now=now)
    named = [str(thursdays[0].pk), str(thursdays[2].pk)]

    applied = apply_recurrence_plan(series, plan.hash, ended, cancel_drift=named, now=now)

    assert applied.cancelled == [thursdays[0].pk, thursdays[2].pk]  # the booked one, as ticked
    assert [state_of(lesson) == SCRAPPED for lesson in thursdays] == [
        position in (0, 2) for position in range(len(thursdays))
    ]


@pytest.mark.parametrize("edits", [1, 2], ids=["first edit", "second edit"])
def test_an_edited_lesson_outdates_the_plan_and_nothing_is_written(
    make_series: MakeSeries, now: dt.datetime, edits: int
) -> None:
    series = make_series()
    lesson = lessons(series)[2]
    if edits == 2:
        lesson.room = "Hall 2"
        lesson.save()  # modified already: only its change stamp moves with the next edit
    plan = plan_recurrence_change(series, FRIDAYS, now=now)
    lesson.room = "Hall 3"
    lesson.save()
    before = snapshot(series)

    with pytest.raises(PlanOutdatedError) as outdated:
        apply_recurrence_plan(series, plan.hash, FRIDAYS, cancel_drift="all", now=now)

    assert snapshot(series) == before
    fresh_plan = outdated.value.plan
    assert fresh_plan == plan_recurrence_change(series, FRIDAYS, now=now)
    assert [row.id for row in fresh_plan.drift if row.is_modified] == [lesson.pk]
    applied = apply_recurrence_plan(series, fresh_plan.hash, FRIDAYS, cancel_drift="all", now=now)
    assert [row.id for row in applied.kept_modified] == [lesson.pk]
    assert state_of(lesson) != SCRAPPED


def test_with_nobody_told_a_lesson_booked_after_the_plan_does_not_outdate_it_but_keeps_its_date(
    make_series: MakeSeries, now: dt.datetime
) -> None:
    series = make_series()
    thursdays = lessons(series)
    plan = plan_recurrence_change(series, FRIDAYS, notify="none", now=now)
    book(thursdays[4], *pupils(1))

    applied = apply_recurrence_plan(
        series, plan.hash, FRIDAYS, cancel_drift="unbooked", notify="none", now=now
    )

    assert [date.id for date in applied.kept_booked] == [thursdays[4].pk]
    assert state_of(thursdays[4]) != SCRAPPED


@pytest.mark.parametrize("weeks", [4, 52])
def test_a_plan_reads_in_four_queries_on_the_studio_host(
    make_series: MakeSeries, now: dt.datetime, weeks: int
) -> None:
    series = make_series(generation_window_weeks=weeks, weekdays=(0, 1, 2, 3, 4, 5, 6))
    rows = lessons(series)
    for lesson, pupil in zip(rows[::9], pupils(len(rows[::9])), strict=True):
        book(lesson, pupil)

    with CaptureQueriesContext(connection) as queries:
        plan = plan_recurrence_change(series, {"interval": 2}, now=now)

    assert len(plan.stay) + len(plan.drift) == len(rows)
    assert sum(row.bookings for row in (*plan.stay, *plan.drift)) == len(rows[::9])
    # Four reads, and the template (to weigh the new dates) when there are any.
    # One more with booked drift: who would be told (people_told).
    assert len(queries) == 4 + (len(plan.new) > 0) + bool(plan.booked_drift)


def test_a_booked_lesson_on_an_extra_date_left_out_is_drift_kept_and_named(
    make_series: MakeSeries, now: dt.datetime
) -> None:
    series = make_series()
    thursdays = lessons(series)
    saturdays = [
        lesson.begins.astimezone(BERLIN) + dt.timedelta(days=2) for lesson in thursdays[:3]
    ]
    booked, free = (add_extra_date(series, instant, now=now) for instant in saturdays[:2])
    book(booked, *pupils(2))
    change = {EXTRA_DATES_KEY: [saturdays[2]]}

    plan = plan_recurrence_change(series, change, now=now)

    assert plan.changed == {EXTRA_DATES_KEY}
    assert [(row.id, row.bookings) for row in plan.drift] == [(booked.pk, 2), (free.pk, 0)]
    assert [row.id for row in plan.stay] == [lesson.pk for lesson in thursdays]
    assert [date.start for date in plan.new] == [saturdays[2]]
    assert {date.local.strftime("%a %H:%M") for date in plan.new} == {"Sat 18:30"}

    applied = apply_recurrence_plan(series, plan.hash, change, cancel_drift="unbooked", now=now)

    assert applied.cancelled == [free.pk]
    assert [date.id for date in applied.kept_booked] == [booked.pk]
    assert state_of(booked) != SCRAPPED
    assert state_of(free) == SCRAPPED
    assert [lesson.begins for lesson in applied.created] == [saturdays[2]]
    assert EventSeries.objects.get(pk=series.pk).extra_date_instants == {saturdays[2]}
    assert Booking.objects.filter(lesson=booked).count() == 2
