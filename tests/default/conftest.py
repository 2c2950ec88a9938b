"""Fixtures of the default host (tests/hosts/testapp); the shared ones are in tests/conftest.py."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.people import BookPerson, book_seat_holder


@pytest.fixture
def book_person(db: Any) -> BookPerson:
    """Book a named person on an event: ``book_person(event, address, *, name="",
    language="", timezone="") -> BookedPerson`` (tests/support/people.py)."""
    return book_seat_holder
