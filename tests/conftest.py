"""Fixtures shared by the whole suite; the builders themselves live in tests/factories.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from revel_recurring.models import RecurrenceRule
from tests import factories

MakeRule = Callable[..., RecurrenceRule]


@pytest.fixture
def make_rule() -> MakeRule:
    """:func:`tests.factories.make_rule` as a fixture (``save=False`` needs no database)."""
    return factories.make_rule
