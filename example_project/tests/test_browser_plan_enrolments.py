"""Chromium: the split's plan page says how many enrolled users go on with the continuation.

A regular is enrolled in the Tuesday yoga; the organiser opens "Change this and
following…" on the third Tuesday, adds Thursdays, and reads on the plan, before
anything is saved, that she goes on with the continuation, that its new Thursdays book
her, and, on each Thursday, that it books one enrolled user.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from revel_recurring.models import EventSeries
from revel_recurring.services.enrolments import enrol
from revel_recurring.services.generation import generate_series_events

from .browser import browser_page, screenshot, submit_login
from .test_browser_admin import PASSWORD, superuser, yoga

__all__ = ["browser_page", "superuser", "yoga"]  # the fixtures, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# Data fixtures come before browser_page: see browser.read_db.
@pytest.fixture
def enrolled_yoga(yoga: EventSeries, django_user_model: Any) -> EventSeries:
    generate_series_events(yoga)
    regular = django_user_model.objects.create_user("lena", "lena@example.com")
    enrol(yoga, regular, now=timezone.now())
    return yoga


def test_the_split_plan_counts_the_enrolled_regular(
    live_server: Any, superuser: Any, enrolled_yoga: EventSeries, browser_page: Any
) -> None:
    series, page = enrolled_yoga, browser_page
    change = f"/admin/revel_recurring/eventseries/{series.pk}/change/"
    page.goto(f"{live_server.url}/admin/login/?next={change}")
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    submit_login(page)
    page.wait_for_selector("#revel-upcoming")
    page.locator("#revel-upcoming a.revel-split-link").nth(1).click()
    page.wait_for_selector("#revel-split-form")
    page.check("#id_weekdays_3")
    page.click("input[name=_plan]")

    page.wait_for_selector("#revel-split-plan")
    enrolled = page.inner_text("#revel-plan-enrolled-count")
    assert enrolled.startswith("1 user enrolled in the series goes on with Yoga")
    assert "The new dates book 1 of them." in enrolled
    thursdays = page.locator("#revel-split-new li")
    assert thursdays.count() > 0
    assert thursdays.first.inner_text().endswith("books 1 enrolled user")
    screenshot(page, "split-plan-enrolled")
