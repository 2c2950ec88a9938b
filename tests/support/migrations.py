"""The migration check every host's tree runs: its models and the app's match their migrations."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


def assert_no_pending_migrations(app_label: str) -> None:
    """Fail, with what ``makemigrations`` would write, when ``app_label`` has model changes."""
    out = StringIO()
    try:
        call_command("makemigrations", app_label, check=True, dry_run=True, stdout=out)
    except SystemExit:
        pytest.fail(f"{app_label} has model changes without a migration:\n{out.getvalue()}")
