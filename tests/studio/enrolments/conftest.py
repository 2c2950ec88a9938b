"""The studio's ``enrolment_host`` (tests/support/enrolments.py): UUID pupils, Booking rows."""

from __future__ import annotations

from typing import Any

import pytest

from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import MakeSeries
from tests.support.enrolments import EnrolmentHost


def _user(name: str) -> User:
    return User.objects.create_user(
        f"{name}@studio.example", full_name=name.title(), language="fr", timezone="America/New_York"
    )


def _bookings(user: User) -> list[Any]:
    return list(Booking.objects.filter(pupil=user).values_list("lesson_id", flat=True))


def _make_full(row: Lesson) -> None:
    Lesson.objects.filter(pk=row.pk).update(capacity=0)


@pytest.fixture
def enrolment_host(make_series: MakeSeries) -> EnrolmentHost:
    return EnrolmentHost(
        make_series=make_series,
        make_user=_user,
        bookings=_bookings,
        make_full=_make_full,
        full="full",
        person=("fr", "America/New_York"),
        settings="tests.settings_studio",
    )
