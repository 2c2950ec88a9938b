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

from .browser import browser_page, open_series_page, screenshot
from .test_browser_admin import PASSWORD, superuser, yoga
from .test_browser_split import generated_yoga

# The fixtures, imported for pytest.
__all__ = ["browser_page", "generated_yoga", "superuser", "yoga"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# Data fixtures come before browser_page: see browser.read_db.
@pytest.fixture
def enrolled_yoga(generated_yoga: EventSeries, django_user_model: Any) -> EventSeries:
    regular = django_user_model.objects.create_user("lena", "lena@example.com")
    enrol(generated_yoga, regular, now=timezone.now())
    return generated_yoga


def test_the_split_plan_counts_the_enrolled_regular(
    live_server: Any, superuser: Any, enrolled_yoga: EventSeries, browser_page: Any
) -> None:
    series, page = enrolled_yoga, browser_page
    open_series_page(page, live_server.url, series.pk, PASSWORD)
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
