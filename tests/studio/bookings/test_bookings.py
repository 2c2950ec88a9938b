"""Booked lessons on the studio host: asked of Booking once, kept unless included, named by date.

Lessons have UUID keys, so every id in these answers is the UUID's text and every
date a person reads is spelled in the rule's zone (Europe/Berlin), never as a UUID.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series, update_series_recurrence
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.studio.conftest import API, BERLIN, MakeSeries, lessons
from tests.support.drift import drift_every_date

pytestmark = pytest.mark.django_db

SCRAPPED = Lesson.State.SCRAPPED


def utc_text(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def display(lesson: Lesson) -> str:
    """The date as a person reads it, spelled out here rather than by the app's helper."""
    local = lesson.begins.astimezone(BERLIN)
    return f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Berlin)"


def book(lesson: Lesson, pupil: User) -> None:
    Booking.objects.create(lesson=lesson, pupil=pupil)


def booking_reads(captured: CaptureQueriesContext) -> int:
    table = Booking._meta.db_table
    return sum(1 for query in captured.captured_queries if table in query["sql"])


def drifted_series(make_series: MakeSeries, **options: Any) -> tuple[EventSeries, list[Lesson]]:
    """Thursday lessons generated, the rule then ended a week before them: every Thursday drifts."""
    series = make_series(**options)
    thursdays = lessons(series)
    drift_every_date(series)
    series.refresh_from_db()
    return series, thursdays


def state_of(lesson: Lesson) -> str:
    return Lesson.objects.values_list("state", flat=True).get(pk=lesson.pk)


# booked_among: one query over Booking, whatever the number of lessons


@pytest.mark.parametrize("weeks", [2, 12])
def test_booked_among_is_one_query_whatever_the_number_of_lessons(
    make_series: MakeSeries, pupil: User, weeks: int
) -> None:
    rows = lessons(make_series(generation_window_weeks=weeks, weekdays=(0, 1, 2, 3, 4, 5, 6)))
    book(rows[3], pupil)
    book(rows[3], User.objects.create_user("second@studio.example", "pw"))
    book(rows[-1], pupil)

    with CaptureQueriesContext(connection) as captured:
        booked = Lesson.booked_among(rows)

    assert booked == {rows[3].pk, rows[-1].pk}
    assert len(captured) == 1
    with CaptureQueriesContext(connection) as none:
        assert Lesson.booked_among([]) == set()
    assert len(none) == 0


def test_booked_among_reads_only_the_pk_of_lessons_loaded_with_pks_only(
    make_series: MakeSeries, pupil: User
) -> None:
    series = make_series()
    booked = lessons(series)[2]
    book(booked, pupil)
    light = list(Lesson.objects.filter(series=series, is_template=False).only("pk"))

    with CaptureQueriesContext(connection) as captured:
        assert Lesson.booked_among(light) == {booked.pk}

    assert len(captured) == 1  # no deferred column loaded row by row


def test_has_bookings_still_answers_for_one_lesson(make_series: MakeSeries, pupil: User) -> None:
    first, second = lessons(make_series())[:2]
    book(second, pupil)

    assert (first.has_bookings(), second.has_bookings()) == (False, True)


# cancel-stale


