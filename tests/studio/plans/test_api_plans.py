"""Change plans over the API on the studio host: UUID lesson ids and real Booking rows."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.studio.api.test_api import no_integer_ids, utc_text
from tests.studio.conftest import API, BERLIN, MakeSeries, lessons

pytestmark = pytest.mark.django_db

MON_WED = {"weekdays": [0, 2]}


def url(series: EventSeries, action: str = "") -> str:
    return f"{API}{series.pk}/{action + '/' if action else ''}"


def booked_tue_thu(make_series: MakeSeries, school: School) -> tuple[EventSeries, list[Lesson]]:
    """Tuesday and Thursday lessons; the first holds two pupils' bookings, the fourth one."""
    series = make_series(weekdays=(1, 3))
    tue_thu = lessons(series)
    for number, lesson in ((1, tue_thu[0]), (2, tue_thu[0]), (3, tue_thu[3])):
        pupil = User.objects.create_user(f"pupil{number}@studio.example", "pw")
        school.members.add(pupil)
        Booking.objects.create(lesson=lesson, pupil=pupil)
    return series, tue_thu


def bookings_of(lesson: Lesson) -> int:
    return Booking.objects.filter(lesson=lesson).count()


def test_the_plan_counts_the_bookings_of_each_drifted_lesson_by_uuid(
    api: APIClient, make_series: MakeSeries, school: School
) -> None:
    """With the people told (the default) the booked lessons move like the others."""
    series, tue_thu = booked_tue_thu(make_series, school)

    response = api.post(url(series, "recurrence-plan"), {"recurrence": MON_WED}, format="json")

    assert response.status_code == 200, response.json()
    no_integer_ids(response)
    plan = response.json()
    assert [row["id"] for row in plan["drift"]] == [str(lesson.pk) for lesson in tue_thu]
    assert [row["bookings"] for row in plan["drift"]] == [bookings_of(t) for t in tue_thu]
    assert [row["bookings"] for row in plan["drift"]][:4] == [2, 0, 0, 1]
    assert [row["start"] for row in plan["drift"]] == [utc_text(t.begins) for t in tue_thu]
    # Each lesson moves to its week's Monday or Wednesday, but the first Thursday: the
    # first week's Monday comes before the start, so the first Tuesday takes the
    # Wednesday. Nothing new beside them.
    targets = [row["moves_to"] for row in plan["drift"]]
    assert [target is None for target in targets] == [k == 1 for k in range(len(tue_thu))]
    local = [dt.datetime.fromisoformat(t).astimezone(BERLIN) for t in targets if t]
    assert {(moment.weekday(), moment.strftime("%H:%M")) for moment in local} == {
        (0, "18:30"),
        (2, "18:30"),
    }
    # The people told, the booked lessons move too: nothing new beside them.
    assert plan["new"] == []
    assert plan["stay"] == []


