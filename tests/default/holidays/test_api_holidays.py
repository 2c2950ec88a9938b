"""Holiday rules over the API on the testapp host: the series' `holidays`, create, PATCH,
the change plan, the preview, the occurrences list and restoring a skipped holiday date.

The API reads the real clock: each test builds its weekly series on the next
Austrian holiday (``tests.support.holiday_dates``), a week after the series' first date.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import holidays
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.editing import update_series
from revel_recurring.services.generation import generate_series_events
from tests.support.api import client, user_with
from tests.support.factories import VIENNA, make_series, occurrences
from tests.support.holiday_dates import WINDOW_WEEKS, at, holiday_name, next_holiday, utc

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    return client(
        user_with(
            django_user_model, "editor", "view_eventseries", "add_eventseries", "change_eventseries"
        )
    )


@pytest.fixture
def holiday() -> dt.date:
    return next_holiday("AT", VIENNA)


def url(series: EventSeries | int, action: str = "") -> str:
    pk = series if isinstance(series, int) else series.pk
    return f"{API}{pk}/{action + '/' if action else ''}"


def weekly_on(holiday: dt.date, **holidays_settings: Any) -> EventSeries:
    """Weekly at 10:00 Vienna from a week before ``holiday``; not generated yet."""
    series = make_series(
        dtstart=at(holiday - dt.timedelta(weeks=1), VIENNA), window_weeks=WINDOW_WEEKS
    )
    if holidays_settings:
        update_series(series, holidays=holidays_settings)
    return series


def english(holiday: dt.date) -> str:
    return holiday_name("AT", holiday, "en_US")


def test_a_series_created_with_holidays_skips_them_and_shows_its_calendar(
    editor: APIClient, holiday: dt.date
) -> None:
    first = at(holiday - dt.timedelta(weeks=1), VIENNA)
    body = {
        "name": "Tuesday yoga",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": first.isoformat(),
            "timezone": "Europe/Vienna",
        },
        "template": {"title": "Yoga"},
        "generation_window_weeks": WINDOW_WEEKS,
        "holidays": {"country": "at", "policy": "skip"},
    }

    response = editor.post(API, body, "json")

    assert response.status_code == 201, response.json()
    assert response.json()["holidays"] == {
        "country": "AT",
        "subdivision": "",
        "categories": [],
        "policy": "skip",
        "data_version": holidays.__version__,  # type: ignore[attr-defined]
        "kept": [],
    }
    series = EventSeries.objects.get(pk=response.json()["id"])
    starts = {event.starts_at.astimezone(VIENNA).date() for event in occurrences(series)}
    assert first.date() in starts
    assert holiday not in starts


def test_a_series_without_a_calendar_says_so(editor: APIClient, holiday: dt.date) -> None:
    series = weekly_on(holiday)

    answer = editor.get(url(series)).json()

    assert answer["holidays"] == {
        "country": "",
        "subdivision": "",
        "categories": [],
        "policy": "skip",
        "data_version": "",
        "kept": [],
    }


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"country": "XX"}, "country"),
        ({"country": "AT", "subdivision": "BY"}, "subdivision"),
        ({"country": "AT", "categories": ["harvest"]}, "categories"),
        ({"country": "AT", "policy": "move"}, "policy"),
        ({"country": "AT", "weekends": True}, "weekends"),
    ],
)
def test_a_wrong_holiday_setting_is_a_400_under_its_key_in_create_patch_and_plan(
    editor: APIClient, holiday: dt.date, settings: dict[str, Any], key: str
) -> None:
    series = weekly_on(holiday)
    first = at(holiday - dt.timedelta(weeks=1), VIENNA)
    create = {
        "name": "Tuesday yoga",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": first.isoformat(),
            "timezone": "Europe/Vienna",
        },
        "template": {"title": "Yoga"},
        "holidays": settings,
    }

    answers = [
        editor.post(API, create, "json"),
        editor.patch(url(series), {"holidays": settings}, "json"),
        editor.post(url(series, "recurrence-plan"), {"holidays": settings}, "json"),
    ]

    for response in answers:
        assert response.status_code == 400, response.content
        errors = response.json()
        assert list(errors) == ["holidays"], errors
        assert list(errors["holidays"]) == [key], errors
        assert errors["holidays"][key]
    assert EventSeries.objects.count() == 1
    assert EventSeries.objects.get().holiday_country == ""


def test_patch_holidays_is_a_schedule_change_answered_with_created_and_drift(
    editor: APIClient, holiday: dt.date
) -> None:
    series = weekly_on(holiday)
    generate_series_events(series)
    on_holiday = next(
        e for e in occurrences(series) if e.starts_at.astimezone(VIENNA).date() == holiday
    )

    response = editor.patch(url(series), {"holidays": {"country": "AT"}}, "json")

    assert response.status_code == 200, response.json()
    answer = response.json()
    assert answer["holidays"]["country"] == "AT"
    assert answer["holidays"]["policy"] == "skip"
    assert answer["holidays"]["data_version"] == holidays.__version__  # type: ignore[attr-defined]
    assert answer["cursor_reset"] is True
    assert answer["created"] == []
    # The date already generated on the holiday stays (bookings are sacred) and is named.
    assert [row["id"] for row in answer["drift"]] == [on_holiday.pk]


def test_patch_to_shift_creates_the_moved_date_and_says_where_it_came_from(
    editor: APIClient, holiday: dt.date
) -> None:
    series = weekly_on(holiday)
    slot = at(holiday, VIENNA)

    response = editor.patch(url(series), {"holidays": {"country": "AT", "policy": "shift"}}, "json")

    assert response.status_code == 200, response.json()
    created = {row["recurrence_id"]: row for row in response.json()["created"]}
    moved = created[utc(slot)]
    assert moved["start"] == utc(slot + dt.timedelta(days=1))
    assert moved["shifted_from"] == utc(slot)
    assert moved["holiday"] == english(holiday)
    first = created[utc(slot - dt.timedelta(weeks=1))]
    assert (first["holiday"], first["shifted_from"]) == ("", None)


def test_the_occurrences_list_names_shifted_dates_with_no_query_per_row(
    editor: APIClient, holiday: dt.date
) -> None:
    series = weekly_on(holiday, country="AT", policy="shift")
    generate_series_events(series)
    plain = weekly_on(holiday)
    generate_series_events(plain)
    slot = at(holiday, VIENNA)

    editor.get(url(plain, "occurrences"))  # the user's permissions, read once
    with CaptureQueriesContext(connection) as named:
        response = editor.get(url(series, "occurrences"))
    with CaptureQueriesContext(connection) as unnamed:
        editor.get(url(plain, "occurrences"))

    rows = {row["recurrence_id"]: row for row in response.json()["results"]}
    assert rows[utc(slot)]["shifted_from"] == utc(slot)
    assert rows[utc(slot)]["start"] == utc(slot + dt.timedelta(days=1))
    assert rows[utc(slot)]["holiday"] == english(holiday)
    others = [row for key, row in rows.items() if key != utc(slot)]
    assert others
    assert all(row["shifted_from"] is None for row in others)
    assert len(named.captured_queries) == len(unnamed.captured_queries)


def test_the_preview_names_skipped_and_moved_dates(editor: APIClient, holiday: dt.date) -> None:
    skipping = weekly_on(holiday, country="AT")
    shifting = weekly_on(holiday, country="AT", policy="shift")
    slot = at(holiday, VIENNA)

    skipped = editor.get(url(skipping, "preview"), {"count": 3}).json()["slots"]
    moved = editor.get(url(shifting, "preview"), {"count": 3}).json()["slots"]

    assert skipped[0]["start"] == utc(slot - dt.timedelta(weeks=1))
    assert skipped[0] | {"start": None, "local_start": None} == {
        "start": None,
        "local_start": None,
        "state": "pending",
        "excluded_because": None,
        "holiday": "",
        "starts_at": skipped[0]["start"],
    }
    assert skipped[1]["start"] == utc(slot)
    assert skipped[1]["state"] == "excluded"
    assert skipped[1]["excluded_because"] == "holiday"
    assert skipped[1]["holiday"] == english(holiday)
    assert skipped[1]["starts_at"] is None
    assert moved[1]["start"] == utc(slot)
    assert moved[1]["state"] == "pending"
    assert moved[1]["excluded_because"] is None
    assert moved[1]["holiday"] == english(holiday)
    assert moved[1]["starts_at"] == utc(slot + dt.timedelta(days=1))


def test_the_preview_speaks_the_language_of_the_request(
    editor: APIClient, holiday: dt.date, settings: Any
) -> None:
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "django.middleware.locale.LocaleMiddleware"]
    series = weekly_on(holiday, country="AT")

    german = editor.get(url(series, "preview"), {"count": 2}, HTTP_ACCEPT_LANGUAGE="de")
    english_answer = editor.get(url(series, "preview"), {"count": 2}, HTTP_ACCEPT_LANGUAGE="en")

    assert german.json()["slots"][1]["holiday"] == holiday_name("AT", holiday, "de")
    assert english_answer.json()["slots"][1]["holiday"] == english(holiday)


def test_restoring_a_skipped_holiday_date_keeps_it(editor: APIClient, holiday: dt.date) -> None:
    series = weekly_on(holiday, country="AT")
    generate_series_events(series)
    slot = at(holiday, VIENNA)

    response = editor.post(
        url(series, "restore-occurrence"), {"occurrence": slot.isoformat()}, "json"
    )

    assert response.status_code == 200, response.json()
    assert response.json()["series"]["holidays"]["kept"] == [utc(slot)]
    preview = editor.get(url(series, "preview"), {"count": 2}).json()["slots"]
    assert (preview[1]["state"], preview[1]["holiday"]) == ("pending", english(holiday))
    created = editor.post(url(series, "generate"), {}, "json").json()["created"]
    assert [(row["start"], row["holiday"]) for row in created] == [(utc(slot), english(holiday))]
    # Kept: restoring it again is refused as for any date that is not cancelled.
    again = editor.post(url(series, "restore-occurrence"), {"occurrence": slot.isoformat()}, "json")
    assert again.status_code == 409


def test_the_plan_names_skipped_holidays_and_apply_cancels_the_date_on_one(
    editor: APIClient, holiday: dt.date
) -> None:
    series = weekly_on(holiday)
    generate_series_events(series)
    on_holiday = next(
        e for e in occurrences(series) if e.starts_at.astimezone(VIENNA).date() == holiday
    )
    change = {"holidays": {"country": "AT", "policy": "skip"}}

    planned = editor.post(url(series, "recurrence-plan"), change, "json")

    assert planned.status_code == 200, planned.json()
    plan = planned.json()
    assert plan["changed"] == ["holidays"]
    assert [row["id"] for row in plan["drift"]] == [on_holiday.pk]
    excluded = {row["start"]: row for row in plan["excluded"]}
    assert excluded[utc(at(holiday, VIENNA))]["reason"] == "holiday"
    assert excluded[utc(at(holiday, VIENNA))]["holiday"] == english(holiday)
    applied = editor.post(
        url(series, "recurrence-apply"),
        {**change, "plan_hash": plan["hash"], "cancel_drift": "unbooked"},
        "json",
    )
    assert applied.status_code == 200, applied.json()
    assert applied.json()["cancelled"] == [on_holiday.pk]
    assert applied.json()["series"]["holidays"]["country"] == "AT"


def test_the_plan_of_a_shift_names_the_moved_date(editor: APIClient, holiday: dt.date) -> None:
    series = weekly_on(holiday)
    slot = at(holiday, VIENNA)

    plan = editor.post(
        url(series, "recurrence-plan"), {"holidays": {"country": "AT", "policy": "shift"}}, "json"
    ).json()

    new = {row["start"]: row for row in plan["new"]}
    moved = new[utc(slot + dt.timedelta(days=1))]
    assert (moved["shifted_from"], moved["holiday"]) == (utc(slot), english(holiday))
    assert utc(slot) not in new
    assert new[utc(slot - dt.timedelta(weeks=1))]["shifted_from"] is None
