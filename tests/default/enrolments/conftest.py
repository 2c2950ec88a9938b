"""The default host's ``enrolment_host`` (tests/support/enrolments.py): seat holders, capacity."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.testapp.models import Event, SeatHolder
from tests.support.enrolments import EnrolmentHost
from tests.support.factories import VIENNA
from tests.support.holidays import coming_monday


def _series(*, name: str, **options: Any) -> EventSeries:
    # Mondays 18:30 Vienna from the coming Monday, published, 20 places.
    start = coming_monday(VIENNA, hour=18).replace(minute=30)
    return create_recurring_series(
        name=name,
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": "Europe/Vienna"},
        template_data={"title": name, "capacity": 20, "ends_at": start + dt.timedelta(hours=1)},
        auto_publish=True,
        **options,
    )


def _user(name: str) -> Any:
    return get_user_model().objects.create_user(name, f"{name}@example.com", "pw")


def _bookings(user: Any) -> list[Any]:
    return list(SeatHolder.objects.filter(user=user).values_list("event_id", flat=True))


def _make_full(row: Any) -> None:
    Event.objects.filter(pk=row.pk).update(capacity=0)


@pytest.fixture
def enrolment_host(db: Any) -> EnrolmentHost:
    return EnrolmentHost(
        make_series=_series,
        make_user=_user,
        bookings=_bookings,
        make_full=_make_full,
        full="full",
        person=("", ""),
        settings="tests.settings",
    )
