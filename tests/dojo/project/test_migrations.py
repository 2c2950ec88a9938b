"""The dojo host's models match its migrations (the app's own are checked in tests/)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tests.support.migrations import assert_no_pending_migrations


@pytest.mark.django_db
@pytest.mark.parametrize("app_label", ["dojo", "revel_recurring"])
def test_no_pending_migrations(app_label: str) -> None:
    assert_no_pending_migrations(app_label)


def test_the_host_passes_the_apps_checks() -> None:
    # E013 judges IntegerChoices members as the run time does; no warning either.
    out = StringIO()
    call_command("check", "--fail-level", "WARNING", stdout=out)
