"""The booking a test of this folder makes on a date: the host's own booking row."""

from __future__ import annotations

import pytest

from tests.hosts.dojo.models import Booking, Training, User
from tests.support.beyond_window import Book


@pytest.fixture
def book(member: User) -> Book:
    def booking(row: Training) -> None:
        Booking.objects.create(training=row, member=member)

    return booking
