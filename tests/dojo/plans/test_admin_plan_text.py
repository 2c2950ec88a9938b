"""What the change plan page says beside the dates, on the dojo (German, text keys).

A Thursday training in Bavaria: its holiday policy changed from ``skip`` to
``shift`` in March creates no training in the eight weeks ahead, yet the page
and the API's plan list, in German, the three trainings of the year it moves
(Christi Himmelfahrt, Fronleichnam, Heilige Drei Könige); "Jetzt" and "Nach der
Änderung" read the same where the change leaves the setting alone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.dojo.conftest import PASSWORD
from tests.hosts.dojo.models import User
from tests.support.forms import form_data, form_errors
from tests.support.holidays_ahead import (
    BAVARIA_SKIP,
    FIRST_THURSDAY,
    SHIFTED_AHEAD,
    cell,
    frozen_clock,
    section_items,
)

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"
OWNER = "inhaber@dojo.example"


@pytest.fixture(autouse=True)
def _frozen() -> Iterator[None]:
    with frozen_clock():
        yield


@pytest.fixture
def admin(db: Any) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.force_login(User.objects.create_superuser(OWNER, PASSWORD))  # type: ignore[arg-type]
    return client


def thursday_training() -> EventSeries:
    return create_recurring_series(
        name="Kata",
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [3],
            "dtstart": FIRST_THURSDAY,
            "timezone": "Europe/Berlin",
        },
        template_data={"title": "Kata", "mat": "Matte 1", "duration": dt.timedelta(minutes=90)},
        holidays=BAVARIA_SKIP,
        auto_publish=True,
    )


def test_the_plan_page_lists_the_trainings_holidays_move_in_german(admin: Client) -> None:
    series = thursday_training()
    url = f"{CHANGELIST}{series.pk}/change/"

    shown = admin.post(url, form_data(series, holiday_policy="shift"))

    assert shown.status_code == 200, form_errors(shown)
    assert shown.context["plan"].new == ()
    assert section_items(shown, "revel-plan-holidays-ahead") == SHIFTED_AHEAD["de"]
    assert "Feiertage in den nächsten 12 Monaten" in shown.content.decode()

    window = admin.post(url, form_data(series, generation_window_weeks=12))

    assert window.status_code == 200, form_errors(window)
    now_text = cell(window, "revel-plan-old-rule")
    assert now_text == cell(window, "revel-plan-new-rule")
    assert "(Bayern, Germany)" in now_text


def test_the_api_plan_lists_the_holidays_ahead_in_german(api: APIClient) -> None:
    series = thursday_training()

    response = api.post(
        f"/api/recurring/series/{series.pk}/recurrence-plan/",
        {"holidays": {"policy": "skip"}, "generation_window_weeks": 10},
        format="json",
    )

    assert response.status_code == 200, response.json()
    answer = response.json()
    assert [
        (item["day"], item["holiday"], item["outcome"]) for item in answer["holidays_ahead"]
    ] == [
        ("2027-05-06", "Christi Himmelfahrt", "skipped"),
        ("2027-05-27", "Fronleichnam", "skipped"),
        ("2028-01-06", "Heilige Drei Könige", "skipped"),
    ]
    assert [item["start"] for item in answer["holidays_ahead"]] == [None, None, None]
