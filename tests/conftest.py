"""Fixtures shared by the whole suite; the builders themselves live in tests/support/factories.py.

Each test host has its own tree of tests, one folder per concern: ``tests/default``
(``tests.settings``, the host app ``tests/hosts/testapp``), ``tests/studio``
(``tests.settings_studio``) and ``tests/dojo`` (``tests.settings_dojo``). A tree is
collected only under the settings that install its host, so ``pytest --ds ... tests``
never mixes the hosts' models.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps

from revel_recurring.models import RecurrenceRule
from tests.support.language import (
    language_of_the_settings_after_each_test as language_of_the_settings_after_each_test,
)
from tests.support.mysql_driver import missing_time_zone_tables

MakeRule = Callable[..., RecurrenceRule]

HERE = Path(__file__).resolve().parent
#: Each host app and its tree of tests, collected only under settings that install the host.
TREES = {
    "tests.hosts.testapp": HERE / "default",
    "tests.hosts.studio": HERE / "studio",
    "tests.hosts.dojo": HERE / "dojo",
}


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
    for app, root in TREES.items():
        if (path == root or root in path.parents) and not apps.is_installed(app):
            return True
    return None


@pytest.fixture
def make_rule() -> MakeRule:
    """:func:`tests.support.factories.make_rule` as a fixture (``save=False`` needs no database)."""
    # Imported here: the studio host's settings do not install tests.hosts.testapp, whose
    # models tests.support.factories imports.
    from tests.support import factories

    return factories.make_rule
