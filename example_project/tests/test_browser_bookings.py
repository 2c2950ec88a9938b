"""Booked dates in the admin as a person sees them in Chromium: marked, unticked, kept
and named; one booked date is cancelled only after ticking "with its bookings"."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from example_project.events.models import Event, Organization, TicketTier
from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.support.drift import drift_every_date

from .browser import browser_page, read_db, screenshot, submit_login
from .conftest import VIENNA
from .test_browser_admin import PASSWORD, next_tuesday_evening

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def display(event: Event) -> str:
    local = event.start.astimezone(VIENNA)
    return f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Vienna)"


@pytest.fixture
def drifted(django_user_model: Any) -> tuple[EventSeries, list[Event], Event]:
    """Tuesday yoga with its window generated, its rule then ended before them; the second
    Tuesday booked."""
    owner = django_user_model.objects.create_user("owner")
    organization = Organization.objects.create(name="Studio", slug="studio", owner=owner)
    start = next_tuesday_evening()
    series = create_recurring_series(
        name="Yoga",
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [1],
            "dtstart": start,
            "timezone": "Europe/Vienna",
        },
        template_data={
            "organization": organization,
            "name": "Yoga",
            "slug": "yoga",
            "end": start + dt.timedelta(hours=1),
        },
        auto_publish=True,
        generation_window_weeks=4,
    )
    rows = list(Event.objects.filter(series=series, is_template=False).order_by("start"))
    booked = rows[1]
    TicketTier.objects.create(event=booked, name="Paid", quantity=10, quantity_sold=3)
    # The rule ends before the dates: all stale, none can move (to Thursdays they would).
    drift_every_date(series)
    return series, rows, booked


@pytest.fixture
def superuser(django_user_model: Any) -> Any:
    return django_user_model.objects.create_superuser("admin", "admin@example.com", PASSWORD)


def test_booked_dates_are_marked_unticked_kept_and_cancelled_only_on_purpose(
    live_server: Any,
    superuser: Any,
    drifted: tuple[EventSeries, list[Event], Event],
    browser_page: Any,
) -> None:
    series, rows, booked = drifted
    page = browser_page
    change = f"/admin/revel_recurring/eventseries/{series.pk}/change/"
    page.goto(f"{live_server.url}/admin/login/?next={change}")
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    submit_login(page)
    page.wait_for_selector("#revel-upcoming")

    page.click("text=Cancel stale dates")
    page.wait_for_selector("#revel-cancel-stale")
    assert page.locator("#revel-booked-note").is_visible()
    items = page.locator("#revel-cancel-stale ul.revel-drifted li")
    assert items.count() == len(rows)
    seen = {}
    for index in range(items.count()):
        item = items.nth(index)
        box = item.locator("input[name=occurrence]")
        seen[int(box.get_attribute("value"))] = (
            box.is_checked(),
            item.locator(".revel-badge-booked").count() == 1,
        )
    assert seen == {event.pk: (event.pk != booked.pk, event.pk == booked.pk) for event in rows}
    booked_item = page.locator("li.revel-booked")
    assert booked_item.locator(".revel-badge-booked").is_visible()
    assert booked_item.inner_text().strip().startswith(display(booked))
    screenshot(page, "bookings-01-cancel-stale-confirmation")

    page.click("#revel-cancel-stale input[type=submit]")
    page.wait_for_selector("ul.messagelist")
    messages = page.inner_text("ul.messagelist")
    assert f"{len(rows) - 1} stale occurrences cancelled for Yoga." in messages
    assert f"Yoga: kept 1 booked date: {display(booked)}." in messages
    screenshot(page, "bookings-02-kept-message")
    statuses = read_db(
        lambda: dict(Event.objects.filter(pk__in=[e.pk for e in rows]).values_list("pk", "status"))
    )
    assert statuses == {
        event.pk: Event.Status.OPEN if event.pk == booked.pk else Event.Status.CANCELLED
        for event in rows
    }

    page.goto(f"{live_server.url}{change}")
    row = page.locator("#revel-upcoming tr.revel-row", has=page.locator(".revel-badge-booked"))
    assert row.count() == 1
    assert (
        row.locator("td")
        .first.inner_text()
        .startswith(booked.start.astimezone(VIENNA).strftime("%a"))
    )
    include = row.locator("input[name=include_booked]")
    assert include.is_visible()
    assert not include.is_checked()
    row.locator("button.revel-cancel").click()
    page.wait_for_selector("ul.messagelist .error")
    assert f"Yoga: {display(booked)} has bookings and was not cancelled; tick “with its" in (
        page.inner_text("ul.messagelist")
    )
    assert read_db(lambda: Event.objects.get(pk=booked.pk).status) == Event.Status.OPEN

    row = page.locator("#revel-upcoming tr.revel-row", has=page.locator(".revel-badge-booked"))
    row.locator("input[name=include_booked]").check()
    screenshot(page, "bookings-03-with-its-bookings-ticked")
    row.locator("button.revel-cancel").click()
    page.wait_for_selector("ul.messagelist .success")
    assert f"{display(booked)} cancelled for Yoga." in page.inner_text("ul.messagelist")
    assert read_db(lambda: Event.objects.get(pk=booked.pk).status) == Event.Status.CANCELLED
