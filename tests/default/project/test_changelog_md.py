"""CHANGELOG.md keeps an "Unreleased" section on top, in Keep a Changelog's headings, of
short bullets; docs/upgrading.md keeps one "Unreleased" section, by topic."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
CHANGELOG = ROOT / "CHANGELOG.md"
UPGRADING = ROOT / "docs" / "upgrading.md"
# "One or two lines per bullet": lines of the house's length.
MAX_LINES = 2
MAX_WIDTH = 100
LINK = re.compile(r"\[(\d{4})\](?![(:])")
TARGET = re.compile(r"^\[(\d{4})\]: (\S+)$", re.MULTILINE)


def section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section of a Markdown text."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def bullets(text: str) -> list[list[str]]:
    """Each top-level bullet of ``text`` as its lines: the ``- `` line and every indented
    line after it, across blank lines, until a line that is neither."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("- "):
            current = [line]
            found.append(current)
        elif current is not None and line.startswith("  "):
            current.append(line)
        elif line.strip():
            current = None
    return found


def test_the_changelog_opens_with_unreleased_and_uses_the_standard_kinds() -> None:
    text = CHANGELOG.read_text(encoding="utf-8")
    versions = re.findall(r"^## (.+)$", text, re.MULTILINE)
    kinds = set(re.findall(r"^### (.+)$", text, re.MULTILINE))

    assert versions[0] == "Unreleased"
    assert kinds <= KINDS
    assert "include CHANGELOG.md" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")


def test_every_unreleased_bullet_is_one_or_two_short_lines() -> None:
    unreleased = section(CHANGELOG.read_text(encoding="utf-8"), "Unreleased")
    found = bullets(unreleased)
    too_long = [
        lines[0][:60]
        for lines in found
        if len(lines) > MAX_LINES or any(len(line) > MAX_WIDTH for line in lines)
    ]

    assert len(found) > 10
    assert too_long == [], "details belong in the decision record or the page it names"


def test_the_unreleased_bullets_link_decision_records_that_exist() -> None:
    unreleased = section(CHANGELOG.read_text(encoding="utf-8"), "Unreleased")
    linked = set(LINK.findall(unreleased))
    targets = dict(TARGET.findall(unreleased))

    assert linked, "a bullet links its record as [NNNN]"
    assert linked == set(targets), "every [NNNN] has its target line, and only those"
    for number, path in targets.items():
        assert path.startswith(f"docs/decisions/{number}-"), path
        assert (ROOT / path).is_file(), path


def test_the_upgrading_page_has_one_unreleased_section_by_topic() -> None:
    text = UPGRADING.read_text(encoding="utf-8")
    releases = re.findall(r"^## (.+)$", text, re.MULTILINE)
    topics = re.findall(r"^### (.+)$", section(text, "Unreleased"), re.MULTILINE)

    assert releases[0] == "Unreleased"
    assert [r for r in releases if r.startswith("Unreleased")] == ["Unreleased"]
    assert len(topics) >= 2
    assert [t for t in topics if re.search(r"\bissue \d+", t)] == []
