"""The dojo's series feed (text keys, a duration instead of an end), byte for byte.

The scenario and the comparison are tests/support/feed_pins.py's.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.support.feed_pins import assert_pinned, pinned_series_text

pytestmark = pytest.mark.django_db


def test_a_series_feed_is_the_pinned_text() -> None:
    template = {"title": "Pinned class", "mat": "Matte 1", "duration": dt.timedelta(minutes=90)}

    assert_pinned(pinned_series_text(template), Path(__file__).with_suffix(".ics"))
