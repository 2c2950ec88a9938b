"""The documentation site's generated reference reads the code's own definitions.

``make docs`` (CI) renders these facts with warnings as errors; the tests here
check the readers themselves in every test env, without Sphinx: every setting
with the default the app uses, every system check id, every management command.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from django.conf import LazySettings

from revel_recurring.conf import RecurringSettings, recurring_settings

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import revel_code_facts as facts  # noqa: E402


def setting_names() -> set[str]:
    return {n for n, v in vars(RecurringSettings).items() if isinstance(v, property)}


def test_every_setting_is_in_the_reference_with_a_docstring() -> None:
    shown = facts.setting_defaults()

    assert set(shown) == setting_names()
    assert all(doc for _, doc in shown.values())


@pytest.mark.parametrize("name", sorted(setting_names()))
def test_the_reference_shows_the_default_the_app_uses(name: str, settings: LazySettings) -> None:
    if hasattr(settings, f"REVEL_RECURRING_{name}"):
        delattr(settings, f"REVEL_RECURRING_{name}")

    assert facts.setting_defaults()[name][0] == getattr(recurring_settings, name)


def test_every_check_id_in_the_code_is_in_the_reference() -> None:
    source = "".join(path.read_text(encoding="utf-8") for path in facts.check_sources())
    declared = set(re.findall(r"""id=["'](revel_recurring\.[EW]\d{3})["']""", source))
    entries = facts.system_checks()

    assert declared
    assert {e.id for e in entries} == declared
    assert all(e.messages for e in entries)
    assert {e.level for e in entries if e.id.startswith("revel_recurring.W")} == {"Warning"}


def test_check_messages_are_shown_as_the_code_words_them() -> None:
    e004 = next(e for e in facts.system_checks() if e.id == "revel_recurring.E004")

    assert e004.messages == ["{attribute} names '{field_name}', which '{label}' does not have."]
    assert e004.hints == ["Set {attribute} on {model.__name__} to one of its field names."]


def test_every_management_command_is_in_the_reference() -> None:
    shipped = {
        p.stem
        for p in (ROOT / "revel_recurring" / "management" / "commands").glob("revel_recurring_*.py")
    }

    assert {name for name, _ in facts.management_commands()} == shipped


def test_the_setting_docstrings_name_only_checks_that_exist() -> None:
    # The settings page turns "check E009" into a link; a check that does not exist
    # fails `make docs`, and this test says so earlier.
    ids = {e.id.split(".")[1] for e in facts.system_checks()}
    named = {
        m for _, doc in facts.setting_defaults().values() for m in re.findall(r"\b[EW]\d{3}\b", doc)
    }

    assert named
    assert named <= ids
