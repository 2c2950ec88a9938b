"""The dojo's admin in Chromium, in German: e-mail login, status labels, a date cancelled
and restored on the change page, then "Cancel stale dates" with text keys."""

from __future__ import annotations

from typing import Any

import pytest

from example_project.tests.browser import browser_page, read_db, screenshot, submit_login
from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from tests.dojo.conftest import PASSWORD, TRAINER_EMAIL, MakeSeries, trainings
from tests.hosts.dojo.models import Training, User
from tests.support.drift import drift_every_date

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SERIES = "/admin/revel_recurring/eventseries/"


def sign_in(page: Any, base_url: str, path: str) -> None:
    page.set_extra_http_headers({"Accept-Language": "de"})
    page.goto(f"{base_url}/admin/login/?next={path}")
    assert "E-Mail" in page.inner_text("label[for=id_username]")
    page.fill("#id_username", TRAINER_EMAIL)
    page.fill("#id_password", PASSWORD)
    submit_login(page)


@pytest.fixture
def drifted(make_series: MakeSeries) -> tuple[EventSeries, list[Any]]:
    series = make_series()
    drift_every_date(series)  # the rule ends before the trainings: all drift, none can move
    return series, detect_cadence_drift(series)


# The data fixtures come before browser_page: see example_project/tests/browser.read_db.
def test_the_german_admin_cancels_restores_and_cancels_stale_trainings(
    live_server: Any,
    trainer: User,
    drifted: tuple[EventSeries, list[Any]],
    browser_page: Any,
) -> None:
    series, stale = drifted
    first = trainings(series)[0]
    page = browser_page

    sign_in(page, live_server.url, SERIES)
    page.wait_for_selector("#result_list")
    page.click("#result_list a:text('Karate Anfänger')")
    page.wait_for_selector("#revel-upcoming")
    assert "Anstehende Termine" in page.inner_text("#revel-upcoming h2")
    row = page.locator("#revel-upcoming tr.revel-row").first
    assert row.locator("td").nth(1).inner_text().strip() == "Buchbar"
    screenshot(page, "dojo-01-series")

    row.locator("button.revel-cancel").click()
    page.wait_for_selector(".messagelist")
    row = page.locator("#revel-upcoming tr.revel-row").first
    assert row.locator("td").nth(1).inner_text().strip() == "Abgesagt"
    screenshot(page, "dojo-02-cancelled")
    row.locator("button.revel-restore").click()
    page.wait_for_selector(".messagelist")
    row = page.locator("#revel-upcoming tr.revel-row").first
    assert row.locator("td").nth(1).inner_text().strip() == "Buchbar"
    status = read_db(lambda: Training.objects.get(pk=first.pk).status)
    assert status == Training.Status.BUCHBAR

    page.click("a:text('Abweichende Termine absagen')")
    page.wait_for_selector("#revel-cancel-stale")
    listed = page.locator("#revel-cancel-stale input[name=occurrence]")
    values = [listed.nth(i).get_attribute("value") for i in range(listed.count())]
    assert values == stale
    assert "Buchbar" in page.inner_text("#revel-cancel-stale")
    screenshot(page, "dojo-03-cancel-stale-confirmation")

    page.click("#revel-cancel-stale input[type=submit]")
    page.wait_for_selector(".messagelist")
    message = page.inner_text(".messagelist")
    assert f"{len(stale)} abweichende Termine für Karate Anfänger abgesagt." in message
    screenshot(page, "dojo-04-cancelled-stale")

    states = read_db(
        lambda: set(Training.objects.filter(pk__in=stale).values_list("status", flat=True))
    )
    assert states == {Training.Status.ABGESAGT}
