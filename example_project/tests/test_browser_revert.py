"""Chromium: an organiser undoes a plan from the series' history.

Yoga moved from Tuesdays to Wednesdays by a plan; the organiser opens the series'
History, follows "Revert…" on that operation, reads the dates going back to their
Tuesdays and confirms: the same rows are on Tuesdays again, and the history no
longer offers to revert it.
"""

from __future__ import annotations

from typing import Any

import pytest

from example_project.events.models import Event
from revel_recurring.models import EventSeries, SeriesOperation
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change

from .browser import browser_page, open_series_page, read_db, screenshot
from .test_browser_admin import PASSWORD, superuser, yoga

__all__ = ["browser_page", "superuser", "yoga"]  # the fixtures, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WEDNESDAYS = {"weekdays": [2]}


def _rows(series: EventSeries) -> list[tuple[Any, ...]]:
    return list(
        Event.objects.filter(series=series, is_template=False)
        .order_by("pk")
        .values_list("pk", "start", "recurrence_id")
    )


# Data fixtures come before browser_page: see browser.read_db.
@pytest.fixture
def moved_yoga(yoga: EventSeries) -> tuple[EventSeries, list[tuple[Any, ...]]]:
    generate_series_events(yoga)
    tuesdays = _rows(yoga)
    plan = plan_recurrence_change(yoga, WEDNESDAYS)
    apply_recurrence_plan(yoga, plan.hash, WEDNESDAYS, cancel_drift="all", notify="none")
    return yoga, tuesdays


def test_reverting_a_plan_from_the_history_puts_the_dates_back(
    live_server: Any, superuser: Any, moved_yoga: Any, browser_page: Any
) -> None:
    (series, tuesdays), page = moved_yoga, browser_page
    open_series_page(page, live_server.url, series.pk, PASSWORD)
    page.goto(f"{live_server.url}/admin/revel_recurring/eventseries/{series.pk}/history/")
    page.locator(".revel-operation[data-kind=plan] a.revel-op-revert").click()

    page.wait_for_selector("#revel-revert")
    assert "Tuesday" in page.inner_text("#revel-revert-rule")
    restored = page.locator("#revel-revert-restored tbody tr")
    assert restored.count() == len(tuesdays)
    screenshot(page, "revert-plan")
    page.click("input[name=_confirm]")
    page.wait_for_selector(".messagelist .success")

    assert read_db(lambda: _rows(series)) == tuesdays
    assert read_db(lambda: SeriesOperation.objects.filter(kind="revert").count()) == 1
    assert page.locator(".revel-operation[data-kind=plan] a.revel-op-revert").count() == 0
    screenshot(page, "revert-done")
