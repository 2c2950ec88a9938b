"""Every repository file that a Markdown or Python file of the repository names exists.

A *name* is a path ending in ``.md``, ``.py``, ``.txt`` or ``.toml``, read from
the whole text of a Markdown file and from the comments and docstrings of a
Python file (a string in code is data the code itself uses, and its tests run
it). A name with a slash is looked up from the naming file's folder, from every
folder above it and from ``revel_recurring/`` (the docs name modules as
``services/locking.py``); a bare file name must be the name of some file of the
repository. A link's ``#anchor`` is not part of the name.

Not names of this repository, and so not looked up:

- URLs (``https://...``) and absolute paths (``/usr/...``);
- a file of the reader's own project, written as a code snippet's header line:
  a line ``# <app>/models.py`` (say ``events``) inside a fenced block says where
  the snippet goes (``tests/default/project/test_readme.py`` pastes them into a fresh project);
- a placeholder: a name holding ``NNNN`` or a part in angle brackets
  (``docs/decisions/NNNN-title.md``, ``<app>/models.py``);
- a glob pattern, which keeps its ``*``, ``?``, ``[...]`` or ``{...}``.
"""

from __future__ import annotations

import ast
import io
import posixpath
import re
import subprocess
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = "revel_recurring"
EXTENSIONS = ("md", "py", "txt", "toml")

# A run of path characters ending in one of the extensions. Glob and placeholder
# characters are taken in so that such a token is seen whole and then set aside.
NAME = re.compile(
    r"(?<![\w./~$%*?<>{}\[\]-])"
    r"([\w./~$%*?<>{}\[\]-]*\.(?:" + "|".join(EXTENSIONS) + r"))"
    r"(?![\w/*?<>{}\[\]-])"
)
URL = re.compile(r"\b[a-zA-Z][\w+.-]*://\S+")
FENCE = re.compile(r"^\s*(```|~~~)")
SNIPPET_HEADER = re.compile(r"^\s*# [\w./-]+\s*$")


def tracked() -> list[str]:
    return subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()


def markdown_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of a Markdown file, without the snippets' header lines."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced and SNIPPET_HEADER.match(line):
            continue
        yield number, line


def python_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of a Python file's comments and docstrings."""
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                value = body[0].value.value
                if isinstance(value, str):
                    for offset, line in enumerate(value.splitlines()):
                        yield body[0].lineno + offset, line


def names_in(line: str) -> Iterator[str]:
    for match in NAME.finditer(URL.sub(" ", line)):
        name = match.group(1)
        if name.startswith(("/", "~")) or "NNNN" in name:
            continue
        if any(mark in name for mark in "*?[]{}<>$%"):
            continue
        if not posixpath.basename(name).rpartition(".")[0]:
            continue  # an extension alone (".md")
        yield name


def exists(name: str, naming_file: str, files: set[str], basenames: set[str]) -> bool:
    if "/" not in name:
        return name in basenames
    folder = posixpath.dirname(naming_file)
    bases = [folder]
    while folder:
        folder = posixpath.dirname(folder)
        bases.append(folder)
    bases.append(PACKAGE)
    return any(posixpath.normpath(posixpath.join(base, name)) in files for base in bases)


def missing_names(files: list[str]) -> list[str]:
    known = set(files)
    basenames = {posixpath.basename(f) for f in files}
    found = []
    for name in files:
        if not name.endswith((".md", ".py")) or not (ROOT / name).is_file():
            continue
        text = (ROOT / name).read_text(encoding="utf-8")
        lines = markdown_lines(text) if name.endswith(".md") else python_lines(text)
        for number, line in lines:
            found += [
                f"{name}:{number}: {named}"
                for named in names_in(line)
                if not exists(named, name, known, basenames)
            ]
    return sorted(set(found))


def test_every_repository_file_named_in_markdown_or_python_exists() -> None:
    files = tracked()
    assert "DEVELOPERS.md" in files

    assert missing_names(files) == []


def test_the_finder_reads_names_as_the_module_docstring_says() -> None:
    line = (
        "See docs/locking.md#the-lock-order, services/locking.py and README.md; not "
        "https://example.com/a.md, /usr/lib/x.py, docs/decisions/NNNN-title.md, "
        "<app>/models.py, tests/test_*.py or `.md` alone."
    )

    assert list(names_in(line)) == ["docs/locking.md", "services/locking.py", "README.md"]


def test_a_snippet_header_names_the_readers_file_and_prose_names_ours() -> None:
    text = "Put it in events/models.py:\n\n```python\n# events/models.py\nclass Event: ...\n```\n"

    assert [names for _, line in markdown_lines(text) for names in names_in(line)] == [
        "events/models.py"
    ]


def test_a_name_is_looked_up_from_its_folder_upwards_and_from_the_package() -> None:
    files = {"docs/locking.md", "revel_recurring/services/locking.py", "README.md"}
    basenames = {posixpath.basename(f) for f in files}

    assert exists("../locking.md", "docs/howto/feeds.md", files, basenames)
    assert exists("services/locking.py", "docs/decisions/README.md", files, basenames)
    assert exists("locking.py", "docs/index.md", files, basenames)
    assert not exists("services/gone.py", "docs/index.md", files, basenames)
    assert not exists("ARCHITECTURE.md", "DEVELOPERS.md", files, basenames)


def test_a_missing_file_named_in_a_comment_or_a_docstring_is_found(tmp_path: Path) -> None:
    source = '"""See ``services/gone.py``."""\n\nX = "data/gone.py"  # and gone/too.py\n'

    assert sorted(n for _, line in python_lines(source) for n in names_in(line)) == [
        "gone/too.py",
        "services/gone.py",
    ]
