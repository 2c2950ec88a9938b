"""The public series page in a real browser: a cancelled date is struck through, and the
language switcher turns the page, rule sentence included, into the language picked."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from example_project.events.models import Organization
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.lifecycle import create_recurring_series

from .browser import browser_page, screenshot
from .test_browser_admin import next_tuesday_evening

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# Data fixtures come before browser_page: see browser.read_db.
@pytest.fixture
def run_with_a_cancelled_date(django_user_model: Any) -> tuple[EventSeries, str]:
    owner = django_user_model.objects.create_user("owner")
    organization = Organization.objects.create(name="Runners", slug="runners", owner=owner)
    start = next_tuesday_evening()
    series = create_recurring_series(
        name="Evening Run",
        description="An easy loop along the river.",
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [1],
            "dtstart": start,
            "timezone": "Europe/Vienna",
        },
        template_data={
            "organization": organization,
            "name": "Evening Run",
            "slug": "evening-run",
            "end": start + dt.timedelta(hours=1),
        },
        auto_publish=True,
        generation_window_weeks=3,
    )
    cancelled = start + dt.timedelta(weeks=1)
    cancel_occurrence(series, cancelled)
    return series, f"{cancelled:%a} {cancelled.day} {cancelled:%b %Y} 18:30 (Europe/Vienna)"


def test_series_page_strikes_through_a_cancelled_date_and_switches_language(
    live_server: Any, run_with_a_cancelled_date: tuple[EventSeries, str], browser_page: Any
) -> None:
    series, cancelled = run_with_a_cancelled_date
    page = browser_page
    page.goto(f"{live_server.url}/series/{series.slug}/")

    assert page.locator("p.rule").inner_text() == "Every week on Tuesday at 18:30 (Europe/Vienna)"
    assert page.locator(".description").first.inner_text() == "An easy loop along the river."
    struck = page.locator("tr.cancelled td s")
    assert struck.count() == 1
    assert struck.inner_text() == cancelled
    # What the eye sees: the cancelled date is drawn with a line through it, the others not.
    decorations = page.eval_on_selector_all(
        "table tr td:nth-child(2)",
        "cells => cells.map(c => getComputedStyle(c.firstElementChild || c).textDecorationLine)",
    )
    assert decorations.count("line-through") == 1
    assert decorations.count("none") == len(decorations) - 1 >= 1
    screenshot(page, "series-page-english")

    page.select_option("#language", "de")
    page.click("#language-switcher button[type=submit]")
    page.wait_for_selector("html[lang=de]")

    assert page.url == f"{live_server.url}/series/{series.slug}/"
    assert "Dienstag" in page.locator("p.rule").inner_text()
    assert page.locator("#language option:checked").inner_text() == "Deutsch"
    assert page.locator("tr.cancelled td s").count() == 1
    screenshot(page, "series-page-german")
