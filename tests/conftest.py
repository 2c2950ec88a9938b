"""Fixtures shared by the whole suite; keep this file small and generic."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from revel_recurring.models import RecurrenceRule

MakeRule = Callable[..., RecurrenceRule]


@pytest.fixture
def make_rule() -> MakeRule:
    """Factory for RecurrenceRule: a weekly Vienna rule unless fields say otherwise.

    ``save=False`` returns an unsaved instance (no database needed), which is what
    validation tests want; saving runs the model's own validation.
    """

    def factory(*, save: bool = True, **fields: Any) -> RecurrenceRule:
        values: dict[str, Any] = {
            "frequency": RecurrenceRule.Frequency.WEEKLY,
            "interval": 1,
            "dtstart": dt.datetime(2025, 3, 17, 10, 0, tzinfo=ZoneInfo("Europe/Vienna")),
            "timezone": "Europe/Vienna",
        }
        values.update(fields)
        rule = RecurrenceRule(**values)
        if save:
            rule.save()
        return rule

    return factory