def test_with_nobody_told_unbooked_moves_free_lessons_keeps_booked_ones_cancels_the_lonely_one(
    api: APIClient, make_series: MakeSeries, school: School, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, tue_thu = booked_tue_thu(make_series, school)
    plan = api.post(url(series, "recurrence-plan"), {"recurrence": MON_WED}, format="json").json()
    booked = [tue_thu[0], tue_thu[3]]

    response = api.post(
        url(series, "recurrence-apply"),
        {"recurrence": MON_WED, "plan_hash": plan["hash"], "cancel_drift": "unbooked"},
        format="json",
    )

    assert response.status_code == 200, response.json()
    no_integer_ids(response)
    answer = response.json()
    assert [row["id"] for row in answer["kept_booked"]] == [str(lesson.pk) for lesson in booked]
    # The first Thursday has no partner: cancelled. The other free lessons move.
    assert answer["cancelled"] == [str(tue_thu[1].pk)]
    free = [t for t in tue_thu if t not in booked and t != tue_thu[1]]
    assert answer["moved"] == [str(t.pk) for t in free]
    states = dict(Lesson.objects.filter(series=series).values_list("pk", "state"))
    assert {states[t.pk] for t in [*booked, *free]} == {Lesson.State.BOOKABLE}
    assert states[tue_thu[1].pk] == Lesson.State.SCRAPPED
    created = Lesson.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert [utc_text(lesson.begins) for lesson in created.order_by("begins")] == [
        row["start"] for row in plan["new"]
    ]
    assert Booking.objects.count() == 3


def test_a_lesson_cancelled_after_the_plan_gives_409_with_the_fresh_plan_which_applies(
    api: APIClient, make_series: MakeSeries, school: School
) -> None:
    series, tue_thu = booked_tue_thu(make_series, school)
    plan = api.post(url(series, "recurrence-plan"), {"recurrence": MON_WED}, format="json").json()
    api.post(url(series, "cancel-occurrence"), {"occurrence": utc_text(tue_thu[1].begins)}, "json")

    outdated = api.post(
        url(series, "recurrence-apply"),
        {"recurrence": MON_WED, "plan_hash": plan["hash"]},
        format="json",
    )

    assert outdated.status_code == 409, outdated.json()
    no_integer_ids(outdated)
    fresh = outdated.json()["plan"]
    assert str(tue_thu[1].pk) not in [row["id"] for row in fresh["drift"]]
    assert fresh["drift"][0]["bookings"] == 2
    assert lessons(series) == tue_thu
    retried = api.post(
        url(series, "recurrence-apply"),
        {"recurrence": MON_WED, "plan_hash": fresh["hash"]},
        format="json",
    )
    assert retried.status_code == 200, retried.json()


def test_a_member_who_is_no_teacher_may_not_plan_or_apply(
    make_series: MakeSeries, school: School
) -> None:
    series, _ = booked_tue_thu(make_series, school)
    member = User.objects.get(email="pupil1@studio.example")
    client = APIClient()
    client.force_authenticate(member)
    body: dict[str, Any] = {"recurrence": MON_WED, "plan_hash": "0" * 80}

    assert client.get(url(series)).status_code == 200
    assert client.patch(url(series), body, format="json").status_code == 403
    assert client.post(url(series, "recurrence-plan"), body, format="json").status_code == 403
    assert client.post(url(series, "recurrence-apply"), body, format="json").status_code == 403


def test_with_nobody_told_a_weekdays_patch_moves_free_lessons_names_booked_drift_by_uuid(
    api: APIClient, make_series: MakeSeries, school: School, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, tue_thu = booked_tue_thu(make_series, school)

    response = api.patch(url(series), {"recurrence": MON_WED}, format="json")

    assert response.status_code == 200, response.json()
    no_integer_ids(response)
    answer = response.json()
    # The free lessons moved to their weeks' Mondays and Wednesdays (same UUIDs); the
    # booked ones stay, and the first Thursday, without a partner, too: the drift named.
    staying = [tue_thu[0], tue_thu[1], tue_thu[3]]
    assert [row["id"] for row in answer["drift"]] == [str(t.pk) for t in staying]
    assert [row["bookings"] for row in answer["drift"]] == [2, 0, 1]
    moved = Lesson.objects.filter(pk__in=[t.pk for t in tue_thu if t not in staying])
    assert {lesson.begins.astimezone(BERLIN).weekday() for lesson in moved} == {0, 2}
    # Nothing was cancelled: the booked lessons and the free ones all stay.
    states = Lesson.objects.filter(pk__in=[t.pk for t in tue_thu]).values_list("state", flat=True)
    assert set(states) == {Lesson.State.BOOKABLE}
    # Every free lesson moved; new lessons only beside the booked ones that stay.
    created = Lesson.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert {lesson.begins.astimezone(BERLIN).weekday() for lesson in created} <= {0, 2}
    assert created.count() == 2


def test_extra_dates_in_the_plan_a_booked_one_left_out_is_kept_by_uuid(
    api: APIClient, make_series: MakeSeries, school: School
) -> None:
    series, tue_thu = booked_tue_thu(make_series, school)
    # The Saturday after the first (booked) Thursday, and the one after the next.
    first, later = (tue_thu[k].begins.astimezone(BERLIN) + dt.timedelta(days=2) for k in (1, 3))
    added = api.post(url(series, "add-date"), {"instant": first.isoformat()}, format="json")
    assert added.status_code == 200, added.json()
    saturday = Lesson.objects.get(series=series, begins=first)
    Booking.objects.create(lesson=saturday, pupil=User.objects.get(email="pupil1@studio.example"))
    recurrence = {"extra_dates": [later.isoformat()]}

    plan = api.post(url(series, "recurrence-plan"), {"recurrence": recurrence}, format="json")

    assert plan.status_code == 200, plan.json()
    no_integer_ids(plan)
    assert [(row["id"], row["bookings"]) for row in plan.json()["drift"]] == [(str(saturday.pk), 1)]
    assert [row["start"] for row in plan.json()["new"]] == [utc_text(later)]
    response = api.post(
        url(series, "recurrence-apply"),
        {"recurrence": recurrence, "plan_hash": plan.json()["hash"], "cancel_drift": "unbooked"},
        format="json",
    )
    assert response.status_code == 200, response.json()
    answer = response.json()
    assert [row["id"] for row in answer["kept_booked"]] == [str(saturday.pk)]
    assert answer["cancelled"] == []
    assert answer["series"]["extra_dates"] == [utc_text(later)]
    assert Lesson.objects.get(pk=saturday.pk).state == Lesson.State.BOOKABLE


def test_a_lesson_booked_after_the_plan_makes_apply_all_a_409_and_stays_booked(
    api: APIClient, make_series: MakeSeries, school: School
) -> None:
    series, tue_thu = booked_tue_thu(make_series, school)
    plan = api.post(url(series, "recurrence-plan"), {"recurrence": MON_WED}, format="json").json()
    assert plan["drift"][1]["bookings"] == 0
    late = User.objects.create_user("late@studio.example", "pw")
    school.members.add(late)
    Booking.objects.create(lesson=tue_thu[1], pupil=late)
    body = {"recurrence": MON_WED, "plan_hash": plan["hash"], "cancel_drift": "all"}

    response = api.post(url(series, "recurrence-apply"), body, format="json")

    assert response.status_code == 409, response.json()
    no_integer_ids(response)
    fresh = response.json()["plan"]
    assert fresh["drift"][1] == {**plan["drift"][1], "bookings": 1, "booked": True}
    lesson = Lesson.objects.get(pk=tue_thu[1].pk)
    assert lesson.state != Lesson.RECURRING_STATUS_CANCELLED
    assert bookings_of(lesson) == 1
