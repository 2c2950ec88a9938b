"""Chromium: Tuesday/Thursday lessons with bookings moved to Monday/Wednesday in the admin.

The organiser ticks other weekdays and saves; the plan page shows the lessons
now beside the lessons after, the booked ones marked and unticked; confirming
lands on the change page with the Monday and Wednesday lessons already listed.
"""

from __future__ import annotations

from typing import Any

import pytest

from example_project.tests.browser import browser_page, read_db, screenshot
from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Lesson, User
from tests.studio.conftest import sign_in

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_with_nobody_told_moving_booked_lessons_to_monday_and_wednesday_in_the_browser(
    live_server: Any,
    owner: User,
    booked_tue_thu: tuple[EventSeries, list[Lesson]],
    browser_page: Any,
    settings: Any,
) -> None:
    """Nobody told: the booked lessons start unticked and stay."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, rows = booked_tue_thu
    page = browser_page
    url = f"{live_server.url}/admin/revel_recurring/eventseries/{series.pk}/change/"

    sign_in(page, live_server.url, url.removeprefix(live_server.url))
    page.wait_for_selector("#revel-upcoming")
    for day in ("1", "3"):
        page.uncheck(f"input[name=weekdays][value='{day}']")
    for day in ("0", "2"):
        page.check(f"input[name=weekdays][value='{day}']")
    page.click("input[name=_continue]")

    page.wait_for_selector("#revel-plan")
    assert "Monday" in page.inner_text("#revel-plan-new-rule")
    assert "Tuesday" in page.inner_text("#revel-plan-old-rule")
    before = page.locator("#revel-plan-before li")
    assert before.count() == len(rows)
    booked_lines = page.locator("#revel-plan-drift li.revel-booked")
    assert booked_lines.count() == 2
    for index in range(2):
        line = booked_lines.nth(index)
        assert "booked (1 booking)" in line.inner_text()
        assert not line.locator("input[type=checkbox]").is_checked()
    unbooked = page.locator("#revel-plan-drift li:not(.revel-booked) input[type=checkbox]")
    assert unbooked.count() == len(rows) - 2
    assert all(unbooked.nth(i).is_checked() for i in range(unbooked.count()))
    new_lines = page.locator("#revel-plan-new li")
    new_labels = [new_lines.nth(i).inner_text() for i in range(new_lines.count())]
    # New is only the Monday beside the booked third Tuesday, while it stays: the other
    # lessons move to their weeks' Mondays and Wednesdays.
    assert {label[:3] for label in new_labels} == {"Mon"}
    screenshot(page, "studio-plan-01-confirm")

    page.click("#revel-plan-form input[name=_continue]")
    page.wait_for_selector(".messagelist")
    messages = page.inner_text(".messagelist")
    assert f"{len(rows) - 2} dates moved" in messages
    assert f"{len(new_labels)} new date, 0 dates cancelled" in messages
    assert "2 booked dates kept where they were" in messages
    listed = page.inner_text("#revel-upcoming table")
    assert all(label in listed for label in new_labels)
    screenshot(page, "studio-plan-02-applied")

    def states() -> dict[Any, str]:
        return dict(Lesson.objects.filter(pk__in=[r.pk for r in rows]).values_list("pk", "state"))

    after = read_db(states)
    assert Lesson.State.SCRAPPED not in set(after.values())
