"""Decision records: numbered, each with a status, all in the index, every reference live."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DECISIONS = ROOT / "docs" / "decisions"
NAME = re.compile(r"^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
STATUS = re.compile(r"^Status: (Accepted|Proposed|Superseded by \d{4})\b")
# A record named anywhere: by a path through decisions/ (old unnumbered names
# included, so a link left from before the numbering is caught), or by its bare
# numbered file name (inside docs/decisions/, or a path broken over two lines).
REFERENCE = re.compile(
    r"(?:(?<![\w-])decisions/([A-Za-z0-9_-]+\.md))|(?:(?<![\w/-])(\d{4}-[a-z0-9-]+\.md))"
)


def records() -> list[Path]:
    return sorted(p for p in DECISIONS.iterdir() if p.name != "README.md")


def test_records_are_numbered_in_order_without_gaps() -> None:
    names = [p.name for p in records()]

    assert [n for n in names if not NAME.match(n)] == []
    assert [int(n[:4]) for n in names] == list(range(1, len(names) + 1))


def test_every_record_has_a_title_and_a_status_line() -> None:
    for path in records():
        lines = path.read_text(encoding="utf-8").split("\n")
        assert lines[0].startswith("# "), path.name
        assert STATUS.match(lines[2]), f"{path.name}: line 3 is {lines[2]!r}"


def test_a_superseding_record_exists() -> None:
    numbers = {p.name[:4] for p in records()}
    for path in records():
        status = path.read_text(encoding="utf-8").split("\n")[2]
        found = re.match(r"Status: Superseded by (\d{4})", status)
        assert found is None or found.group(1) in numbers, path.name


def test_the_index_lists_every_record_with_its_title_and_status() -> None:
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d{4}) \| \[(.+)\]\((\S+)\) \| (.+) \|$", index, re.MULTILINE)
    expected = []
    for path in records():
        lines = path.read_text(encoding="utf-8").split("\n")
        expected.append((path.name[:4], lines[0][2:], path.name, lines[2][len("Status: ") :]))

    assert rows == expected


def test_every_reference_to_a_record_names_an_existing_file() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    # NNNN-title.md is the placeholder the index uses to explain the naming.
    existing = {p.name for p in records()} | {"README.md", "NNNN-title.md"}
    broken = []
    for name in tracked:
        path = ROOT / name
        if path.suffix not in {".md", ".py", ".ipynb", ".toml", ".ini", ".cfg", ".txt", ".html"}:
            continue
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        found = [through or bare for through, bare in REFERENCE.findall(text)]
        broken += [f"{name}: {ref}" for ref in found if ref not in existing]

    assert broken == []
