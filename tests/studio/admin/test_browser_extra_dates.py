"""Chromium: "Add a date" on a Thursday lesson series.

The organiser types a Saturday 11:00 (Berlin) into the series page's "Add a date"
form, sees it created, listed under "Extra dates" and marked "extra date" in the
upcoming list between the Thursdays.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from example_project.tests.browser import browser_page, read_db, screenshot
from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.validators import EXTRA_DATES_MAX
from tests.hosts.studio.models import User
from tests.studio.conftest import BERLIN, MakeSeries, lessons, sign_in

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def series(make_series: MakeSeries) -> EventSeries:
    return make_series(generation_window_weeks=6)


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_adding_a_date_on_the_series_page_marks_it_in_the_upcoming_list(
    live_server: Any, owner: User, series: EventSeries, browser_page: Any
) -> None:
    page = browser_page
    saturday = (lessons(series)[1].begins.astimezone(BERLIN) + dt.timedelta(days=2)).replace(
        hour=11, minute=0
    )
    label = f"{saturday:%a} {saturday.day} {saturday:%b %Y} 11:00 (Europe/Berlin)"
    url = f"{live_server.url}/admin/revel_recurring/eventseries/{series.pk}/change/"

    sign_in(page, live_server.url, url.removeprefix(live_server.url))
    page.wait_for_selector("#revel-add-date")
    assert page.locator("#revel-upcoming .revel-badge-extra").count() == 0
    assert "Europe/Berlin" in page.inner_text("#revel-add-date label")
    page.fill("#revel-add-date input[name=when_0]", f"{saturday:%Y-%m-%d}")
    page.fill("#revel-add-date input[name=when_1]", "11:00")
    screenshot(page, "studio-extra-date-01-form")
    page.click("#revel-add-date button[name=add_date]")

    page.wait_for_selector(".messagelist")
    assert f"{label} added to Salsa; its occurrence was created." in page.inner_text(".messagelist")
    marked = page.locator("#revel-upcoming tr.revel-row", has=page.locator(".revel-badge-extra"))
    assert marked.count() == 1
    assert marked.locator("td").first.inner_text() == label
    assert marked.get_attribute("data-slot") == rules.format_instant(saturday)
    assert "extra date" in marked.inner_text()
    rows = page.locator("#revel-upcoming tr.revel-row")
    assert rows.nth(2).get_attribute("data-slot") == rules.format_instant(saturday)
    assert page.locator("#revel-extra-dates li.revel-extra-date").inner_text().startswith(label)
    screenshot(page, "studio-extra-date-02-marked")

    def stored() -> list[str]:
        return list(EventSeries.objects.get(pk=series.pk).extra_dates)

    assert read_db(stored) == [rules.format_instant(saturday)]


@pytest.fixture
def full_series(make_series: MakeSeries) -> EventSeries:
    """A lesson series holding EXTRA_DATES_MAX extra dates (Saturdays 11:00, Berlin)."""
    series = make_series(generation_window_weeks=2)
    first = (lessons(series)[0].begins.astimezone(BERLIN) + dt.timedelta(days=2)).replace(
        hour=11, minute=0
    )
    series.extra_dates = rules.normalize_exdates(
        [first + dt.timedelta(weeks=week) for week in range(EXTRA_DATES_MAX)]
    )
    series.save(update_fields=["extra_dates"])
    return series


def test_one_date_more_than_the_limit_is_refused_on_its_form_keeping_what_was_typed(
    live_server: Any, owner: User, full_series: EventSeries, browser_page: Any
) -> None:
    page = browser_page
    friday = (lessons(full_series)[0].begins.astimezone(BERLIN) + dt.timedelta(days=1)).replace(
        hour=17, minute=0
    )
    url = f"{live_server.url}/admin/revel_recurring/eventseries/{full_series.pk}/change/"

    sign_in(page, live_server.url, url.removeprefix(live_server.url))
    page.wait_for_selector("#revel-add-date")
    page.fill("#revel-add-date input[name=when_0]", f"{friday:%Y-%m-%d}")
    page.fill("#revel-add-date input[name=when_1]", "17:00")
    page.click("#revel-add-date button[name=add_date]")

    page.wait_for_selector("#revel-add-date-errors")
    message = page.inner_text("#revel-add-date-errors")
    assert f"at most {EXTRA_DATES_MAX} extra dates; this would give it 501" in message
    assert page.locator(".messagelist .error").count() == 0
    # The page opens at the form, with the date and time as typed.
    assert page.url.endswith("/change/#revel-add-date")
    assert page.input_value("#revel-add-date input[name=when_0]") == f"{friday:%Y-%m-%d}"
    assert page.input_value("#revel-add-date input[name=when_1]") == "17:00"
    box = page.locator("#revel-add-date").bounding_box()
    assert box is not None
    assert 0 <= box["y"] < page.viewport_size["height"]
    screenshot(page, "studio-extra-date-03-limit")

    def count() -> int:
        return len(EventSeries.objects.get(pk=full_series.pk).extra_dates)

    assert read_db(count) == EXTRA_DATES_MAX
