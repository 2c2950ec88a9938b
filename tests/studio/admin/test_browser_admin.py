"""The studio's admin in Chromium: e-mail login, then "Cancel stale dates" with UUID lessons."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import override_settings

from example_project.tests.browser import browser_page, read_db, screenshot
from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from tests.hosts.studio.models import Lesson, User
from tests.studio.conftest import MakeSeries, sign_in
from tests.support.drift import drift_every_date

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def drifted(make_series: MakeSeries) -> tuple[EventSeries, list[Any]]:
    series = make_series()
    drift_every_date(series)
    return series, detect_cadence_drift(series)


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_cancel_stale_dates_in_the_browser_with_uuid_lessons(
    live_server: Any, owner: User, drifted: tuple[EventSeries, list[Any]], browser_page: Any
) -> None:
    _series, stale = drifted
    page = browser_page

    page.goto(f"{live_server.url}/admin/login/?next=/admin/revel_recurring/eventseries/")
    # The custom user model signs in by email: the login form says so.
    assert "Email" in page.inner_text("label[for=id_username]")
    sign_in(page, live_server.url, "/admin/revel_recurring/eventseries/")
    page.wait_for_selector("#result_list")
    page.click("#result_list a:text('Salsa')")
    page.wait_for_selector("#revel-upcoming")
    screenshot(page, "studio-01-series")

    page.click("a:text('Cancel stale dates')")
    page.wait_for_selector("#revel-cancel-stale")
    listed = page.locator("#revel-cancel-stale input[name=occurrence]")
    values = [listed.nth(i).get_attribute("value") for i in range(listed.count())]
    assert [uuid.UUID(value or "") for value in values] == stale
    assert page.locator("ul.revel-drifted li").count() == len(stale)
    screenshot(page, "studio-02-cancel-stale-confirmation")

    page.click("#revel-cancel-stale input[type=submit]")
    page.wait_for_selector(".messagelist")
    message = page.inner_text(".messagelist")
    assert f"{len(stale)} stale occurrences cancelled for Salsa." in message
    assert page.locator(".messagelist .success").count() == 1
    screenshot(page, "studio-03-cancelled")

    states = read_db(lambda: dict(Lesson.objects.filter(pk__in=stale).values_list("pk", "state")))
    assert states == {pk: Lesson.State.SCRAPPED for pk in stale}


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2)
def test_cancel_stale_over_the_inline_limit_is_queued_in_the_browser(
    live_server: Any, owner: User, make_series: MakeSeries, browser_page: Any
) -> None:
    series = [make_series(name=name) for name in ("Salsa", "Tango", "Bachata")]
    for one in series:
        drift_every_date(one)
    stale = [pk for one in series for pk in detect_cadence_drift(one)]
    page = browser_page

    sign_in(page, live_server.url, "/admin/revel_recurring/eventseries/")
    page.wait_for_selector("#result_list")
    page.check("#action-toggle")  # all three: one more than the inline limit
    # The box ticks the rows through Django's actions.js (bound once sign_in saw the page load).
    assert page.locator("input.action-select:checked").count() == 3
    page.select_option("select[name=action]", "cancel_stale_action")
    page.click("button[name=index]")
    page.wait_for_selector("#revel-cancel-stale")
    summary = page.inner_text("#revel-stale-summary")
    assert f"{len(stale)} stale dates in 3 of the 3 series checked here." in summary
    screenshot(page, "studio-04-cancel-stale-queued-confirmation")

    page.click("#revel-cancel-stale input[type=submit]")
    page.wait_for_selector(".messagelist")
    message = page.inner_text(".messagelist")
    assert "3 series queued for their stale dates to be cancelled" in message
    screenshot(page, "studio-05-cancel-stale-queued")

    # The studio runs Celery eagerly: the chunk ran as it was sent.
    states = read_db(
        lambda: set(Lesson.objects.filter(pk__in=stale).values_list("state", flat=True))
    )
    assert states == {Lesson.State.SCRAPPED}
