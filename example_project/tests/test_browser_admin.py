"""The series admin and the browsable API in a real browser: log in, generate, cancel a date."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from example_project.events.models import Event, Organization
from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series

from .browser import browser_page, read_db, screenshot, submit_login
from .conftest import VIENNA

__all__ = ["browser_page"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "browser-test-password"


def next_tuesday_evening() -> dt.datetime:
    today = timezone.now().astimezone(VIENNA).date()
    tuesday = today + dt.timedelta(days=(1 - today.weekday()) % 7 or 7)
    return dt.datetime.combine(tuesday, dt.time(18, 30), tzinfo=VIENNA)


@pytest.fixture
def yoga(django_user_model: Any) -> EventSeries:
    owner = django_user_model.objects.create_user("owner")
    organization = Organization.objects.create(name="Studio", slug="studio", owner=owner)
    start = next_tuesday_evening()
    return create_recurring_series(
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
        generate=False,
    )


@pytest.fixture
def superuser(django_user_model: Any) -> Any:
    return django_user_model.objects.create_superuser("admin", "admin@example.com", PASSWORD)


# The data fixtures come before browser_page: see browser.read_db.
def test_admin_generate_now_and_cancel_a_date(
    live_server: Any, superuser: Any, yoga: EventSeries, browser_page: Any
) -> None:
    page = browser_page

    page.goto(f"{live_server.url}/admin/login/?next=/admin/revel_recurring/eventseries/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    submit_login(page)
    page.wait_for_selector("#result_list")
    assert "revel_recurring: generate all series" in page.inner_text("#revel-beat")
    screenshot(page, "01-series-changelist")

    page.click("#result_list a:text('Yoga')")
    page.wait_for_selector("#revel-upcoming")
    assert "No upcoming occurrences." in page.inner_text("#revel-upcoming")
    assert page.input_value("#id_timezone") == "Europe/Vienna"
    assert page.input_value("#id_dtstart_1") == "18:30:00"

    page.click("button[name=generate]")
    page.wait_for_selector(".messagelist .success")
    rows = page.locator("#revel-upcoming tbody tr")
    generated = rows.count()
    # Eight weeks ahead hold seven or eight Tuesdays, depending on today's weekday.
    assert generated in (7, 8)
    assert f"{generated} occurrences generated for Yoga." in page.inner_text(".messagelist")
    assert "18:30" in rows.nth(0).inner_text()
    screenshot(page, "02-generated")

    third = rows.nth(2)
    slot = third.get_attribute("data-slot")
    third.locator("button.revel-cancel").click()
    page.wait_for_selector(".messagelist .success")
    assert "cancelled for Yoga." in page.inner_text(".messagelist")
    cancelled = page.locator(f"#revel-upcoming tr[data-slot='{slot}']")
    assert "cancelled" in cancelled.inner_text()
    assert cancelled.locator("button.revel-restore").count() == 1
    assert "(Europe/Vienna)" in page.inner_text(".field-exdates_local")
    screenshot(page, "03-date-cancelled")

    statuses = read_db(
        lambda: list(
            Event.objects.filter(series=yoga, is_template=False)
            .order_by("start")
            .values_list("status", flat=True)
        )
    )
    assert statuses.count(Event.Status.CANCELLED) == 1
    assert statuses[2] == Event.Status.CANCELLED
    assert len(statuses) == generated

    # The same session opens the browsable API (session authentication).
    page.goto(f"{live_server.url}/api/recurring/series/")
    page.wait_for_selector(".response-info")
    listing = page.inner_text(".response-info")
    assert "HTTP 200 OK" in listing
    assert '"name": "Yoga"' in listing
    assert "Every week on Tuesday at 18:30 (Europe/Vienna)" in listing
    screenshot(page, "04-api-series-list")

    page.click(f".response-info a[href$='/api/recurring/series/{yoga.pk}/']")
    page.wait_for_selector(".response-info")
    detail = page.inner_text(".response-info")
    assert f'"id": {yoga.pk}' in detail
    assert slot in detail  # the cancelled date, among the exdates
    assert f'"last_occurrence_index": {generated}' in detail
    screenshot(page, "05-api-series-detail")


@pytest.fixture
def long_class(django_user_model: Any) -> Event:
    """A one-off event whose description is too long to copy onto eight weeks of dates."""
    owner = django_user_model.objects.create_user("teacher")
    organization = Organization.objects.create(name="Dance", slug="dance", owner=owner)
    start = next_tuesday_evening() + dt.timedelta(days=1)
    return Event.objects.create(
        organization=organization,
        name="Salsa",
        slug="salsa",
        description="Steps. " * 30_000,
        start=start,
        end=start + dt.timedelta(hours=1),
    )


def test_a_refused_add_shows_the_error_beside_the_field_and_keeps_the_rule(
    live_server: Any, superuser: Any, long_class: Event, settings: Any, browser_page: Any
) -> None:
    # One run may write 1 MB; eight weekly copies of a 210 kB description do not fit.
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1024 * 1024
    page = browser_page
    page.goto(f"{live_server.url}/admin/login/?next=/admin/revel_recurring/eventseries/add/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    submit_login(page)
    page.wait_for_selector("#id_template_source")

    page.fill("#id_name", "Salsa nights")
    page.select_option("#id_template_source", str(long_class.pk))
    page.select_option("#id_frequency", "WEEKLY")
    page.fill("#id_interval", "1")
    page.check("#id_weekdays_2")  # Wednesday
    page.check("#id_weekdays_4")  # Friday
    local = long_class.start.astimezone(VIENNA)
    page.fill("#id_dtstart_0", local.strftime("%Y-%m-%d"))
    page.fill("#id_dtstart_1", "19:30")
    page.fill("#id_timezone", "Europe/Vienna")
    page.fill("#id_generation_window_weeks", "8")
    page.click("input[name=_save]")

    page.wait_for_selector(".errornote")
    row = page.locator(".form-row.field-template_source")
    assert "Salsa nights would write" in row.locator(".errorlist").inner_text()
    assert "Shorten 'description'" in row.inner_text()
    assert page.locator(".errorlist").count() == 1
    assert page.input_value("#id_name") == "Salsa nights"
    assert page.input_value("#id_template_source") == str(long_class.pk)
    ticked = [day for day in range(7) if page.is_checked(f"#id_weekdays_{day}")]
    assert ticked == [2, 4]
    assert page.input_value("#id_dtstart_1") == "19:30"
    assert page.input_value("#id_timezone") == "Europe/Vienna"
    screenshot(page, "06-add-refused-input-kept")
    assert read_db(lambda: EventSeries.objects.count()) == 0
