"""The dojo's ``enrolment_host`` (tests/support/enrolments.py): text keys, German members."""

from __future__ import annotations

import pytest

from tests.dojo.conftest import MakeSeries
from tests.hosts.dojo.models import Booking, User
from tests.support.enrolments import EnrolmentHost, booking_host


def _member(name: str) -> User:
    # German, as the dojo's members are unless they chose otherwise; in Tokyo.
    return User.objects.create_user(
        f"{name}@dojo.example", name=name.title(), timezone="Asia/Tokyo"
    )


@pytest.fixture
def enrolment_host(make_series: MakeSeries) -> EnrolmentHost:
    return booking_host(
        Booking,
        event_field="training",
        user_field="member",
        make_series=make_series,
        make_user=_member,
        full="ausgebucht",
        person=("de", "Asia/Tokyo"),
        settings="tests.settings_dojo",
    )
