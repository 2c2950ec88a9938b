"""Extra dates over the API on the studio host: UUID lesson ids, a real Booking."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.validators import EXTRA_DATES_MAX
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.api.test_api import no_integer_ids, utc_text
from tests.studio.conftest import API, BERLIN, MakeSeries, lessons

pytestmark = pytest.mark.django_db


def url(series: EventSeries, action: str = "") -> str:
    return f"{API}{series.pk}/{action + '/' if action else ''}"


def saturday_after(lesson: Lesson) -> dt.datetime:
    day = lesson.begins.astimezone(BERLIN) + dt.timedelta(days=2)
    return day.replace(hour=11, minute=0)


def test_a_booked_extra_date_added_over_the_api_cannot_be_removed(
    api: APIClient, make_series: MakeSeries, pupil: User
) -> None:
    series = make_series(generation_window_weeks=6)
    saturday = saturday_after(lessons(series)[1])

    added = api.post(url(series, "add-date"), {"instant": saturday.isoformat()}, format="json")

    assert added.status_code == 200, added.json()
    no_integer_ids(added)
    row = added.json()["occurrence"]
    assert uuid.UUID(row["id"]) in {lesson.pk for lesson in lessons(series)}
    assert added.json()["series"]["extra_dates"] == [utc_text(saturday)]
    Booking.objects.create(lesson_id=row["id"], pupil=pupil)

    removed = api.post(url(series, "remove-date"), {"instant": utc_text(saturday)}, format="json")
    patched = api.patch(url(series), {"recurrence": {"extra_dates": []}}, format="json")

    for response in (removed, patched):
        assert response.status_code == 409, response.json()
        assert "has bookings" in response.json()["detail"]
        assert saturday.strftime("%-d %b %Y 11:00") in response.json()["detail"]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == [utc_text(saturday)]
    assert Lesson.objects.get(pk=row["id"]).bookings.count() == 1


def test_patch_adds_an_extra_date_and_answers_its_uuid_row(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(generation_window_weeks=6)
    saturday = saturday_after(lessons(series)[2])

    response = api.patch(
        url(series), {"recurrence": {"extra_dates": [saturday.isoformat()]}}, format="json"
    )

    assert response.status_code == 200, response.json()
    no_integer_ids(response)
    [created] = response.json()["created"]
    assert created["start"] == utc_text(saturday)
    assert Lesson.objects.get(pk=uuid.UUID(created["id"])).begins == saturday


def test_a_lesson_series_at_the_extra_date_limit_is_patched_back_and_takes_no_more(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(generation_window_weeks=6)
    first = saturday_after(lessons(series)[0])
    series.extra_dates = rules.normalize_exdates(
        [first + dt.timedelta(weeks=week) for week in range(EXTRA_DATES_MAX)]
    )
    series.save(update_fields=["extra_dates"])
    read = api.get(url(series)).json()

    back = api.patch(url(series), read, format="json")
    one_more = utc_text(first + dt.timedelta(days=1))
    added = api.post(url(series, "add-date"), {"instant": one_more}, format="json")
    twice = api.patch(
        url(series),
        {"recurrence": {"extra_dates": [read["extra_dates"][0], first.isoformat()]}},
        format="json",
    )

    assert back.status_code == 200, back.json()
    no_integer_ids(back)
    assert back.json()["extra_dates"] == read["extra_dates"]
    assert added.status_code == 400, added.json()
    assert f"{EXTRA_DATES_MAX}" in added.json()["instant"][0]
    assert twice.status_code == 400, twice.json()
    assert "twice" in twice.json()["recurrence"]["extra_dates"][0]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == read["extra_dates"]
