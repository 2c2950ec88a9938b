"""The booking a test of this folder makes on a date: the host's own booking row."""

from __future__ import annotations

import pytest

from tests.hosts.studio.models import Booking, Lesson, User
from tests.support.beyond_window import Book


@pytest.fixture
def book(pupil: User) -> Book:
    def booking(row: Lesson) -> None:
        Booking.objects.create(lesson=row, pupil=pupil)

    return booking
