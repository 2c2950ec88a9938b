"""In Chromium: with the Celery broker unreachable, a queued admin action shows an error
message naming what was not queued, on the list, and nothing changes."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from example_project.tests.browser import browser_page, read_db, screenshot
from revel_recurring.models import EventSeries
from tests.hosts.studio.models import User
from tests.studio.conftest import MakeSeries, sign_in
from tests.support.queued import broker_down

__all__ = ["broker_down", "browser_page"]  # fixtures, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2)
def test_pausing_over_the_inline_limit_with_the_broker_down_shows_what_was_not_queued(
    live_server: Any, owner: User, make_series: MakeSeries, broker_down: str, browser_page: Any
) -> None:
    for name in ("Salsa", "Tango", "Bachata"):
        make_series(name=name)
    page = browser_page

    sign_in(page, live_server.url, "/admin/revel_recurring/eventseries/")
    page.wait_for_selector("#result_list")
    page.check("#action-toggle")  # all three: one more than the inline limit
    page.select_option("select[name=action]", "pause_action")
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist")
    screenshot(page, "studio-broker-down-01-pause")

    assert page.locator(".messagelist .error").count() == 1
    assert page.inner_text(".messagelist .error") == (
        "Nothing was queued: the task queue could not be reached. "
        "“Pause” was not started for 3 series: Salsa, Tango, Bachata. Nothing was done "
        "to them; try again later."
    )
    assert page.locator("#result_list").count() == 1  # the list, not an error page
    active = read_db(lambda: set(EventSeries.objects.values_list("is_active", flat=True)))
    assert active == {True}
