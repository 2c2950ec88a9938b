"""Chromium: an 18:30 Thursday class split from a date to 19:00, booked lessons among them.

The organiser opens "Change this and following…", types the new time, sees on the plan
which lesson moves where (the booked one unticked), ticks the booked one too, confirms,
and gets one lesson a week at 19:00: the same lessons, the booking kept, nothing doubled.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from example_project.tests.browser import browser_page, read_db, screenshot
from revel_recurring import rules
from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import BERLIN, MakeSeries, lessons, sign_in
from tests.support.forms import split_url

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def thursdays(make_series: MakeSeries, pupil: User) -> tuple[EventSeries, list[Lesson]]:
    """Thursday lessons at 18:30, the fourth booked."""
    series = make_series(name="Salsa")
    rows = lessons(series)
    Booking.objects.create(lesson=rows[3], pupil=pupil)
    return series, rows


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_a_split_to_19_00_moves_the_same_lessons_without_doubles(
    settings: Any,
    live_server: Any,
    owner: User,
    thursdays: tuple[EventSeries, list[Lesson]],
    browser_page: Any,
) -> None:
    # Nobody told: a booked date moves only when ticked (the case this test is about).
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, rows = thursdays
    page = browser_page
    at = rules.to_utc(rows[1].begins)
    sign_in(page, live_server.url, split_url(series, at))

    page.wait_for_selector("#revel-split-form")
    page.fill("input[name=dtstart_1]", "19:00:00")
    screenshot(page, "studio-split-moves-01-form")
    page.click("input[name=_plan]")

    page.wait_for_selector("#revel-split-plan")
    assert "19:00" in page.inner_text("#revel-split-first")
    lines = page.locator("#revel-plan-drift li")
    assert lines.count() == len(rows) - 1
    booked = page.locator(f"#revel-plan-drift li[data-id='{rows[3].pk}']")
    assert "booked (1 booking)" in booked.inner_text()
    assert "19:00" in booked.locator(".revel-to").inner_text()
    assert not booked.locator("input[type=checkbox]").is_checked()
    others = page.locator("#revel-plan-drift li:not(.revel-booked) input[type=checkbox]")
    assert all(others.nth(i).is_checked() for i in range(others.count()))
    booked.locator("input[type=checkbox]").check()
    screenshot(page, "studio-split-moves-02-plan")
    page.click("#revel-split-plan-form input[name=_confirm]")

    page.wait_for_selector(".messagelist")
    messages = page.inner_text(".messagelist")
    assert f"{len(rows) - 1} dates moved to 19:00" in messages
    assert "0 dates cancelled" in messages
    screenshot(page, "studio-split-moves-03-done")

    def after() -> tuple[list[tuple[Any, dt.datetime, int]], list[Any]]:
        continuation = EventSeries.objects.get(split_from=series)
        found = [
            (lesson.pk, lesson.begins, lesson.bookings.count())
            for lesson in Lesson.objects.filter(series=continuation, is_template=False)
        ]
        return found, list(
            Lesson.objects.filter(series=series, is_template=False).values_list("pk", flat=True)
        )

    moved, kept = read_db(after)
    assert kept == [rows[0].pk]
    assert {pk for pk, _, _ in moved} >= {row.pk for row in rows[1:]}
    weeks = [begins.isocalendar()[:2] for _, begins, _ in moved]
    assert len(weeks) == len(set(weeks)), "one lesson a week"
    assert {begins.astimezone(BERLIN).strftime("%H:%M") for _, begins, _ in moved} == {"19:00"}
    assert dict((pk, count) for pk, _, count in moved)[rows[3].pk] == 1
