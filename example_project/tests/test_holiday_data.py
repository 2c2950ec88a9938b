"""After upgrading ``holidays`` on the example project: the check warns, the command applies.

A New York running club skips the state's public holidays. A newer ``holidays``
release is simulated (tests/support/holidays.py): it adds a holiday on two of the
generated runs, one with tickets sold.
"""

from __future__ import annotations

import datetime as dt
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command

from example_project.events.models import Event, Organization, TicketTier
from example_project.tests.helpers import weekly_run
from revel_recurring.holiday_rules import data_version
from revel_recurring.models import EventSeries
from tests.support.holidays import TEST_DAY, coming_monday, generated_with, newer_holiday_data

pytestmark = pytest.mark.django_db

NEW_YORK = ZoneInfo("America/New_York")


def monday_run(organization: Organization) -> EventSeries:
    return weekly_run(
        organization,
        "Monday Run",
        start=coming_monday(NEW_YORK, hour=7),
        window_weeks=6,
        holidays={"country": "US", "subdivision": "NY", "categories": [], "policy": "skip"},
    )


def check_output() -> str:
    out, err = StringIO(), StringIO()
    call_command("check", "--database", "default", stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def day_of(event: Event) -> dt.date:
    return event.start.astimezone(NEW_YORK).date()


def test_check_warns_after_the_upgrade_and_the_command_applies_the_difference(
    organization: Organization,
) -> None:
    series = monday_run(organization)
    runs = list(Event.objects.filter(series=series, is_template=False).order_by("start"))
    sold, free = runs[1], runs[2]
    TicketTier.objects.create(event=sold, name="Standard", quantity=30, quantity_sold=4)
    generated_with(series)

    with newer_holiday_data([day_of(sold), day_of(free)]):
        assert "revel_recurring.W002" in check_output()
        out = StringIO()

        call_command("revel_recurring_holidays", "--apply", stdout=out)

        assert "revel_recurring.W002" not in check_output()
    text = out.getvalue()
    assert "Kept because booked: 1" in text
    assert "4 bookings" in text
    assert "Cancelled: 1\n" in text
    assert TEST_DAY in text
    states = dict(Event.objects.filter(pk__in=[sold.pk, free.pk]).values_list("pk", "status"))
    assert states == {sold.pk: Event.Status.OPEN, free.pk: Event.Status.CANCELLED}
    assert EventSeries.objects.get(pk=series.pk).holidays_version == data_version()
