"""Fixtures shared by the whole suite; the builders themselves live in tests/factories.py.

``tests/studio`` (``tests.settings_studio``) and ``tests/dojo`` (``tests.settings_dojo``)
are hosts with their own settings: each one's tests are collected only under its
settings, and the rest of ``tests/`` only under ``tests.settings``, so
``pytest --ds ... tests`` never mixes the hosts' models.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps

from revel_recurring.models import RecurrenceRule
from tests.language import (
    language_of_the_settings_after_each_test as language_of_the_settings_after_each_test,
)
from tests.mysql_driver import missing_time_zone_tables

MakeRule = Callable[..., RecurrenceRule]

HERE = Path(__file__).resolve().parent
#: The other test hosts: each one's tests run only under its own settings.
HOSTS = {"tests.studio": HERE / "studio", "tests.dojo": HERE / "dojo"}


@pytest.fixture(scope="session", autouse=True)
def mariadb_has_time_zone_tables(django_db_blocker: Any) -> None:
    """Stop at once, saying what to do, on a MariaDB server without time zone tables.

    Dates in named zones (``start__date``, the admin's date hierarchy) need them; without,
    dozens of tests would fail with no hint why (.ci/run loads them).
    """
    with django_db_blocker.unblock():
        problem = missing_time_zone_tables()
    if problem:
        pytest.exit(problem, returncode=1)


def pytest_ignore_collect(collection_path: Path, config: Any) -> bool | None:
    path = collection_path.resolve()
    for app, root in HOSTS.items():
        inside = path == root or root in path.parents
        if apps.is_installed(app):
            return None if inside or path in root.parents else True
        if inside:
            return True
    return None


@pytest.fixture
def make_rule() -> MakeRule:
    """:func:`tests.factories.make_rule` as a fixture (``save=False`` needs no database)."""
    # Imported here: the studio host's settings do not install tests.testapp, whose
    # models tests.factories imports.
    from tests import factories

    return factories.make_rule
