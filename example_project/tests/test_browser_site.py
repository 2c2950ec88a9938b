"""The public series page in a real browser: a cancelled date is struck through, the
language switcher turns the page, rule sentence included, into the language picked, and a
date a holiday moved says so beside it."""

from __future__ import annotations

from typing import Any

import pytest

from example_project.events.models import Organization
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events

from .browser import browser_page, screenshot
from .conftest import VIENNA
from .test_browser_admin import yoga
from .test_holidays import evening_run

__all__ = ["browser_page", "yoga"]  # the fixtures, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# Data fixtures come before browser_page: see browser.read_db.
@pytest.fixture
def yoga_with_a_cancelled_date(yoga: EventSeries) -> tuple[EventSeries, str]:
    """The admin tests' Tuesday yoga, described and generated, its second date cancelled."""
    yoga.description = "Vinyasa flow for all levels."
    yoga.save(update_fields=["description"])
    second = generate_series_events(yoga)[1]
    cancel_occurrence(yoga, second.start)
    local = second.start.astimezone(VIENNA)
    return yoga, f"{local:%a} {local.day} {local:%b %Y} 18:30 (Europe/Vienna)"


def test_series_page_strikes_through_a_cancelled_date_and_switches_language(
    live_server: Any, yoga_with_a_cancelled_date: tuple[EventSeries, str], browser_page: Any
) -> None:
    series, cancelled = yoga_with_a_cancelled_date
    page = browser_page
    page.goto(f"{live_server.url}/series/{series.slug}/")

    assert page.locator("p.rule").inner_text() == "Every week on Tuesday at 18:30 (Europe/Vienna)"
    assert page.locator(".description").first.inner_text() == "Vinyasa flow for all levels."
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


@pytest.fixture
def shifted_runs(organization: Organization) -> EventSeries:
    """The Vienna evening run on Mondays and Thursdays, holidays moved to the next free day."""
    return evening_run(organization, "shift", slug="evening-run")


def test_series_page_says_which_holiday_moved_a_date(
    live_server: Any, shifted_runs: EventSeries, browser_page: Any
) -> None:
    page = browser_page
    page.goto(f"{live_server.url}/series/{shifted_runs.slug}/")

    # A Friday in a Monday/Thursday series, and why, beside the date.
    friday = page.locator("tr.moved", has_text="Fri 7 May 2027 18:30 (Europe/Vienna)")
    assert friday.locator(".moved-note").inner_text() == (
        "Moved from Thu 6 May 2027 because of Ascension Day."
    )
    assert friday.locator(".moved-note").is_visible()
    assert page.locator("tr.moved").count() == 4
    assert page.inner_text("p.rule").endswith("; on holidays (Austria) the next free day instead")
    screenshot(page, "series-page-moved-by-a-holiday")
