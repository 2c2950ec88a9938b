"""The browsable API's forms in Chromium: a person opens an action's page, presses POST on
the prefilled form as it stands and sees the action succeed (issue 35)."""

from __future__ import annotations

from typing import Any

import pytest

from example_project.tests.browser import browser_page, read_db, screenshot
from revel_recurring.models import EventSeries
from tests.hosts.studio.models import User
from tests.studio.conftest import MakeSeries, sign_in

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The forms of the issue, in an order each leaves the next one valid; what each answers.
FORMS = [
    ("recurrence-plan", "HTTP 200 OK", '"changed": []'),
    ("recurrence-apply", "HTTP 200 OK", '"cancelled": []'),
    ("add-date", "HTTP 200 OK", '"occurrence": {'),
    ("split-plan", "HTTP 200 OK", '"hash": "'),
    ("split", "HTTP 201 Created", '"continuation": {'),
]


@pytest.fixture
def salsa(make_series: MakeSeries) -> EventSeries:
    return make_series()


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_each_form_posted_as_prefilled_succeeds_in_the_browser(
    live_server: Any, owner: User, salsa: EventSeries, browser_page: Any
) -> None:
    page = browser_page
    base = f"/api/recurring/series/{salsa.pk}/"
    sign_in(page, live_server.url, base)
    page.wait_for_selector(".response-info")

    for action, status, shown in FORMS:
        page.goto(f"{live_server.url}{base}{action}/")
        page.wait_for_selector("textarea[name=_content]")
        sentence = page.inner_text(".response-info")
        assert "POST" in sentence
        assert "to run " not in sentence  # says what posting does, not a Python name
        prefilled = page.input_value("textarea[name=_content]")
        assert "null" not in prefilled or action.startswith("recurrence"), prefilled
        screenshot(page, f"api-form-{action}-01-prefilled")

        page.click("form[method=POST] button:text('POST')")
        page.wait_for_function(
            "expected => document.querySelector('.response-info').innerText.includes(expected)",
            arg=shown,
        )
        answer = page.inner_text(".response-info")
        assert status in answer, answer
        assert shown in answer, answer
        assert "may not be null" not in answer
        screenshot(page, f"api-form-{action}-02-posted")

    continued = read_db(lambda: EventSeries.objects.get(split_from=salsa).name)
    assert continued == salsa.name
