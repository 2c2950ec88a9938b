"""The studio host (UUID lessons, custom user) in German: what the API says follows the
language the client accepts, as on the default host
(tests/default/languages/test_translations.py)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

from tests.hosts.studio.models import School
from tests.studio.api.test_api import utc_text
from tests.studio.conftest import API, BERLIN
from tests.support.holiday_dates import at, holiday_name
from tests.support.holiday_lessons import bavarian_holiday, lessons_on

pytestmark = pytest.mark.django_db

SESSION = "django.contrib.sessions.middleware.SessionMiddleware"
WITH_LOCALE = [
    name
    for middleware in settings.MIDDLEWARE
    for name in (
        (middleware, "django.middleware.locale.LocaleMiddleware")
        if middleware == SESSION
        else (middleware,)
    )
]


@override_settings(MIDDLEWARE=WITH_LOCALE)
def test_a_moved_lesson_names_its_holiday_in_german(api: APIClient, school: School) -> None:
    holiday = bavarian_holiday()
    series = lessons_on(holiday, school, country="DE", subdivision="BY", policy="shift")
    slot = at(holiday, BERLIN, 18, 30)

    listed = api.get(f"{API}{series.pk}/occurrences/", HTTP_ACCEPT_LANGUAGE="de")

    assert listed.status_code == 200, listed.json()
    assert listed["Content-Language"] == "de"
    moved = next(row for row in listed.json()["results"] if row["recurrence_id"] == utc_text(slot))
    assert moved["start"] == utc_text(slot + dt.timedelta(days=1))
    assert moved["holiday"] == holiday_name("DE", holiday, "de", subdivision="BY")
    assert moved["holiday"] != holiday_name("DE", holiday, "en_US", subdivision="BY")


@override_settings(MIDDLEWARE=WITH_LOCALE)
def test_a_refused_patch_of_a_uuid_series_is_explained_in_german(
    api: APIClient, school: School
) -> None:
    holiday = bavarian_holiday()
    series = lessons_on(holiday, school)

    response = api.patch(
        f"{API}{series.pk}/",
        {"recurrence": {"timezone": "Mars/Olympus"}},
        format="json",
        HTTP_ACCEPT_LANGUAGE="de",
    )

    assert response.status_code == 400, response.json()
    assert response.json()["recurrence"]["timezone"] == [
        "Unbekannte Zeitzone 'Mars/Olympus'; verwenden Sie einen Namen wie 'Europe/Vienna'."
    ]
