"""Holidays in the example site's admin: staff of a Vienna running club switch from moving
runs off Austrian holidays to skipping them. The run moved off a holiday with tickets
sold is drift, booked and unticked on the plan page; confirming keeps it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from example_project.events.models import Event, Organization, TicketTier
from example_project.tests.api.conftest import VIENNA, make_series
from example_project.tests.helpers import staff_of
from revel_recurring.admin.holidays import local_day
from tests.support.forms import confirm_plan, drift_boxes, form_data, form_errors
from tests.support.holiday_dates import WINDOW_WEEKS, at, holiday_name, next_holiday

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


def test_staff_switch_from_moving_to_skipping_holidays_and_the_sold_run_stays(
    client: Client, django_user_model: Any, organization: Organization
) -> None:
    holiday = next_holiday("AT", VIENNA)
    slot = at(holiday, VIENNA, 18, 30)
    series = make_series(
        organization,
        dtstart=at(holiday - dt.timedelta(weeks=1), VIENNA, 18, 30),
        holidays={"country": "AT", "policy": "shift"},
        generation_window_weeks=WINDOW_WEEKS,
    )
    moved = Event.objects.get(series=series, recurrence_id=slot)
    TicketTier.objects.create(event=moved, name="Runner", quantity=30, quantity_sold=2)
    name = holiday_name("AT", holiday, "en_US")
    client.force_login(staff_of(django_user_model, organization, "staff"))
    url = f"{CHANGELIST}{series.pk}/change/"

    page = client.get(url)

    note = f"Moved from {local_day(slot, 'Europe/Vienna')} ({name})"
    assert note in page.content.decode()
    shown = client.post(url, form_data(series, holiday_policy="skip"))

    assert shown.status_code == 200, form_errors(shown)
    assert drift_boxes(shown)[str(moved.pk)] is False
    assert f"Skipped: {name}" in shown.content.decode()
    response = confirm_plan(client, url, shown, follow=True)

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    series.refresh_from_db()
    assert series.holiday_policy == "skip"
    assert Event.objects.get(pk=moved.pk).status == Event.Status.OPEN
    messages = [str(message) for message in get_messages(response.wsgi_request)]
    assert any("1 booked date kept where it was (left unticked)" in text for text in messages), (
        messages
    )
    row = next(row for row in response.context["upcoming"] if row.event_id == moved.pk)
    assert row.drifted
    assert row.holiday_note == f"Holiday: {name}"
