"""Chromium: Bavarian holidays on a lesson series' page.

The series skips holidays: its page names the skipped date ("Skipped: ..."). The
organiser switches the Holidays fieldset to moving the date instead; the plan
page names the date the holiday moves and, with its fate, each holiday of the next
twelve months on a lesson; once confirmed the series page lists
the moved lesson as "Moved from <date> (<holiday>)".
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from example_project.tests.browser import browser_page, read_db, screenshot
from revel_recurring.admin.holidays import local_day
from revel_recurring.instants import describe_instant
from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Lesson, School, User
from tests.studio.conftest import BERLIN, sign_in
from tests.support.holiday_dates import at, holiday_name
from tests.support.holiday_lessons import bavarian_holiday, lessons_on

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def holiday() -> dt.date:
    return bavarian_holiday()


@pytest.fixture
def skipping(school: School, holiday: dt.date) -> EventSeries:
    return lessons_on(holiday, school, country="DE", subdivision="BY", policy="skip")


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_the_series_page_names_skipped_and_moved_holiday_dates(
    live_server: Any, owner: User, holiday: dt.date, skipping: EventSeries, browser_page: Any
) -> None:
    page = browser_page
    name = holiday_name("DE", holiday, "en_US", subdivision="BY")
    slot = at(holiday, BERLIN, 18, 30)
    moved_note = f"Moved from {local_day(slot, 'Europe/Berlin')} ({name})"
    url = f"{live_server.url}/admin/revel_recurring/eventseries/{skipping.pk}/change/"

    sign_in(page, live_server.url, url.removeprefix(live_server.url))
    page.wait_for_selector("#revel-upcoming")
    skipped_row = page.locator("#revel-upcoming tr", has_text=f"Skipped: {name}")
    assert skipped_row.count() == 1
    assert skipped_row.locator("button.revel-restore").count() == 1
    assert page.input_value("input[name=holiday_country]") == "DE"
    assert page.input_value("input[name=holiday_subdivision]") == "BY"
    screenshot(page, "studio-holidays-01-skipped")

    page.select_option("select[name=holiday_policy]", "shift")
    page.click("input[name=_continue]")

    page.wait_for_selector("#revel-plan")
    assert "Move the date" in page.inner_text("#revel-plan-new-holidays")
    assert "Skip the date" in page.inner_text("#revel-plan-old-holidays")
    assert moved_note in page.inner_text("#revel-plan-new")
    # Both sides of the rule name the calendar: the policy reads as changed, not added.
    assert "(Bayern, Germany)" in page.inner_text("#revel-plan-old-rule")
    assert "(Bayern, Germany)" in page.inner_text("#revel-plan-new-rule")
    # The holidays of the next twelve months, with the new policy's fate.
    ahead = page.locator("#revel-plan-holidays-ahead li", has_text=name)
    assert ahead.first.is_visible()
    assert (
        f"{name}, {describe_instant(slot, 'Europe/Berlin')}: moved to " in ahead.first.inner_text()
    )
    screenshot(page, "studio-holidays-02-plan")

    page.click("#revel-plan-form input[name=_continue]")
    page.wait_for_selector(".messagelist")
    assert "new schedule applied" in page.inner_text(".messagelist")
    moved_row = page.locator("#revel-upcoming tr", has_text=moved_note)
    assert moved_row.count() == 1
    assert f"Skipped: {name}" not in page.inner_text("#revel-upcoming")
    screenshot(page, "studio-holidays-03-moved")

    def moved_lesson() -> Any:
        return Lesson.objects.filter(series=skipping, recurrence_id=slot).values_list(
            "begins", flat=True
        )

    assert list(read_db(moved_lesson)) == [slot + dt.timedelta(days=1)]
