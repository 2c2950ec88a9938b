"""A series' history on the dojo host: tests/support/history_checks.py's tests."""

from __future__ import annotations

from tests.support.history_checks import HistoryTests


class TestHistory(HistoryTests):
    """With this folder's ``history_series`` (conftest.py)."""
