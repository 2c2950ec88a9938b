"""The dojo's ``enrolment_host`` (tests/support/enrolments.py): text keys, German members."""

from __future__ import annotations

from typing import Any

import pytest

from tests.dojo.conftest import MakeSeries
from tests.hosts.dojo.models import Booking, Training, User
from tests.support.enrolments import EnrolmentHost


def _user(name: str) -> User:
    # German, as the dojo's members are unless they chose otherwise.
    return User.objects.create_user(
        f"{name}@dojo.example", name=name.title(), timezone="Asia/Tokyo"
    )


def _bookings(user: User) -> list[Any]:
    return list(Booking.objects.filter(member=user).values_list("training_id", flat=True))


def _make_full(row: Training) -> None:
    Training.objects.filter(pk=row.pk).update(capacity=0)


@pytest.fixture
def enrolment_host(make_series: MakeSeries) -> EnrolmentHost:
    return EnrolmentHost(
        make_series=make_series,
        make_user=_user,
        bookings=_bookings,
        make_full=_make_full,
        full="ausgebucht",
        person=("de", "Asia/Tokyo"),
        settings="tests.settings_dojo",
    )
