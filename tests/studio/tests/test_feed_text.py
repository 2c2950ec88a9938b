"""The studio's series feed (UUID keys, its own field names), byte for byte (tests/feed_pins.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.feed_pins import PIN_START, assert_pinned, pinned_series_text
from tests.studio.models import School

pytestmark = pytest.mark.django_db


def test_a_series_feed_is_the_pinned_text(school: School) -> None:
    template = {
        "school": school,
        "title": "Pinned class",
        "room": "Hall 1",
        "finishes": PIN_START + dt.timedelta(hours=1),
    }

    assert_pinned(pinned_series_text(template), Path(__file__).with_suffix(".ics"))
