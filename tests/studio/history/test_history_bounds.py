"""The record of a 10,000-row cancel-stale on the studio host: written and read in pages."""

from __future__ import annotations

import pytest

from tests.support.history_bounds import check_a_big_record_is_bounded
from tests.support.history_checks import MakeSeries


@pytest.mark.django_db
def test_a_10000_row_record_is_written_and_read_in_pages(history_series: MakeSeries) -> None:
    check_a_big_record_is_bounded(history_series)
