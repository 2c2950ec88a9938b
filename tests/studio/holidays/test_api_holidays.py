"""Holiday rules over the API on the studio host: UUID lesson ids, Bavarian holidays."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.studio.api.test_api import no_integer_ids, utc_text
from tests.studio.conftest import API, BERLIN, lessons
from tests.support.holiday_dates import at, holiday_name
from tests.support.holiday_lessons import bavarian_holiday, lessons_on

pytestmark = pytest.mark.django_db


def url(series: EventSeries, action: str = "") -> str:
    return f"{API}{series.pk}/{action + '/' if action else ''}"


def test_a_moved_lesson_is_listed_by_its_uuid_with_the_holiday_it_moved_for(
    api: APIClient, school: School
) -> None:
    holiday = bavarian_holiday()
    series = lessons_on(holiday, school, country="DE", subdivision="BY", policy="shift")
    slot = at(holiday, BERLIN, 18, 30)

    listed = api.get(url(series, "occurrences"))

    assert listed.status_code == 200, listed.json()
    no_integer_ids(listed)
    moved = next(row for row in listed.json()["results"] if row["recurrence_id"] == utc_text(slot))
    assert uuid.UUID(moved["id"]) in {lesson.pk for lesson in lessons(series)}
    assert moved["start"] == utc_text(slot + dt.timedelta(days=1))
    assert moved["shifted_from"] == utc_text(slot)
    assert moved["holiday"] == holiday_name("DE", holiday, "en_US", subdivision="BY")


def test_patch_to_skip_names_the_booked_moved_lesson_as_drift_and_keeps_it(
    api: APIClient, school: School, pupil: User
) -> None:
    holiday = bavarian_holiday()
    series = lessons_on(holiday, school, country="DE", subdivision="BY", policy="shift")
    slot = at(holiday, BERLIN, 18, 30)
    moved = Lesson.objects.get(series=series, recurrence_id=slot)
    Booking.objects.create(lesson=moved, pupil=pupil)

    response = api.patch(url(series), {"holidays": {"policy": "skip"}}, format="json")

    assert response.status_code == 200, response.json()
    no_integer_ids(response)
    assert response.json()["holidays"]["policy"] == "skip"
    drift = {row["id"]: row for row in response.json()["drift"]}
    assert drift[str(moved.pk)]["booked"] is True
    moved.refresh_from_db()
    assert moved.state != Lesson.State.SCRAPPED
    bad = api.patch(url(series), {"holidays": {"subdivision": "XX"}}, format="json")
    assert bad.status_code == 400
    assert list(bad.json()["holidays"]) == ["subdivision"]
