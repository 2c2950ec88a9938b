"""Chromium: "Change this and following…" on booked Tuesday/Thursday lessons.

The organiser opens the third lesson's link, moves the lessons from there on to
Monday/Wednesday in Hall 2, sees the plan with the booked lesson marked as
drift, confirms, and lands on the new series, which links to the original.
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
def test_splitting_booked_lessons_from_the_third_one_in_the_browser(
    settings: Any,
    live_server: Any,
    owner: User,
    booked_tue_thu: tuple[EventSeries, list[Lesson]],
    browser_page: Any,
) -> None:
    # Nobody told: a booked date moves only when ticked (the case this test is about).
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, rows = booked_tue_thu
    page = browser_page
    url = f"{live_server.url}/admin/revel_recurring/eventseries/{series.pk}/change/"

    sign_in(page, live_server.url, url.removeprefix(live_server.url))
    page.wait_for_selector("#revel-upcoming")
    assert (
        page.locator("#revel-upcoming tr.revel-row").nth(0).locator("a.revel-split-link").count()
        == 0
    )
    page.locator("#revel-upcoming tr.revel-row").nth(2).locator("a.revel-split-link").click()

    page.wait_for_selector("#revel-split-form")
    assert page.input_value("#id_name") == "Salsa"
    assert page.input_value("#id_template-room") == "Hall 1"
    for day in ("1", "3"):
        page.uncheck(f"input[name=weekdays][value='{day}']")
    for day in ("0", "2"):
        page.check(f"input[name=weekdays][value='{day}']")
    page.fill("#id_template-room", "Hall 2")
    page.fill("#id_name", "Salsa Mon/Wed")
    screenshot(page, "studio-split-01-form")
    page.click("input[name=_plan]")

    page.wait_for_selector("#revel-split-plan")
    assert "Monday" in page.inner_text("#revel-split-new-rule")
    assert "Tuesday" in page.inner_text("#revel-split-old-rule")
    moving = page.locator("#revel-split-moving li")
    assert moving.count() == len(rows) - 2
    booked_lines = page.locator("#revel-split-moving li.revel-booked")
    assert booked_lines.count() == 1
    assert "booked (1 booking)" in booked_lines.inner_text()
    # Booked: it moves on to its week's Monday only when ticked.
    assert "moves to Mon " in booked_lines.inner_text()
    assert page.locator("#revel-plan-booked-note").is_visible()  # the plan page's note
    assert "Room: Hall 2" in page.inner_text("#revel-split-fields")
    screenshot(page, "studio-split-02-plan")

    page.click("input[name=_confirm]")
    page.wait_for_selector("#revel-continues")
    messages = page.inner_text(".messagelist")
    # The free lessons moved on to Mondays and Wednesdays (the first Thursday, with no
    # date of the new rule left in its week, cancelled as ticked); the booked one stays
    # on its Tuesday (unticked), its Monday new beside it.
    assert f"with {len(rows) - 2} open dates" in messages
    # Tuesdays and Thursdays went to Mondays and Wednesdays: no one weekday to name.
    assert f"{len(rows) - 4} dates moved, 1 date cancelled, 1 new date" in messages
    assert page.input_value("#id_name") == "Salsa Mon/Wed"
    screenshot(page, "studio-split-03-continuation")

    page.click("#revel-continues a")
    page.wait_for_selector("#revel-continued-by")
    assert "Salsa Mon/Wed" in page.inner_text("#revel-continued-by")

    def where() -> dict[Any, Any]:
        found = Lesson.objects.filter(pk__in=[r.pk for r in rows]).values_list(
            "pk", "series_id", "state"
        )
        return {pk: (series_id, state) for pk, series_id, state in found}

    after = read_db(where)
    assert {after[r.pk][0] for r in rows[:2]} == {series.pk}
    assert len({after[r.pk][0] for r in rows[2:]}) == 1
    assert after[rows[4].pk][0] != series.pk
    # Only the first Thursday of the continuation, with nowhere to go and ticked, is off.
    assert [pk for pk, (_, state) in after.items() if state == Lesson.State.SCRAPPED] == [
        rows[3].pk
    ]
