"""Reverting on the studio host: UUID lesson keys, pupils' bookings, a school's template."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.exceptions import RevertRefusedError
from revel_recurring.models import DeletedSeries, EventSeries
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.revert import apply_revert, plan_revert
from revel_recurring.services.splits import plan_split, split_series
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.studio.conftest import API, MakeSeries, fridays_from_the_third_week, lessons
from tests.support.revert import everything, last_operation, rows_of, rule_of, schedule_of

pytestmark = pytest.mark.django_db
FRIDAYS = {"weekdays": [4]}


def test_reverting_a_plan_gives_the_lessons_back_their_thursdays(
    make_series: MakeSeries, pupil: User
) -> None:
    series = make_series()
    booked = lessons(series)[2]
    Booking.objects.create(lesson=booked, pupil=pupil)
    rows, rule = rows_of(series), rule_of(series)
    plan = plan_recurrence_change(series, FRIDAYS)
    apply_recurrence_plan(series, plan.hash, FRIDAYS, cancel_drift="all", notify="none")
    operation = last_operation(series, "plan")
    assert rows_of(series) != rows

    revert = plan_revert(operation)
    assert next(row for row in revert.rows if row.booked).bookings == 1
    apply_revert(operation, plan_hash=revert.hash, notify="none")

    assert rows_of(series) == rows
    assert rule_of(series) == rule
    assert Booking.objects.get(pupil=pupil).lesson_id == booked.pk


def test_reverting_a_split_gives_back_the_lessons_and_their_room(
    make_series: MakeSeries, pupil: User
) -> None:
    series = make_series(generation_window_weeks=6)
    rows, rule, schedule = rows_of(series), rule_of(series), schedule_of(series)
    before = lessons(series)
    Booking.objects.create(lesson=before[4], pupil=pupil)
    at = rules.to_utc(before[3].begins)
    changes: dict[str, Any] = {"recurrence": FRIDAYS, "template": {"room": "Hall 2"}}
    plan = plan_split(series, at=at, **changes, notify="none")
    result = split_series(series, at=at, **changes, plan_hash=plan.hash, notify="none")
    continuation = result.continuation
    assert Lesson.objects.filter(series=continuation, room="Hall 2").exists()

    revert = plan_revert(last_operation(series, "split"))
    assert revert.removes_series == continuation.pk
    apply_revert(last_operation(series, "split"), plan_hash=revert.hash, notify="none")

    assert rows_of(series) == rows
    assert rule_of(series) == rule
    assert schedule_of(series) == schedule
    assert {lesson.room for lesson in lessons(series)} == {"Hall 1"}
    assert not EventSeries.objects.filter(pk=continuation.pk).exists()
    assert DeletedSeries.latest(series_pk=continuation.pk) is not None
    assert Booking.objects.get(pupil=pupil).lesson_id == before[4].pk


def test_reverting_a_cancel_stale_restores_the_lessons(make_series: MakeSeries) -> None:
    series = make_series()
    fridays_from_the_third_week(series)
    rows = rows_of(series)
    cancel_stale_occurrences(series, notify="none")
    assert rows_of(series) != rows

    operation = last_operation(series, "cancel_stale")
    apply_revert(operation, plan_hash=plan_revert(operation).hash, notify="none")

    assert rows_of(series) == rows


def test_a_lesson_booked_since_refuses_removing_it_and_the_api_says_why(
    make_series: MakeSeries, pupil: User, api: APIClient
) -> None:
    series = make_series()
    wider = {"generation_window_weeks": 10}
    plan = plan_recurrence_change(series, wider)
    apply_recurrence_plan(series, plan.hash, wider, notify="none")
    operation = last_operation(series, "plan")
    created = [row for row in plan_revert(operation).rows if row.action == "remove"]
    Booking.objects.create(lesson_id=created[0].id, pupil=pupil)
    before = everything()

    with pytest.raises(RevertRefusedError):
        plan_revert(operation)
    answer = api.get(f"{API}{series.pk}/operations/{operation.pk}/revert/")

    assert answer.status_code == 400
    assert "bookings" in answer.json()["operation"][0]
    assert everything() == before


def test_a_teacher_of_another_school_finds_no_revert(make_series: MakeSeries) -> None:
    series = make_series()
    plan = plan_recurrence_change(series, FRIDAYS)
    apply_recurrence_plan(series, plan.hash, FRIDAYS, notify="none")
    operation = last_operation(series, "plan")
    other = School.objects.create(name="Ballet", slug="ballet")
    stranger = User.objects.create_user("ballet@studio.example", "pw")
    other.teachers.add(stranger)
    client = APIClient()
    client.force_authenticate(stranger)
    url = f"{API}{series.pk}/operations/{operation.pk}/revert/"

    assert client.get(url).status_code == 404
    assert (
        client.post(url, {"plan_hash": plan_revert(operation).hash}, format="json").status_code
        == 404
    )
    assert last_operation(series, "plan").reverted_by.count() == 0
