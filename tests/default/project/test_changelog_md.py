"""CHANGELOG.md keeps an "Unreleased" section on top, in Keep a Changelog's headings."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_changelog_opens_with_unreleased_and_uses_the_standard_kinds() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (.+)$", text, re.MULTILINE)
    kinds = set(re.findall(r"^### (.+)$", text, re.MULTILINE))

    assert versions[0] == "Unreleased"
    assert kinds <= KINDS
    assert "include CHANGELOG.md" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")
