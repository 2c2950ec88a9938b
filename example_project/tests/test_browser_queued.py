"""In Chromium: a queued deletion, then the series list's "Recent bulk actions" names the kept one.

The example project runs Celery eagerly, so the queued chunks have run by the time
the list is shown again: the module reads finished, with the booked series named.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import override_settings

from example_project.events.models import Organization, TicketTier
from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series

from .browser import browser_page, screenshot, submit_login
from .test_browser_admin import PASSWORD, next_tuesday_evening, superuser

__all__ = ["browser_page", "superuser"]  # fixtures, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def runs(django_user_model: Any) -> list[EventSeries]:
    owner = django_user_model.objects.create_user("owner")
    organization = Organization.objects.create(name="Runners", slug="runners", owner=owner)
    start = next_tuesday_evening()
    made = [
        create_recurring_series(
            name=name,
            rule_data={
                "frequency": "WEEKLY",
                "weekdays": [1],
                "dtstart": start,
                "timezone": "Europe/Vienna",
            },
            template_data={
                "organization": organization,
                "name": name,
                "slug": name.lower(),
                "end": start + dt.timedelta(hours=1),
            },
            auto_publish=True,
        )
        for name in ("Sprint", "Hills", "Tempo")
    ]
    booked = made[1].occurrences().order_by("start").first()
    assert booked is not None
    TicketTier.objects.create(event=booked, name="Runner", quantity=10, quantity_sold=2)
    return made


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2)
def test_the_list_shows_a_queued_deletion_finished_with_the_booked_series_named(
    live_server: Any, superuser: Any, runs: list[EventSeries], browser_page: Any
) -> None:
    page = browser_page
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/admin/login/?next=/admin/revel_recurring/eventseries/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    submit_login(page)
    page.wait_for_selector("#result_list")
    assert page.locator("#revel-queued").count() == 0  # nothing queued yet

    page.check("#action-toggle")
    page.select_option("select[name=action]", "delete_selected")
    page.click("button[name=index]")
    page.click("input[type=submit]")  # the queued deletion's summary: "Yes, I'm sure"
    page.wait_for_selector("#revel-queued")
    screenshot(page, "queued-01-recent-bulk-actions")

    message = page.inner_text(".messagelist")
    module = page.locator("#revel-queued")
    text = module.inner_text()
    assert "3 series queued for deletion" in message
    assert "This page shows when it has finished." in message
    assert "Celery" not in message
    assert "Recent bulk actions" in text
    assert "Delete, 3 series, queued" in text
    assert "by admin" in text
    assert ": 2 of 3 series done, 1 failed." in text
    assert module.locator(".revel-queued-failures li").all_inner_texts()[0].startswith("Hills: ")
    assert module.is_visible()
    box = module.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 1366  # the module fits the window
    page.click("#revel-queued a:text('All bulk actions')")
    page.wait_for_selector("#result_list")
    assert "Delete" in page.inner_text("#result_list")
