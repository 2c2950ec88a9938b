"""What the change plan page says beside the dates, on the testapp host.

- "Now" and "After the change" are one sentence function's (``describe_series``):
  what the change leaves alone (the holiday policy, the extra dates) reads the
  same on both sides, rather than as added;
- the holidays of the next twelve months on the series' dates, with what the new
  settings do to each, also beyond the eight-week window: a Thursday class in
  Bavaria whose policy changes from ``skip`` to ``shift`` in March creates no date
  in its window, yet moves Ascension Day, Corpus Christi and Epiphany.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.editing import update_series
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.plans.holidays_ahead import plan_holidays_ahead
from tests.support.admin import change_url, form_data, form_errors
from tests.support.factories import make_series
from tests.support.holidays_ahead import (
    BAVARIA_SKIP,
    FIRST_THURSDAY,
    NOW,
    SHIFTED_AHEAD,
    THURSDAY_HOLIDAYS,
    at_1830,
    cell,
    frozen_clock,
    section_items,
)

pytestmark = pytest.mark.django_db

PLAN_TEMPLATE = "admin/revel_recurring/eventseries/change_plan.html"


@pytest.fixture(autouse=True)
def _frozen() -> Iterator[None]:
    with frozen_clock():
        yield


def thursday_class(**holidays: Any) -> EventSeries:
    """Thursdays at 18:30 in Berlin from 4 March 2027, Bavaria's holidays, window generated."""
    series = make_series(
        name="Thursday class", dtstart=FIRST_THURSDAY, timezone="Europe/Berlin", weekdays=[3]
    )
    update_series(series, holidays={**BAVARIA_SKIP, **holidays})
    generate_series_events(series, now=timezone.now())
    series.refresh_from_db()
    return series


def shown_plan(admin_client: Any, series: EventSeries, **changes: Any) -> Any:
    response = admin_client.post(change_url(series), form_data(series, **changes))
    assert response.status_code == 200, form_errors(response)
    assert PLAN_TEMPLATE in [template.name for template in response.templates]
    return response


def test_the_plan_page_lists_the_holidays_of_the_next_twelve_months_with_their_fate(
    admin_client: Any,
) -> None:
    series = thursday_class()

    shown = shown_plan(admin_client, series, holiday_policy="shift")

    plan = shown.context["plan"]
    # Within the eight weeks ahead the change creates and skips nothing ...
    assert (plan.new, plan.excluded, plan.drift) == ((), (), ())
    assert section_items(shown, "revel-plan-new") == []
    # ... yet moves three dates of the year, listed with the new policy's fate.
    assert section_items(shown, "revel-plan-holidays-ahead") == SHIFTED_AHEAD["en"]
    assert "Holidays in the next 12 months" in shown.content.decode()
    slots = [line.slot for line in shown.context["ahead"]]
    assert slots == [at_1830(day) for day in THURSDAY_HOLIDAYS]


def test_the_holidays_ahead_follow_the_new_settings_not_the_saved_ones(
    admin_client: Any,
) -> None:
    series = thursday_class(policy="shift")
    # A new time and policy: the list shows the dates as they would be.
    shown = shown_plan(admin_client, series, dtstart_1="19:00:00", holiday_policy="skip")

    assert section_items(shown, "revel-plan-holidays-ahead") == [
        "Ascension Day, Thu 6 May 2027 19:00 (Europe/Berlin): skipped",
        "Corpus Christi, Thu 27 May 2027 19:00 (Europe/Berlin): skipped",
        "Epiphany, Thu 6 Jan 2028 19:00 (Europe/Berlin): skipped",
    ]

    kept = shown_plan(admin_client, series, holiday_policy="keep", weekdays=["0"])

    # Mondays: Easter Monday, Whit Monday, All Saints' Day (1 November 2027) ...
    lines = section_items(kept, "revel-plan-holidays-ahead")
    assert lines[0] == "Easter Monday, Mon 29 Mar 2027 18:30 (Europe/Berlin): kept"
    assert all(line.endswith(": kept") for line in lines)
    assert len(lines) >= 3


def test_the_holidays_ahead_are_one_pass_and_no_query(
    django_assert_num_queries: Any,
) -> None:
    series = EventSeries.objects.select_related("recurrence_rule").get(pk=thursday_class().pk)

    with django_assert_num_queries(0):
        ahead = plan_holidays_ahead(series, {"holidays": {"policy": "keep"}}, now=NOW)

    assert [(item.day, item.outcome.value) for item in ahead] == [
        (day, "kept") for day in THURSDAY_HOLIDAYS
    ]


def test_a_series_without_a_holiday_calendar_lists_no_holidays_ahead(admin_client: Any) -> None:
    series = thursday_class(country="")

    shown = shown_plan(admin_client, series, generation_window_weeks=10)

    assert 'id="revel-plan-holidays-ahead"' not in shown.content.decode()
    assert shown.context["ahead"] == []


def test_now_and_after_read_the_same_where_the_change_leaves_the_setting_alone(
    admin_client: Any,
) -> None:
    series = thursday_class()
    add_extra_date(series, FIRST_THURSDAY + dt.timedelta(days=12), now=timezone.now())
    series.refresh_from_db()

    # Only the window changes: the rule row reads the same on both sides.
    window = shown_plan(admin_client, series, generation_window_weeks=10)

    now_text = cell(window, "revel-plan-old-rule")
    assert now_text == cell(window, "revel-plan-new-rule")
    assert now_text == window.context["plan"].description
    assert now_text.endswith(", and on 1 more date, except on holidays (Bayern, Germany)")
    assert cell(window, "revel-plan-old-holidays") == cell(window, "revel-plan-new-holidays")

    # The time changes: the extra date and the holiday policy stay, on both sides.
    time = shown_plan(admin_client, series, dtstart_1="19:00:00")

    before, after = cell(time, "revel-plan-old-rule"), cell(time, "revel-plan-new-rule")
    assert before == (
        "Every week on Thursday at 18:30 (Europe/Berlin), and on 1 more date, "
        "except on holidays (Bayern, Germany)"
    )
    assert after == before.replace("18:30", "19:00")


@pytest.mark.urls("tests.api_urls")
def test_the_api_plan_answers_the_holidays_ahead(admin_user: Any) -> None:
    series = thursday_class()
    api = APIClient()
    api.force_authenticate(admin_user)

    response = api.post(
        f"/api/recurring/series/{series.pk}/recurrence-plan/",
        {"holidays": {"policy": "shift"}},
        format="json",
    )

    assert response.status_code == 200, response.json()
    answer = response.json()
    assert answer["new"] == []
    assert [
        (item["day"], item["holiday"], item["outcome"], item["start"])
        for item in answer["holidays_ahead"]
    ] == [
        ("2027-05-06", "Ascension Day", "shifted", "2027-05-07T16:30:00Z"),
        ("2027-05-27", "Corpus Christi", "shifted", "2027-05-28T16:30:00Z"),
        ("2028-01-06", "Epiphany", "shifted", "2028-01-07T17:30:00Z"),
    ]
    first = answer["holidays_ahead"][0]
    assert first["slot"] == "2027-05-06T16:30:00Z"
    assert first["display"] == "Thu 6 May 2027 18:30 (Europe/Berlin)"
    assert first["start_display"] == "Fri 7 May 2027 18:30 (Europe/Berlin)"
    assert (first["no_free_day"], first["cancelled"]) == (False, False)
    # The series' sentence carries its holiday policy, as the admin's does.
    assert answer["description"].endswith(
        "; on holidays (Bayern, Germany) the next free day instead"
    )
