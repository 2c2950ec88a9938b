"""What the change plan page says beside the dates, on the studio host (UUID lessons).

A Thursday salsa class in Bavaria: its holiday policy changed from ``skip`` to
``shift`` in March creates no lesson in the eight weeks ahead, yet the page and
the API's plan list the three lessons of the year it moves; "Now" and "After the
change" read the same where the change leaves the setting alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.studio.models import School, User
from tests.studio.conftest import PASSWORD
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


@pytest.fixture(autouse=True)
def _frozen() -> Iterator[None]:
    with frozen_clock():
        yield


@pytest.fixture
def owner(db: Any) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("owner@studio.example", PASSWORD))  # type: ignore[arg-type]
    return client


def salsa_class(school: School) -> EventSeries:
    return create_recurring_series(
        name="Salsa",
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [3],
            "dtstart": FIRST_THURSDAY,
            "timezone": "Europe/Berlin",
        },
        template_data={"school": school, "title": "Salsa", "room": "Hall 1"},
        holidays=BAVARIA_SKIP,
        auto_publish=True,
    )


def test_the_plan_page_lists_the_lessons_holidays_move_in_the_next_twelve_months(
    owner: Client, school: School
) -> None:
    series = salsa_class(school)
    url = f"{CHANGELIST}{series.pk}/change/"

    shown = owner.post(url, form_data(series, holiday_policy="shift"))

    assert shown.status_code == 200, form_errors(shown)
    assert shown.context["plan"].new == ()
    assert section_items(shown, "revel-plan-holidays-ahead") == SHIFTED_AHEAD["en"]
    # The holiday policy is the same setting on both sides of the rule until it changes.
    assert cell(shown, "revel-plan-old-rule").endswith(", except on holidays (Bayern, Germany)")
    assert cell(shown, "revel-plan-new-rule").endswith(
        "; on holidays (Bayern, Germany) the next free day instead"
    )

    window = owner.post(url, form_data(series, generation_window_weeks=12))

    assert window.status_code == 200, form_errors(window)
    assert cell(window, "revel-plan-old-rule") == cell(window, "revel-plan-new-rule")
    assert section_items(window, "revel-plan-holidays-ahead") == [
        line.split(": moved to")[0] + ": skipped" for line in SHIFTED_AHEAD["en"]
    ]


def test_the_api_plan_lists_the_holidays_ahead(api: APIClient, school: School) -> None:
    series = salsa_class(school)

    response = api.post(
        f"/api/recurring/series/{series.pk}/recurrence-plan/",
        {"holidays": {"policy": "shift"}},
        format="json",
    )

    assert response.status_code == 200, response.json()
    ahead = response.json()["holidays_ahead"]
    assert [(item["holiday"], item["outcome"], item["start_display"]) for item in ahead] == [
        ("Ascension Day", "shifted", "Fri 7 May 2027 18:30 (Europe/Berlin)"),
        ("Corpus Christi", "shifted", "Fri 28 May 2027 18:30 (Europe/Berlin)"),
        ("Epiphany", "shifted", "Fri 7 Jan 2028 18:30 (Europe/Berlin)"),
    ]
