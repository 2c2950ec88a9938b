"""The dojo's ``history_series`` (tests/support/history_checks.py): its trainings, text keys."""

from __future__ import annotations

import pytest

from tests.dojo.conftest import MakeSeries


@pytest.fixture
def history_series(make_series: MakeSeries) -> MakeSeries:
    return make_series
