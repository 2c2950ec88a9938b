"""The shipped translations (revel_recurring/locale/) are complete and compiled.

The check `make messages` makes possible: makemessages runs on a copy of the package
with its catalogues (the options of the Makefile's ``messages`` target), and every
message the code marks must come out translated in every shipped language, neither
missing, empty nor fuzzy. Each shipped ``.mo`` must hold what its ``.po`` compiles
to. Needs GNU gettext (xgettext, msgmerge, msgfmt), as makemessages does.
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "revel_recurring"
LOCALE = PACKAGE / "locale"
LANGUAGES = sorted(path.name for path in LOCALE.iterdir() if path.is_dir())

# The classic gettext forms. Django's own Spanish catalogue has a third form for
# round millions ("1 000 000 de veces"); no count or interval of a rule reads so.
PLURAL_FORMS = {
    "de": "nplurals=2; plural=(n != 1);",
    "es": "nplurals=2; plural=(n != 1);",
    "fr": "nplurals=2; plural=(n > 1);",
    "it": "nplurals=2; plural=(n != 1);",
    "nl": "nplurals=2; plural=(n != 1);",
}

GETTEXT_TOOLS = ("xgettext", "msgmerge", "msgfmt", "msgattrib", "msgen")
missing_tools = [tool for tool in GETTEXT_TOOLS if shutil.which(tool) is None]
pytestmark = pytest.mark.skipif(
    bool(missing_tools),
    reason=f"GNU gettext is not installed ({', '.join(missing_tools)}): apt-get install gettext",
)


def _makefile_variable(name: str) -> list[str]:
    match = re.search(rf"^{name} := (.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert match, f"Makefile has no {name}"
    return match.group(1).split()


def _catalogue(mo_file: Path) -> gettext.GNUTranslations:
    with mo_file.open("rb") as handle:
        return gettext.GNUTranslations(handle)


def _compile(po_file: Path, mo_file: Path, *extra: str) -> gettext.GNUTranslations:
    # --check: format strings of msgid and msgstr agree, the header is complete.
    subprocess.run(
        ["msgfmt", "--check", *extra, "-o", str(mo_file), str(po_file)],
        check=True,
        capture_output=True,
        text=True,
    )
    return _catalogue(mo_file)


def _entries(catalogue: gettext.GNUTranslations) -> dict[Any, str]:
    # The header ("") is not a message; plural keys are (msgid, index) pairs.
    entries: dict[Any, str] = catalogue._catalog  # type: ignore[attr-defined]
    return {key: value for key, value in entries.items() if key != ""}


def _name(key: Any) -> str:
    msgid = key[0] if isinstance(key, tuple) else key
    context, _, text = msgid.rpartition("\x04")
    return f"[{context}] {text!r}" if context else repr(text)


@pytest.fixture(scope="module")
def refreshed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package whose catalogues makemessages brought up to date with the code."""
    copy = tmp_path_factory.mktemp("messages") / PACKAGE.name
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    languages = _makefile_variable("LANGUAGES")
    command = [sys.executable, "-m", "django", "makemessages"]
    command += _makefile_variable("MAKEMESSAGES_OPTIONS")
    command += [arg for language in languages for arg in ("-l", language)]
    subprocess.run(command, cwd=copy, env=env, check=True, capture_output=True, text=True)
    return copy


def test_the_makefile_names_every_shipped_language() -> None:
    assert sorted(_makefile_variable("LANGUAGES")) == LANGUAGES
    assert set(LANGUAGES) >= {"de", "es", "fr", "it", "nl"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_of_the_code_is_translated(
    language: str, refreshed: Path, tmp_path: Path
) -> None:
    po_file = refreshed / "locale" / language / "LC_MESSAGES" / "django.po"
    # Every message of the code, with its msgid as a stand-in for a missing translation.
    english = tmp_path / "english.po"
    subprocess.run(["msgen", "-o", str(english), str(po_file)], check=True, capture_output=True)
    wanted = _entries(_compile(english, tmp_path / "english.mo", "--use-fuzzy"))
    # What the shipped catalogue translates: msgfmt leaves out untranslated and fuzzy entries.
    shipped = LOCALE / language / "LC_MESSAGES" / "django.po"
    translated = {
        key: value
        for key, value in _entries(_compile(shipped, tmp_path / "shipped.mo")).items()
        if value
    }
    missing = sorted({_name(key) for key in wanted.keys() - translated.keys()})
    assert not missing, (
        f"{len(missing)} messages are missing, empty or fuzzy in the {language} catalogue; "
        f"run `make messages` and translate them: {', '.join(missing[:20])}"
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_catalogue_has_no_fuzzy_entries(language: str) -> None:
    shipped = LOCALE / language / "LC_MESSAGES" / "django.po"
    fuzzy = subprocess.run(
        ["msgattrib", "--only-fuzzy", "--no-obsolete", str(shipped)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert fuzzy == "", f"fuzzy entries in the {language} catalogue:\n{fuzzy}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_is_current(language: str, tmp_path: Path) -> None:
    directory = LOCALE / language / "LC_MESSAGES"
    expected = _compile(directory / "django.po", tmp_path / "django.mo")
    compiled = _catalogue(directory / "django.mo")
    stale = "run `make compilemessages`"
    assert _entries(compiled) == _entries(expected), f"{language}: django.mo is stale; {stale}"
    assert compiled.info() == expected.info(), f"{language}: the .mo header is stale; {stale}"
    plural = compiled.plural  # type: ignore[attr-defined]
    assert [plural(n) for n in range(200)] == [expected.plural(n) for n in range(200)]  # type: ignore[attr-defined]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_header_names_the_language_and_its_plural_forms(language: str) -> None:
    info = _catalogue(LOCALE / language / "LC_MESSAGES" / "django.mo").info()
    assert info["language"] == language
    assert info["plural-forms"] == PLURAL_FORMS[language]
    assert info["content-type"] == "text/plain; charset=UTF-8"
