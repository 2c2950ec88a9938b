"""The studio host's models match its migrations (the app's own are checked in tests/)."""

from __future__ import annotations

import pytest

from tests.support.migrations import assert_no_pending_migrations


@pytest.mark.django_db
@pytest.mark.parametrize("app_label", ["studio", "revel_recurring"])
def test_no_pending_migrations(app_label: str) -> None:
    assert_no_pending_migrations(app_label)
