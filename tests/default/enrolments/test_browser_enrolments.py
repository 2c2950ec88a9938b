"""Chromium: the organiser sees who is enrolled in a class and which date one of them skipped.

Anna and Ben are enrolled in a weekly class; Ben skipped the second date. On the
series page the organiser reads both names under "Enrolled" and "skipped by ben"
on the second date only, then follows Anna's name to her enrolment.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from example_project.tests.browser import browser_page, screenshot, submit_login
from revel_recurring.models import EventSeries
from revel_recurring.services.enrolments import enrol, skip_date
from revel_recurring.services.generation import generate_series_events
from tests.support.factories import make_series, occurrences

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def enrolled_class(django_user_model: Any) -> tuple[EventSeries, list[Any], Any]:
    series = make_series(name="Tuesday class", auto_publish=True, window_weeks=4)
    generate_series_events(series, now=timezone.now())
    rows = occurrences(series)
    anna = django_user_model.objects.create_user(
        "anna", "anna@example.com", "pw", first_name="Anna", last_name="Berg"
    )
    ben = django_user_model.objects.create_user("ben", "ben@example.com", "pw")
    enrol(series, anna)
    skip_date(enrol(series, ben).enrolment, rows[1])
    return series, rows, anna.pk


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_the_organiser_sees_the_enrolled_users_and_the_date_one_skipped(
    live_server: Any, admin_user: Any, enrolled_class: Any, browser_page: Any
) -> None:
    series, rows, anna = enrolled_class
    page = browser_page
    page.goto(f"{live_server.url}/admin/revel_recurring/eventseries/{series.pk}/change/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "password")
    submit_login(page)

    enrolled = page.locator("#revel-enrolled")
    assert enrolled.locator("h2").text_content() == "Enrolled: 2 users"
    names = enrolled.locator("tr.revel-enrolled-row td:first-child").all_inner_texts()
    assert names == ["Anna Berg", "ben@example.com"]
    upcoming = page.locator("#revel-upcoming tr.revel-row")
    assert upcoming.count() == len(rows)
    skipped = upcoming.nth(1).locator(".revel-skipped")
    assert skipped.is_visible()
    assert skipped.inner_text() == "skipped by ben@example.com"
    assert page.locator("#revel-upcoming .revel-skipped").count() == 1
    screenshot(page, "default-enrolled-01-series-page")

    enrolled.get_by_role("link", name="Anna Berg").click()
    page.wait_for_url(lambda url: "/admin/revel_recurring/enrolment/" in url)
    assert page.locator(".field-user_pk .readonly").inner_text() == str(anna)
    assert page.locator("input[name=end]").is_visible(), "the organiser may end it"
    screenshot(page, "default-enrolled-02-enrolment")
