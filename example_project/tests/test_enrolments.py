"""Enrolments on the example project: the checks of tests/support/enrolments.py on tickets.

An enrolled user holds a ticket of each date's cheapest tier (``Ticket.user``); a
date whose tier is sold out is refused "sold out". The daily pass on a real worker
is checked on the test hosts (the example's settings send mail to the console).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.db.models import F
from django.utils import timezone

from example_project.events.models import Event, Organization, Ticket, TicketTier
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series
from tests.support.enrolments import (
    Capture,
    EnrolmentHost,
    check_cancelled_and_restored_date_booked_once,
    check_enrol_skip_take_back_and_end,
    check_full_date_refused_and_reported,
)

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")


@pytest.fixture
def enrolment_host(organization: Organization) -> EnrolmentHost:
    def make_series(*, name: str, **options: Any) -> EventSeries:
        # Tuesdays 18:30 Vienna from the coming Tuesday, a 20-place tier on every date.
        today = timezone.now().astimezone(VIENNA).date()
        day = today + dt.timedelta(days=(1 - today.weekday()) % 7 or 7)
        start = dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)
        series = create_recurring_series(
            name=name,
            rule_data={
                "frequency": "WEEKLY",
                "weekdays": [1],
                "dtstart": start,
                "timezone": "Europe/Vienna",
            },
            template_data={
                "organization": organization,
                "name": name,
                "slug": "run",
                "end": start + dt.timedelta(hours=1),
            },
            auto_publish=True,
            generate=False,
            **options,
        )
        template = Event.objects.get(series=series, is_template=True)
        TicketTier.objects.create(event=template, name="Runner", price=Decimal(5), quantity=20)
        generate_series_events(series)
        return series

    def make_user(name: str) -> Any:
        return get_user_model().objects.create_user(name, f"{name}@example.com", first_name=name)

    def bookings(user: Any) -> list[Any]:
        return list(Ticket.objects.filter(user=user).values_list("tier__event_id", flat=True))

    def make_full(row: Event) -> None:
        TicketTier.objects.filter(event=row).update(quantity_sold=F("quantity"))

    return EnrolmentHost(
        make_series=make_series,
        make_user=make_user,
        bookings=bookings,
        make_full=make_full,
        full="sold out",
        person=("", ""),
        settings="example_project.settings",
    )


def test_enrol_skip_take_back_and_end(enrolment_host: EnrolmentHost) -> None:
    check_enrol_skip_take_back_and_end(enrolment_host)


def test_a_sold_out_date_is_refused_and_reported(
    enrolment_host: EnrolmentHost, django_capture_on_commit_callbacks: Capture
) -> None:
    check_full_date_refused_and_reported(enrolment_host, django_capture_on_commit_callbacks)


def test_a_cancelled_and_restored_date_is_booked_once(enrolment_host: EnrolmentHost) -> None:
    check_cancelled_and_restored_date_booked_once(enrolment_host)
