"""The studio's series feed (UUID keys, its own field names), byte for byte.

The scenario and the comparison are tests/support/feed_pins.py's.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.hosts.studio.models import School
from tests.support.feed_pins import PIN_START, assert_pinned, pinned_series_text

pytestmark = pytest.mark.django_db


def test_a_series_feed_is_the_pinned_text(school: School) -> None:
    template = {
        "school": school,
        "title": "Pinned class",
        "room": "Hall 1",
        "finishes": PIN_START + dt.timedelta(hours=1),
    }

    assert_pinned(pinned_series_text(template), Path(__file__).with_suffix(".ics"))
