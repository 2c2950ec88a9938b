"""The default host's ``history_series`` (tests/support/history_checks.py): Mondays in Vienna."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.support.factories import VIENNA
from tests.support.history_checks import MakeSeries
from tests.support.holidays import coming_monday


def _series(*, name: str, **options: Any) -> EventSeries:
    start = coming_monday(VIENNA, hour=18).replace(minute=30)
    options.setdefault("auto_publish", True)
    return create_recurring_series(
        name=name,
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": "Europe/Vienna"},
        template_data={"title": name, "capacity": 20, "ends_at": start + dt.timedelta(hours=1)},
        **options,
    )


@pytest.fixture
def history_series(db: Any) -> MakeSeries:
    return _series
