"""The default host's series feed, byte for byte (tests/support/feed_pins.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.support.feed_pins import PIN_START, assert_pinned, pinned_series_text

pytestmark = pytest.mark.django_db


def test_a_series_feed_is_the_pinned_text() -> None:
    template = {
        "title": "Pinned class",
        "venue": "Studio 2",
        "capacity": 20,
        "ends_at": PIN_START + dt.timedelta(minutes=90),
    }

    assert_pinned(pinned_series_text(template), Path(__file__).with_suffix(".ics"))
