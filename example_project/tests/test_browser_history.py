"""Chromium: after a new schedule, the organiser reads on the series' History who changed
what and which dates moved.

The Tuesday yoga moves to Thursdays through the admin's change plan; the History
button of the series page then shows the applied plan first, by the admin through
the admin, each Tuesday beside the Thursday it moved to, and the rule's weekdays
before and after. An operation's own page lists the same dates.
"""

from __future__ import annotations

from typing import Any

import pytest

from revel_recurring.models import EventSeries

from .browser import browser_page, open_series_page, read_db, screenshot
from .test_browser_admin import PASSWORD, superuser, yoga
from .test_browser_split import generated_yoga

# The fixtures, imported for pytest.
__all__ = ["browser_page", "generated_yoga", "superuser", "yoga"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_history_shows_who_applied_the_plan_and_the_dates_it_moved(
    live_server: Any, superuser: Any, generated_yoga: EventSeries, browser_page: Any
) -> None:
    series, page = generated_yoga, browser_page
    open_series_page(page, live_server.url, series.pk, PASSWORD)
    tuesdays = page.locator("#revel-upcoming tbody tr").count()
    page.uncheck("#id_weekdays_1")
    page.check("#id_weekdays_3")
    page.click("input[name=_continue]")
    page.wait_for_selector("#revel-plan")
    page.click("#revel-plan-form input[name=_continue]")
    page.wait_for_selector(".messagelist .success")

    page.click("a.historylink")
    page.wait_for_selector("#revel-history")
    first = page.locator("#revel-history .revel-operation").first
    assert first.get_attribute("data-kind") == "plan"
    assert first.locator(".revel-op-kind").inner_text() == "Plan applied"
    assert first.locator(".revel-op-who").inner_text() == "admin"
    assert first.locator(".revel-op-face").inner_text() == "admin"
    assert "(Europe/Vienna)" in first.locator(".revel-op-when").inner_text()
    # What the organiser changed, not the generation's cursor.
    assert first.locator(".revel-operation-changes").inner_text() == "rule.weekdays: [1] → [3]"
    moved = first.locator("tr.revel-operation-row[data-change='moved']")
    assert moved.count() == min(tuesdays, 10)
    row = moved.first
    assert row.locator(".revel-before").inner_text().startswith("Tue ")
    assert row.locator(".revel-after").inner_text().startswith("→ Thu ")
    assert "18:30 (Europe/Vienna)" in row.locator(".revel-after").inner_text()
    screenshot(page, "history-after-plan")

    first.locator("a.revel-op-link").click()
    page.wait_for_selector("#revel-operation")
    assert page.locator("#revel-operation .revel-op-who").inner_text() == "admin"
    assert page.locator("#revel-operation tr.revel-operation-row.revel-moved").count() == tuesdays
    moved_rows = read_db(
        lambda: series.operations.filter(kind="plan").values_list("row_count", flat=True).get()
    )
    assert moved_rows == tuesdays
    screenshot(page, "history-operation")
