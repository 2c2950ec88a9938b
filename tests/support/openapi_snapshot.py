"""The API document each test host serves, compared byte for byte with the one kept in
``tests/openapi/``: a change to the API's shape must be made on purpose.

After a deliberate change, rewrite the kept copies with
``REVEL_UPDATE_OPENAPI=1 make test ARGS="-k openapi_document"`` and say in
docs/upgrading.md what a client sees differently.

The copies are SQLite's: a document states integer fields' bounds, which Django takes
from the database (a positive integer field tops out at 2**63 - 1 on SQLite, 2**31 - 1
on PostgreSQL and MariaDB), so the comparison runs in the SQLite passes only.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

KEPT = Path(__file__).resolve().parents[1] / "openapi"
SCHEMA = "/api/recurring/schema/"


def check_openapi_document(client: Client, host: str) -> None:
    """Fail with a unified diff when ``host``'s served document differs from its kept copy."""
    if connection.vendor != "sqlite":
        pytest.skip("the kept documents state SQLite's integer bounds")
    response = client.get(SCHEMA)
    assert response.status_code == 200, response.content[:500]
    served = response.content.decode()
    kept = KEPT / f"{host}.yaml"
    if os.environ.get("REVEL_UPDATE_OPENAPI") == "1":
        kept.write_text(served, encoding="utf-8")
    expected = kept.read_text(encoding="utf-8")
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            served.splitlines(keepends=True),
            fromfile=f"tests/openapi/{host}.yaml",
            tofile="served",
            n=2,
        )
    )
    assert served == expected, f"The API document changed:\n{diff[:6000]}"
