"""Chromium: the split form's title follows the new name, the plan shows it, and the public
pages of the two halves link each other.

The organiser opens "Change this and following…" on the third Tuesday, types only a new
name: the title of each date follows letter by letter. The plan shows the new title on the
continuation's side; after the split every date of the continuation carries it, and each
half's public page links to the other.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest

from example_project.events.models import Event
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events

from .browser import browser_page, open_series_page, read_db, screenshot
from .test_browser_admin import PASSWORD, superuser, yoga

__all__ = ["browser_page", "superuser", "yoga"]  # the fixtures, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
VIENNA = ZoneInfo("Europe/Vienna")


# Data fixtures come before browser_page: see browser.read_db.
@pytest.fixture
def generated_yoga(yoga: EventSeries) -> EventSeries:
    generate_series_events(yoga)
    return yoga


def test_a_new_name_alone_renames_the_dates_and_the_halves_link_each_other(
    live_server: Any, superuser: Any, generated_yoga: EventSeries, browser_page: Any
) -> None:
    series, page = generated_yoga, browser_page
    open_series_page(page, live_server.url, series.pk, PASSWORD)
    page.locator("#revel-upcoming a.revel-split-link").nth(1).click()

    page.wait_for_selector("#revel-split-form")
    title = "#id_template-name"
    assert page.input_value(title) == "Yoga"
    assert page.inner_text("label[for='id_template-name']").startswith("Title of each date")
    assert page.locator("#revel-split-holidays #id_holiday_policy").is_visible()
    page.fill("#id_name", "")
    page.type("#id_name", "Evening yoga")
    assert page.input_value(title) == "Evening yoga"
    screenshot(page, "split-title-follows-name")
    page.click("input[name=_plan]")

    page.wait_for_selector("#revel-split-plan")
    assert page.inner_text("#revel-split-old-title") == "Yoga"
    assert page.inner_text("#revel-split-new-title") == "Evening yoga"
    screenshot(page, "split-plan-title")
    page.click("input[name=_confirm]")
    page.wait_for_selector(".messagelist .success")

    continuation = read_db(lambda: EventSeries.objects.get(split_from=series))
    names = read_db(
        lambda: set(Event.objects.filter(series=continuation).values_list("name", flat=True))
    )
    assert names == {"Evening yoga"}

    page.goto(f"{live_server.url}/series/{series.slug}/")
    onward = page.locator("#revel-continued-by")
    assert onward.inner_text().startswith("Continues as Evening yoga from ")
    assert "Its calendar" in onward.inner_text()
    screenshot(page, "split-original-public-page")
    # The links are the adapter's absolute addresses (EXAMPLE_SITE_URL): followed here
    # on the test server.
    href = onward.locator("a", has_text="Evening yoga").get_attribute("href") or ""
    assert urlsplit(href).path == f"/series/{continuation.slug}/"
    page.goto(live_server.url + urlsplit(href).path)
    page.wait_for_selector("#revel-continues")
    assert page.locator("h1").inner_text() == "Evening yoga"
    assert page.inner_text("#revel-continues").startswith("Continues Yoga from ")
    back = page.locator("#revel-continues a").get_attribute("href") or ""
    assert urlsplit(back).path == f"/series/{series.slug}/"
    screenshot(page, "split-continuation-public-page")


def test_a_split_to_a_later_time_moves_the_dates_with_ticks_and_links_the_halves(
    live_server: Any, superuser: Any, generated_yoga: EventSeries, browser_page: Any
) -> None:
    """From the third Tuesday at 19:30 instead: the plan ticks each date to move to its new
    time, confirming moves the same dates (one a week, nothing doubled), and both public
    pages link the other half."""
    series, page = generated_yoga, browser_page
    before = read_db(
        lambda: list(
            Event.objects.filter(series=series, is_template=False)
            .order_by("start")
            .values_list("pk", "start")
        )
    )
    open_series_page(page, live_server.url, series.pk, PASSWORD)
    page.locator("#revel-upcoming a.revel-split-link").nth(1).click()

    page.wait_for_selector("#revel-split-form")
    old_time = page.input_value("input[name=dtstart_1]")
    page.fill("input[name=dtstart_1]", "19:30:00")
    page.click("input[name=_plan]")

    page.wait_for_selector("#revel-split-plan")
    assert "19:30" in page.inner_text("#revel-split-first")
    boxes = page.locator("#revel-plan-drift input[type=checkbox]")
    assert boxes.count() == len(before) - 2
    assert all(boxes.nth(i).is_checked() for i in range(boxes.count()))
    assert {
        page.locator("#revel-plan-drift .revel-to").nth(i).inner_text()
        for i in range(boxes.count())
    } == {"19:30"}
    screenshot(page, "split-later-time-plan")
    page.click("input[name=_confirm]")
    page.wait_for_selector(".messagelist .success")
    assert f"{len(before) - 2} dates moved to 19:30" in page.inner_text(".messagelist")

    continuation = read_db(lambda: EventSeries.objects.get(split_from=series))
    after = read_db(
        lambda: dict(
            Event.objects.filter(series=continuation, is_template=False).values_list("pk", "start")
        )
    )
    moved = dict(before[2:])
    assert set(moved) <= set(after), "the same dates, in the new series"
    weeks = [start.isocalendar()[:2] for start in after.values()]
    assert len(weeks) == len(set(weeks)), "one date a week: nothing doubled"
    assert {start.astimezone(VIENNA).strftime("%H:%M") for start in after.values()} == {"19:30"}
    assert old_time != "19:30:00"

    page.goto(f"{live_server.url}/series/{series.slug}/")
    onward = page.locator("#revel-continued-by")
    assert onward.inner_text().startswith(f"Continues as {continuation.name} from ")
    page.goto(f"{live_server.url}/series/{continuation.slug}/")
    assert page.inner_text("#revel-continues").startswith("Continues Yoga from ")
    screenshot(page, "split-later-time-public-page")
