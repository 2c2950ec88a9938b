"""Every import path a host may use today keeps working when modules move.

``tests/public_paths.json`` lists, per module a host is documented to import from (the
README, the docs, the example project, the notebooks and the test hosts' own code), each
public name that module defines or re-exports from its own package: 405 names in 48
modules when the list was made, before the iCalendar modules became a package and the
services' plumbing moved into a subpackage. A module that moves leaves its old path
re-exporting these names. Removing one is a breaking change: say so in
docs/upgrading.md and take it off the list in the same commit.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

PUBLIC: dict[str, list[str]] = json.loads(
    (Path(__file__).resolve().parents[2] / "public_paths.json").read_text(encoding="utf-8")
)


def test_the_list_covers_the_modules_hosts_import_from() -> None:
    # The services hosts call and the faces they mount.
    for module in (
        "revel_recurring.services.lifecycle",
        "revel_recurring.services.generation",
        "revel_recurring.services.chunks",
        "revel_recurring.ical",
        "revel_recurring.ical_http",
        "revel_recurring.api.urls",
    ):
        assert PUBLIC.get(module), module


@pytest.mark.parametrize(("module", "names"), PUBLIC.items(), ids=PUBLIC.keys())
def test_public_names_are_importable_from_their_paths(module: str, names: list[str]) -> None:
    imported = importlib.import_module(module)

    assert [name for name in names if not hasattr(imported, name)] == []
