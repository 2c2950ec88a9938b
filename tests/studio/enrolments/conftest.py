"""The studio's ``enrolment_host`` (tests/support/enrolments.py): UUID pupils, Booking rows."""

from __future__ import annotations

import pytest

from tests.hosts.studio.models import Booking, User
from tests.studio.conftest import MakeSeries
from tests.support.enrolments import EnrolmentHost, booking_host


def _pupil(name: str) -> User:
    # French, in New York: what get_enrolled_people must pass on.
    return User.objects.create_user(
        f"{name}@studio.example", full_name=name.title(), language="fr", timezone="America/New_York"
    )


@pytest.fixture
def enrolment_host(make_series: MakeSeries) -> EnrolmentHost:
    return booking_host(
        Booking,
        event_field="lesson",
        user_field="pupil",
        make_series=make_series,
        make_user=_pupil,
        full="full",
        person=("fr", "America/New_York"),
        settings="tests.settings_studio",
    )
