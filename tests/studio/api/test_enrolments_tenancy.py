"""Enrolments through the API on the UUID host, whose schools are its organisations.

A member of a school enrols in its lessons and changes only their own enrolment;
the school's teacher (its organiser) sees and changes every enrolment of its
series; a teacher or member of another school finds none of it (404), and cannot
be enrolled in it. Ids are UUID strings throughout.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from revel_recurring.models import EnrolmentDate
from tests.hosts.studio.models import Booking, School, User
from tests.studio.conftest import PASSWORD, MakeSeries, lessons

pytestmark = pytest.mark.django_db
API = "/api/recurring/"


def _as(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _booked(user: User) -> list[str]:
    """The lessons the studio holds a booking on for ``user``, agreeing with the app's dates."""
    held = sorted(
        str(pk) for pk in Booking.objects.filter(pupil=user).values_list("lesson_id", flat=True)
    )
    kept = EnrolmentDate.objects.filter(
        user_pk=str(user.pk), state__in=[EnrolmentDate.State.BOOKED, EnrolmentDate.State.HELD]
    ).values_list("occurrence_pk", flat=True)
    assert held == sorted(kept)
    return held


def test_another_school_finds_no_enrolment_and_cannot_be_enrolled(
    make_series: MakeSeries, school: School, teacher: User
) -> None:
    series = make_series()
    rows = [str(row.pk) for row in lessons(series)]
    mia = User.objects.create_user("mia@studio.example", PASSWORD)
    school.members.add(mia)
    tango = School.objects.create(name="Tango School", slug="tango")
    rival = User.objects.create_user("rival@studio.example", PASSWORD)
    tango.teachers.add(rival)
    tom = User.objects.create_user("tom@studio.example", PASSWORD)
    tango.members.add(tom)
    on_series = f"{API}series/{series.pk}/enrolments/"

    created = _as(mia).post(on_series, {}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["booked"] == rows
    mine = created.json()["enrolment"]
    assert mine["user"] == str(mia.pk)
    assert _booked(mia) == sorted(rows)
    one = f"{API}enrolments/{mine['id']}/"

    # The other school's teacher and member: nothing of it exists for them.
    for stranger in (_as(rival), _as(tom)):
        assert stranger.get(on_series).status_code == 404
        assert stranger.post(on_series, {}, format="json").status_code == 404
        assert stranger.get(f"{API}enrolments/").json()["results"] == []
        assert stranger.get(one).status_code == 404
        assert stranger.get(f"{one}dates/").status_code == 404
        assert stranger.post(f"{one}end/", {}, format="json").status_code == 404
        assert (
            stranger.post(f"{one}skip/", {"occurrence": rows[0]}, format="json").status_code == 404
        )
    assert _booked(mia) == sorted(rows)

    # The school's teacher sees Mia's enrolment, skips a lesson for her, and cannot
    # enrol the other school's member in it.
    as_teacher = _as(teacher)
    assert [e["user"] for e in as_teacher.get(on_series).json()["results"]] == [str(mia.pk)]
    skipped = as_teacher.post(f"{one}skip/", {"occurrence": rows[1]}, format="json")
    assert (skipped.status_code, skipped.json()["occurrence"]) == (200, rows[1])
    assert rows[1] not in _booked(mia)
    refused = as_teacher.post(on_series, {"user": str(tom.pk)}, format="json")
    assert (refused.status_code, list(refused.json())) == (400, ["user"])
    # Another member of the school sees the series, not Mia's enrolment.
    leo = User.objects.create_user("leo@studio.example", PASSWORD)
    school.members.add(leo)
    assert _as(leo).get(on_series).json()["results"] == []
    assert _as(leo).get(one).status_code == 404
    # Mia may not enrol anyone else, not even a member of her own school.
    assert _as(mia).post(on_series, {"user": str(teacher.pk)}, format="json").status_code == 403