def test_cancel_stale_keeps_booked_lessons_and_names_them(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    series, thursdays = drifted_series(make_series)
    booked = [thursdays[1], thursdays[3]]
    for lesson in booked:
        book(lesson, pupil)

    response = api.post(f"{API}{series.pk}/cancel-stale/", {}, format="json")

    assert response.status_code == 200, response.json()
    body = response.json()
    unbooked = [lesson for lesson in thursdays if lesson not in booked]
    assert body["cancelled"] == [str(lesson.pk) for lesson in unbooked]
    assert body["kept_booked"] == [
        {"id": str(lesson.pk), "start": utc_text(lesson.begins), "display": display(lesson)}
        for lesson in booked
    ]
    assert all(state_of(lesson) == Lesson.State.BOOKABLE for lesson in booked)
    assert all(state_of(lesson) == SCRAPPED for lesson in unbooked)


def test_cancel_stale_of_chosen_ids_keeps_a_booked_one_among_them(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    series, thursdays = drifted_series(make_series)
    book(thursdays[0], pupil)
    chosen = [str(thursdays[0].pk), str(thursdays[2].pk)]

    response = api.post(f"{API}{series.pk}/cancel-stale/", {"ids": chosen}, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["cancelled"] == [str(thursdays[2].pk)]
    assert [row["display"] for row in response.json()["kept_booked"]] == [display(thursdays[0])]
    assert state_of(thursdays[0]) == Lesson.State.BOOKABLE


def test_cancel_stale_with_include_booked_cancels_the_booked_lessons_too(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    series, thursdays = drifted_series(make_series)
    book(thursdays[1], pupil)

    response = api.post(f"{API}{series.pk}/cancel-stale/", {"include_booked": True}, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["cancelled"] == [str(lesson.pk) for lesson in thursdays]
    assert response.json()["kept_booked"] == []
    assert state_of(thursdays[1]) == SCRAPPED
    assert Booking.objects.filter(lesson=thursdays[1]).exists()  # cancelling deletes nothing


# cancel-occurrence


def test_cancelling_a_booked_lesson_is_a_conflict_naming_its_date(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    series = make_series()
    booked = lessons(series)[2]
    book(booked, pupil)
    url = f"{API}{series.pk}/cancel-occurrence/"

    refused = api.post(url, {"occurrence": utc_text(booked.begins)}, format="json")

    assert refused.status_code == 409, refused.json()
    assert display(booked) in refused.json()["detail"]
    assert str(booked.pk) not in refused.content.decode()
    assert state_of(booked) == Lesson.State.BOOKABLE

    done = api.post(
        url, {"occurrence": utc_text(booked.begins), "include_booked": True}, format="json"
    )

    assert done.status_code == 200, done.json()
    assert done.json()["occurrence"]["id"] == str(booked.pk)
    assert done.json()["occurrence"]["cancelled"] is True
    assert state_of(booked) == SCRAPPED


# has_bookings on list rows, one Booking read per page


def test_occurrence_rows_say_which_lessons_are_booked_in_one_read(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    reads = []
    for weeks, name in ((2, "Salsa"), (10, "Tango")):
        series = make_series(name=name, generation_window_weeks=weeks)
        rows = lessons(series)
        book(rows[1], pupil)
        with CaptureQueriesContext(connection) as captured:
            response = api.get(f"{API}{series.pk}/occurrences/", {"page_size": 100})
        assert response.status_code == 200
        flags = {row["id"]: row["has_bookings"] for row in response.json()["results"]}
        assert flags == {str(lesson.pk): lesson == rows[1] for lesson in rows}
        assert booking_reads(captured) == 1
        reads.append(len(captured))
    assert reads[0] == reads[1]


def test_drift_rows_say_which_lessons_are_booked(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    series, thursdays = drifted_series(make_series)
    book(thursdays[-1], pupil)

    with CaptureQueriesContext(connection) as captured:
        response = api.get(f"{API}{series.pk}/drift/")

    assert response.status_code == 200
    flags = {row["id"]: row["has_bookings"] for row in response.json()["occurrences"]}
    assert flags == {str(lesson.pk): lesson == thursdays[-1] for lesson in thursdays}
    assert booking_reads(captured) == 1


# DELETE series/


def test_deleting_a_series_with_bookings_names_the_dates_not_the_uuids(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    series = make_series()
    booked = [lessons(series)[4], lessons(series)[1]]
    for lesson in booked:
        book(lesson, pupil)

    refused = api.delete(f"{API}{series.pk}/")

    assert refused.status_code == 409, refused.json()
    detail = refused.json()["detail"]
    assert display(booked[1]) in detail
    assert display(booked[0]) in detail
    assert detail.index(display(booked[1])) < detail.index(display(booked[0]))
    assert not any(str(lesson.pk) in refused.content.decode() for lesson in lessons(series))
    assert EventSeries.objects.filter(pk=series.pk).exists()
    assert Booking.objects.count() == 2


# A member of a school reads its series and changes nothing, booked or not


def test_a_member_reads_the_schools_series_and_every_write_is_refused(
    make_series: MakeSeries, pupil: User
) -> None:
    series, thursdays = drifted_series(make_series)
    book(thursdays[0], pupil)
    member = User.objects.create_user("member@studio.example", "pw")
    School.objects.get(slug="salsa").members.add(member)
    client = APIClient()
    client.force_authenticate(member)
    before = list(Lesson.objects.order_by("pk").values_list("pk", "state", "begins"))
    base = f"{API}{series.pk}/"
    slot = {"occurrence": utc_text(thursdays[1].begins), "include_booked": True}

    reads = [client.get(base), client.get(f"{base}occurrences/"), client.get(f"{base}drift/")]
    writes = [
        client.post(f"{base}cancel-stale/", {"include_booked": True}, format="json"),
        client.post(f"{base}cancel-occurrence/", slot, format="json"),
        client.patch(base, {"name": "Mine now"}, format="json"),
        client.post(f"{base}pause/", {}, format="json"),
        client.delete(base),
    ]

    assert [response.status_code for response in reads] == [200, 200, 200]
    assert [response.status_code for response in writes] == [403] * len(writes)
    assert list(Lesson.objects.order_by("pk").values_list("pk", "state", "begins")) == before
    assert EventSeries.objects.get(pk=series.pk).name == "Salsa"


def test_the_schema_types_kept_booked_ids_as_uuid_strings(api: APIClient) -> None:
    schema = api.get("/api/recurring/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]

    booked = components["BookedDate"]["properties"]

    assert {key: booked["id"][key] for key in ("type", "format")} == {
        "type": "string",
        "format": "uuid",
    }
    assert "has_bookings" in components["Occurrence"]["required"]


def test_booked_dates_are_named_in_the_rules_zone_not_the_sites(
    api: APIClient, school: School, pupil: User
) -> None:
    # The site runs on Europe/Berlin (TIME_ZONE); this school's lessons are in New York.
    new_york = ZoneInfo("America/New_York")
    today = timezone.now().astimezone(new_york).date()
    start = dt.datetime.combine(today + dt.timedelta(days=3), dt.time(19, 0), tzinfo=new_york)
    series = create_recurring_series(
        name="Swing",
        rule_data={"frequency": "DAILY", "dtstart": start, "timezone": "America/New_York"},
        template_data={"school": school, "title": "Swing"},
        auto_publish=True,
        generation_window_weeks=1,
    )
    booked = lessons(series)[1]  # the second day: off the rule once it is every other day
    book(booked, pupil)
    local = booked.begins.astimezone(new_york)
    named = f"{local:%a} {local.day} {local:%b %Y} 19:00 (America/New_York)"

    refused = api.delete(f"{API}{series.pk}/")
    update_series_recurrence(series, rule_changes={"interval": 2})
    kept = api.post(f"{API}{series.pk}/cancel-stale/", {}, format="json")

    assert refused.status_code == 409
    assert named in refused.json()["detail"]
    assert kept.status_code == 200, kept.json()
    assert [row["display"] for row in kept.json()["kept_booked"]] == [named]
    assert str(booked.pk) not in kept.json()["cancelled"]
    assert kept.json()["cancelled"]  # the other off-rule days
