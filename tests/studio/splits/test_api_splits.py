""" "This and following" over the API on the studio host: UUID lesson ids, real Booking rows."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.studio.api.test_api import no_integer_ids, utc_text
from tests.studio.conftest import API, BERLIN, MakeSeries, lessons

pytestmark = pytest.mark.django_db

FRIDAYS = {"weekdays": [4]}


def url(series: EventSeries | int, action: str = "") -> str:
    pk = series if isinstance(series, int) else series.pk
    return f"{API}{pk}/{action + '/' if action else ''}"


def test_a_booked_lesson_moves_with_its_uuid_and_stays_booked(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    """The people told (the default): the booked lesson moves to its Friday like the
    free ones, in the new room, with the same UUID and booking row."""
    series = make_series(generation_window_weeks=6)
    rows = lessons(series)
    booking = Booking.objects.create(lesson=rows[4], pupil=pupil)
    body = {
        "at": utc_text(rows[3].begins),
        "recurrence": FRIDAYS,
        "template": {"room": "Hall 2"},
        "name": "Salsa (Fridays)",
    }

    planned = api.post(url(series, "split-plan"), body, format="json")

    assert planned.status_code == 200, planned.json()
    no_integer_ids(planned)
    plan = planned.json()
    assert [row["id"] for row in plan["drift"]] == [str(row.pk) for row in rows[3:]]
    assert {row["id"]: row["bookings"] for row in plan["drift"] if row["booked"]} == {
        str(rows[4].pk): 1
    }

    response = api.post(url(series, "split"), {**body, "plan_hash": plan["hash"]}, format="json")

    assert response.status_code == 201, response.json()
    no_integer_ids(response)
    answer = response.json()
    assert answer["moved"] == [str(row.pk) for row in rows[3:]]
    continuation = answer["continuation"]
    assert continuation["name"] == "Salsa (Fridays)"
    assert continuation["split_from"]["id"] == series.pk
    assert answer["original"]["continued_by"] == {
        "id": continuation["id"],
        "url": continuation["url"],
    }
    # Same lesson, same booking row, on the continuation; still booked.
    booking.refresh_from_db()
    assert booking.lesson_id == rows[4].pk
    moved = Lesson.objects.get(pk=rows[4].pk)
    assert moved.series_id == continuation["id"]
    assert moved.begins.astimezone(BERLIN).weekday() == 4
    assert moved.room == "Hall 2"
    created = Lesson.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert created.count() == len(plan["new"])
    assert {lesson.begins.astimezone(BERLIN).weekday() for lesson in created} <= {4}
    assert {lesson.room for lesson in created} <= {"Hall 2"}
    occurrences = api.get(url(continuation["id"], "occurrences")).json()["results"]
    booked = next(row for row in occurrences if row["id"] == str(rows[4].pk))
    assert booked["has_bookings"] is True


def test_a_lesson_moved_after_the_plan_answers_409_with_the_fresh_plan(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(generation_window_weeks=4)
    rows = lessons(series)
    body = {"at": utc_text(rows[2].begins)}
    plan = api.post(url(series, "split-plan"), body, format="json").json()
    rows[3].begins += dt.timedelta(hours=1)
    rows[3].save()

    response = api.post(url(series, "split"), {**body, "plan_hash": plan["hash"]}, format="json")

    assert response.status_code == 409, response.json()
    no_integer_ids(response)
    fresh = response.json()["plan"]
    assert fresh["hash"] != plan["hash"]
    moved = next(row for row in fresh["stay"] + fresh["drift"] if row["id"] == str(rows[3].pk))
    assert moved["start"] == utc_text(rows[3].begins)
    assert moved["is_modified"] is True
    assert not EventSeries.objects.filter(split_from=series).exists()


def test_the_change_feed_names_where_each_lesson_went(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(generation_window_weeks=5)
    rows = lessons(series)
    since = utc_text(timezone.now() - dt.timedelta(seconds=1))
    split = api.post(url(series, "split"), {"at": utc_text(rows[2].begins)}, format="json")
    continuation = split.json()["continuation"]["id"]
    moved = {str(row.pk) for row in rows[2:]}

    left = api.get(url(series, "occurrences"), {"modified_since": since}).json()["results"]
    arrived = api.get(url(continuation, "occurrences"), {"modified_since": since}).json()["results"]

    assert {row["id"]: row["moved_to"] for row in left if row["deleted"]} == dict.fromkeys(
        moved, continuation
    )
    assert moved <= {row["id"] for row in arrived if not row["deleted"]}


def test_a_member_of_the_school_may_not_split_and_another_school_sees_nothing(
    make_series: MakeSeries, school: School, pupil: User
) -> None:
    series = make_series()
    rows = lessons(series)
    school.members.add(pupil)
    member = APIClient()
    member.force_authenticate(pupil)
    other_teacher = User.objects.create_user("other@studio.example", "pw")
    School.objects.create(name="Tango", slug="tango").teachers.add(other_teacher)
    other = APIClient()
    other.force_authenticate(other_teacher)
    body = {"at": utc_text(rows[2].begins)}
    for action in ("split-plan", "split"):
        assert member.post(url(series, action), body, format="json").status_code == 403
        assert other.post(url(series, action), body, format="json").status_code == 404
    assert not EventSeries.objects.filter(split_from=series).exists()


def test_split_at_every_lesson_from_the_last_backwards_is_accepted(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(generation_window_weeks=6, count=5)
    rows = lessons(series)
    for lesson in reversed(rows[1:]):
        response = api.post(url(series, "split"), {"at": utc_text(lesson.begins)}, format="json")
        assert response.status_code == 201, response.json()
        assert response.json()["moved"] == [str(lesson.pk)]
        assert response.json()["continuation"]["recurrence"]["count"] == 1
    assert EventSeries.objects.filter(split_from__isnull=False).count() == 4
