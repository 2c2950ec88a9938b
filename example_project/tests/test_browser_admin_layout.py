"""The series admin at a laptop's width (1366 px) in Chromium, in English and German.

No visible box of the change page overlaps another (the fieldsets, the date tools,
the submit row and each module's heading), the date tools stand above the submit
row, and every column of the series list fits the window; a bulk action answers
with one message that names the count.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from example_project.events.models import Event, Organization, TicketTier
from revel_recurring.models import EventSeries
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.lifecycle import create_recurring_series

from .browser import browser_page, read_db, screenshot, submit_login
from .test_browser_admin import PASSWORD, next_tuesday_evening

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 1366

#: The boxes of the change page that must not overlap one another.
CHANGE_PAGE_BOXES = (
    "#content-main fieldset.module",
    "#content-main fieldset.module > h2",
    "#revel-upcoming",
    "#revel-extra-dates",
    "#revel-upcoming > h2",
    "#revel-extra-dates > h2",
    ".submit-row",
    "#revel-split-links",
)

# For each selector, the visible elements' boxes; then every pair of boxes (but an
# element and its own ancestor) that share an area of more than one pixel.
OVERLAPS_JS = """
(selectors) => {
  const seen = [];
  for (const selector of selectors) {
    for (const element of document.querySelectorAll(selector)) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || !element.checkVisibility()) continue;
      if (!seen.some((other) => other.element === element)) seen.push({selector, element, box});
    }
  }
  const clashes = [];
  for (let i = 0; i < seen.length; i++) {
    for (let j = i + 1; j < seen.length; j++) {
      const a = seen[i], b = seen[j];
      if (a.element.contains(b.element) || b.element.contains(a.element)) continue;
      const width = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
      const height = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
      if (width > 1 && height > 1) {
        clashes.push(`${a.selector} [${a.element.textContent.trim().slice(0, 30)}] / `
          + `${b.selector} [${b.element.textContent.trim().slice(0, 30)}]`);
      }
    }
  }
  return clashes;
}
"""

# Each module heading's box is no wider than its module and one or two lines high.
HEADINGS_JS = """
() => [...document.querySelectorAll('#content .module > h2')].filter((h2) => {
  const box = h2.getBoundingClientRect(), module = h2.parentElement.getBoundingClientRect();
  return box.width > module.width + 1 || box.height > 60;
}).map((h2) => `${h2.textContent.trim()}: ${Math.round(h2.getBoundingClientRect().width)} x `
  + `${Math.round(h2.getBoundingClientRect().height)}`)
"""

# The right edge of every listed column, and the page's own width.
COLUMNS_JS = """
() => ({
  page: document.documentElement.scrollWidth,
  list: Math.round(document.querySelector('#changelist .results').getBoundingClientRect().right),
  columns: [...document.querySelectorAll('#result_list thead th')].map(
    (th) => [th.textContent.trim(), Math.round(th.getBoundingClientRect().right)]),
})
"""


@pytest.fixture
def studio(django_user_model: Any) -> list[EventSeries]:
    """Four series; the first generated, booked once, with an extra date and holidays."""
    owner = django_user_model.objects.create_user("owner")
    organization = Organization.objects.create(name="Studio", slug="studio", owner=owner)
    start = next_tuesday_evening()
    made = []
    for number, name in enumerate(
        ("Yoga", "Pilates for beginners and returners", "Evening salsa", "Morning stretch")
    ):
        made.append(
            create_recurring_series(
                name=name,
                rule_data={
                    "frequency": "WEEKLY",
                    "weekdays": [1, 3] if number == 0 else [number],
                    "dtstart": start,
                    "timezone": "Europe/Vienna",
                },
                template_data={
                    "organization": organization,
                    "name": name,
                    "slug": f"series-{number}",
                    "end": start + dt.timedelta(hours=1),
                },
                auto_publish=True,
                holidays={"country": "AT", "policy": "skip"} if number == 0 else None,
            )
        )
    yoga = made[0]
    first = Event.objects.filter(series=yoga, is_template=False).order_by("start").first()
    assert first is not None
    TicketTier.objects.create(event=first, name="Paid", quantity=10, quantity_sold=4)
    add_extra_date(yoga, start + dt.timedelta(days=5), now=timezone.now())
    return made


@pytest.fixture
def superuser(django_user_model: Any) -> Any:
    return django_user_model.objects.create_superuser("admin", "admin@example.com", PASSWORD)


def sign_in(page: Any, base: str, language: str) -> None:
    page.set_viewport_size({"width": WIDTH, "height": 900})
    page.set_extra_http_headers({"Accept-Language": language})
    page.goto(f"{base}/admin/login/?next=/admin/revel_recurring/eventseries/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    submit_login(page)
    page.wait_for_selector("#result_list")


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_series_pages_fit_1366_px_without_overlaps(
    live_server: Any, superuser: Any, studio: list[EventSeries], browser_page: Any, language: str
) -> None:
    page = browser_page
    sign_in(page, live_server.url, language)
    screenshot(page, f"layout-{language}-01-changelist")

    listed = page.evaluate(COLUMNS_JS)
    clashes = page.evaluate(
        OVERLAPS_JS, ["#revel-beat", "#revel-queued", ".object-tools", "#changelist"]
    )

    page.goto(f"{live_server.url}/admin/revel_recurring/eventseries/{studio[0].pk}/change/")
    page.wait_for_selector("#revel-upcoming")
    screenshot(page, f"layout-{language}-02-change-page")

    assert page.evaluate(OVERLAPS_JS, list(CHANGE_PAGE_BOXES)) == []
    assert page.evaluate(HEADINGS_JS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    # The date tools stand above the submit row, where the organiser works.
    tools = page.locator("#revel-date-tools").bounding_box()
    submit = page.locator(".submit-row").bounding_box()
    assert tools is not None
    assert submit is not None
    assert tools["y"] + tools["height"] <= submit["y"]
    assert listed["page"] <= WIDTH, listed
    assert all(right <= listed["list"] for _label, right in listed["columns"]), listed
    assert clashes == []
    booked = read_db(
        lambda: Event.objects.filter(series=studio[0], ticket_tiers__isnull=False).count()
    )
    assert booked == 1


def test_pausing_several_series_says_so_in_one_message(
    live_server: Any, superuser: Any, studio: list[EventSeries], browser_page: Any
) -> None:
    page = browser_page
    sign_in(page, live_server.url, "en")

    page.check("#action-toggle")  # the four series, within the inline limit
    page.select_option("select[name=action]", "pause_action")
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist")
    screenshot(page, "layout-en-03-paused-four")

    shown = page.locator(".messagelist li")
    assert shown.count() == 1
    text = shown.inner_text()
    assert text.startswith("4 series paused: ")
    assert all(series.name in text for series in studio)
    paused = read_db(lambda: list(EventSeries.objects.values_list("is_active", flat=True)))
    assert paused == [False] * 4
