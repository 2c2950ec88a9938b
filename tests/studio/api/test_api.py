"""The API on a host whose lessons have UUID primary keys: ids are UUID strings everywhere."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.studio.conftest import API, BERLIN, MakeSeries, lessons, next_weekday
from tests.support.drift import drift_every_date

pytestmark = pytest.mark.django_db

# A UUID read as an integer has 30 to 39 digits; no number in these answers is that long.
HUGE_NUMBER = re.compile(rb"(?<![\w-])\d{20,}(?![\w-])")


def utc_text(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def no_integer_ids(response: Any) -> None:
    assert not HUGE_NUMBER.search(response.content), response.content[:400]


def drifted_series(make_series: MakeSeries) -> tuple[EventSeries, list[Lesson]]:
    """Thursday lessons generated, the rule then ended a week before them: every Thursday drifts."""
    series = make_series()
    thursdays = lessons(series)
    drift_every_date(series)
    series.refresh_from_db()
    return series, thursdays


def test_create_list_and_read_a_series_with_uuid_ids(api: APIClient, school: School) -> None:
    start = next_weekday(1)
    body = {
        "name": "Bachata",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": start.isoformat(),
            "timezone": "Europe/Berlin",
            "count": 4,
        },
        "template": {
            "school": school.pk,
            "title": "Bachata",
            "finishes": (start + dt.timedelta(hours=1)).isoformat(),
        },
        "auto_publish": True,
    }

    created = api.post(API, body, format="json")

    assert created.status_code == 201, created.json()
    no_integer_ids(created)
    series = EventSeries.objects.get(pk=created.json()["id"])
    template = Lesson.objects.get(series=series, is_template=True)
    assert created.json()["template"]["id"] == str(template.pk)
    assert created.json()["occurrence_counts"]["by_status"] == {"bookable": 4}
    listing = api.get(API)
    no_integer_ids(listing)
    assert [row["template"]["id"] for row in listing.json()["results"]] == [str(template.pk)]
    read_back = api.get(f"{API}{series.pk}/template/").json()
    assert read_back["id"] == str(template.pk)
    assert read_back["begins"] == utc_text(start)


def test_a_template_id_sent_by_the_client_is_refused(api: APIClient, school: School) -> None:
    start = next_weekday(1)
    body = {
        "name": "Tango",
        "recurrence": {"frequency": "DAILY", "dtstart": start.isoformat(), "timezone": "UTC"},
        "template": {"school": school.pk, "title": "Tango", "id": str(uuid.uuid4())},
    }

    response = api.post(API, body, format="json")

    assert response.status_code == 400
    assert "id" in response.json()["template"]
    assert not EventSeries.objects.exists()


def test_occurrences_carry_the_lessons_uuids(api: APIClient, make_series: MakeSeries) -> None:
    series = make_series()
    expected = [str(lesson.pk) for lesson in lessons(series)]

    response = api.get(f"{API}{series.pk}/occurrences/")

    assert response.status_code == 200
    no_integer_ids(response)
    assert [row["id"] for row in response.json()["results"]] == expected
    assert len(expected) in (7, 8)


def test_cancel_and_restore_an_occurrence_report_its_uuid(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    third = lessons(series)[2]
    slot = {"occurrence": utc_text(third.begins)}

    cancelled = api.post(f"{API}{series.pk}/cancel-occurrence/", slot, format="json")
    third.refresh_from_db()
    state_after_cancel = third.state
    restored = api.post(f"{API}{series.pk}/restore-occurrence/", slot, format="json")

    assert cancelled.status_code == 200, cancelled.json()
    assert cancelled.json()["occurrence"]["id"] == str(third.pk)
    assert cancelled.json()["occurrence"]["cancelled"] is True
    assert state_after_cancel == Lesson.State.SCRAPPED
    assert restored.status_code == 200, restored.json()
    assert restored.json()["occurrence"]["id"] == str(third.pk)
    third.refresh_from_db()
    assert third.state == Lesson.State.BOOKABLE


def test_modified_since_reports_cancelled_and_deleted_lessons_by_uuid(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    first, second = lessons(series)[:2]
    since = utc_text(timezone.now() - dt.timedelta(seconds=1))
    api.post(f"{API}{series.pk}/cancel-occurrence/", {"occurrence": utc_text(first.begins)}, "json")
    gone = second.pk
    second.delete()

    response = api.get(f"{API}{series.pk}/occurrences/", {"modified_since": since})

    assert response.status_code == 200
    no_integer_ids(response)
    rows = {row["id"]: row for row in response.json()["results"]}
    assert rows[str(first.pk)]["cancelled"] is True
    assert rows[str(first.pk)]["deleted"] is False
    assert rows[str(gone)]["deleted"] is True
    assert rows[str(gone)]["recurrence_id"] == utc_text(second.begins)


def test_cancel_stale_takes_uuid_ids_and_answers_them(
    api: APIClient, make_series: MakeSeries
) -> None:
    series, thursdays = drifted_series(make_series)
    drift = api.get(f"{API}{series.pk}/drift/").json()
    assert [row["id"] for row in drift["occurrences"]] == [str(t.pk) for t in thursdays]
    chosen = [str(thursdays[1].pk), str(thursdays[0].pk)]

    response = api.post(f"{API}{series.pk}/cancel-stale/", {"ids": chosen}, format="json")

    assert response.status_code == 200, response.json()
    no_integer_ids(response)
    assert response.json()["cancelled"] == [str(thursdays[0].pk), str(thursdays[1].pk)]
    states = dict(Lesson.objects.filter(series=series).values_list("pk", "state"))
    assert states[thursdays[0].pk] == states[thursdays[1].pk] == Lesson.State.SCRAPPED
    assert all(states[t.pk] == Lesson.State.BOOKABLE for t in thursdays[2:])


def test_cancel_stale_ignores_a_uuid_of_another_series(
    api: APIClient, make_series: MakeSeries
) -> None:
    series, _thursdays = drifted_series(make_series)
    other = make_series(name="Kizomba")

    response = api.post(
        f"{API}{series.pk}/cancel-stale/", {"ids": [str(lessons(other)[0].pk)]}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["cancelled"] == []
    assert not Lesson.objects.filter(state=Lesson.State.SCRAPPED).exists()


@pytest.mark.parametrize(
    "ids",
    [
        ["not-a-uuid"],
        [328545586926116748885411871374436105471],  # a UUID as the integer it once was
        [12],
        [None],
    ],
)
def test_cancel_stale_refuses_ids_that_are_no_uuid(
    api: APIClient, make_series: MakeSeries, ids: list[Any]
) -> None:
    series, _thursdays = drifted_series(make_series)

    response = api.post(f"{API}{series.pk}/cancel-stale/", {"ids": ids}, format="json")

    assert response.status_code == 400
    assert list(response.json()) == ["ids"]
    assert not Lesson.objects.filter(state=Lesson.State.SCRAPPED).exists()


def test_deleting_a_series_with_a_booked_lesson_is_a_conflict(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    series = make_series()
    booked = lessons(series)[1]
    booking = Booking.objects.create(lesson=booked, pupil=pupil)

    refused = api.delete(f"{API}{series.pk}/")

    assert refused.status_code == 409
    assert Lesson.objects.filter(series=series).count() == len(lessons(series)) + 1
    booking.delete()
    assert api.delete(f"{API}{series.pk}/").status_code == 204
    assert not Lesson.objects.exists()


def test_a_teacher_of_another_school_sees_nothing(make_series: MakeSeries) -> None:
    series = make_series()
    other = School.objects.create(name="Ballet", slug="ballet")
    stranger = User.objects.create_user("ballet@studio.example", "pw")
    other.teachers.add(stranger)
    client = APIClient()
    client.force_authenticate(stranger)

    assert client.get(API).json()["results"] == []
    assert client.get(f"{API}{series.pk}/occurrences/").status_code == 404


def test_the_schema_types_event_ids_as_uuid_strings(api: APIClient) -> None:
    schema = api.get("/api/recurring/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    uuid_string = {"type": "string", "format": "uuid"}

    def typed(value: dict[str, Any]) -> dict[str, Any]:
        return {key: value[key] for key in ("type", "format")}

    assert typed(components["Occurrence"]["properties"]["id"]) == uuid_string
    assert typed(components["TemplateSummary"]["properties"]["id"]) == uuid_string
    assert typed(components["CancelStaleResult"]["properties"]["cancelled"]["items"]) == uuid_string
    request = components["CancelStaleRequestRequest"]["properties"]["ids"]["items"]
    assert typed(request) == uuid_string
    template = components["LessonTemplate"]["properties"]["id"]
    assert typed(template) == uuid_string
    assert template["readOnly"] is True
    assert "id" not in components["LessonTemplateRequest"]["properties"]


def test_dates_in_answers_are_utc(api: APIClient, make_series: MakeSeries) -> None:
    series = make_series()
    first = lessons(series)[0]

    row = api.get(f"{API}{series.pk}/occurrences/").json()["results"][0]

    assert row["start"] == utc_text(first.begins)
    assert first.begins.astimezone(BERLIN).strftime("%H:%M") == "18:30"
