"""The dojo in German: the admin's labels and the API's refusals follow the request.

The dojo is a German site (``LANGUAGE_CODE = "de"``, ``LocaleMiddleware``, DRF and
``django_filters`` listed before the app). Each page and each refusal is asked for
in German and in English and compared (``tests.support.language_checks.english_in``): a
German sentence that reads as the English one, or holds English words, fails.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.dojo.conftest import API, PASSWORD, MakeSeries, trainings
from tests.hosts.dojo.models import Booking, Training, User
from tests.support.language_checks import (
    COLUMNS,
    FILTERS,
    SERIES_COUNT,
    assert_no_english_in_german_answers,
    english_in,
    read,
)

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"
OWNER = "inhaber@dojo.example"


@pytest.fixture
def admin(db: Any) -> Client:
    User.objects.create_superuser(OWNER, PASSWORD)
    client = Client()
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": OWNER, "password": PASSWORD, "next": "/admin/"},
    )
    assert response.status_code == 302
    return client


def test_the_series_list_names_its_columns_filters_and_count_in_german(
    admin: Client, make_series: MakeSeries
) -> None:
    for number in range(5):
        make_series(name=f"Karate {number}")

    page = read(admin.get(CHANGELIST, HTTP_ACCEPT_LANGUAGE="de").content)

    assert page.headers[-len(COLUMNS["de"]) :] == COLUMNS["de"]
    assert page.filters == FILTERS["de"]
    assert SERIES_COUNT["de"] in page.lines


def test_the_change_page_holds_no_english_sentence_and_names_statuses_by_label(
    admin: Client, make_series: MakeSeries, member: User
) -> None:
    series = make_series()
    rows = trainings(series)
    rows[0].status = Training.Status.ABGESAGT
    rows[0].save()
    Booking.objects.create(training=rows[1], member=member)
    url = f"{CHANGELIST}{series.pk}/change/"

    german = read(admin.get(url, HTTP_ACCEPT_LANGUAGE="de").content).lines
    english = read(admin.get(url, HTTP_ACCEPT_LANGUAGE="en").content).lines

    assert english_in(german, english) == []
    assert "Abgesagt" in german
    assert "Buchbar" in german
    assert "2" not in german


def _refusals(
    api: APIClient, make_series: MakeSeries, member: User
) -> list[tuple[str, Callable[[str], Any]]]:
    series = make_series()
    rows = trainings(series)
    Booking.objects.create(training=rows[1], member=member)
    target = f"{API}{series.pk}/"
    rule_date = rows[2].begins_at.isoformat()
    off_rule = (rows[2].begins_at + dt.timedelta(days=1)).isoformat()

    def post(action: str, body: dict[str, Any]) -> Callable[[str], Any]:
        return lambda language: api.post(
            f"{target}{action}/", body, format="json", HTTP_ACCEPT_LANGUAGE=language
        )

    return [
        ("split off the rule", post("split", {"at": off_rule})),
        ("add a rule date", post("add-date", {"instant": rule_date})),
        ("remove what is no extra date", post("remove-date", {"instant": rule_date})),
        ("restore a date not cancelled", post("restore-occurrence", {"occurrence": rule_date})),
        (
            "cancel a booked date",
            post("cancel-occurrence", {"occurrence": rows[1].begins_at.isoformat()}),
        ),
        (
            "apply with a hash not answered for this change",
            post("recurrence-apply", {"recurrence": {"weekdays": [3]}, "plan_hash": "0" * 80}),
        ),
        (
            "delete a booked series",
            lambda language: api.delete(target, HTTP_ACCEPT_LANGUAGE=language),
        ),
    ]


def test_api_refusals_hold_no_english_sentence(
    api: APIClient, make_series: MakeSeries, member: User
) -> None:
    assert_no_english_in_german_answers(_refusals(api, make_series, member))
