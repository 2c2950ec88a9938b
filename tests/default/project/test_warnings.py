"""Deprecation warnings are errors in every suite (pyproject's ``filterwarnings``).

The package claims Django 6.0, whose removals (6.1's) arrive in 5.2 and 6.0 as
deprecation warnings; DRF's, django-filter's and Celery's deprecation classes derive
from the same two built-in ones. A test that makes a deprecated call fails with it.
"""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import pytest
from django.contrib.postgres.aggregates import ArrayAgg
from django.utils.deprecation import RemovedAfterNextVersionWarning, RemovedInNextVersionWarning

ROOT = Path(__file__).resolve().parents[3]


def test_a_deprecated_django_call_raises_in_the_test_that_makes_it() -> None:
    # Deprecated in Django 5.2 (use order_by), removed in 6.1: the warning is raised. It is
    # a PendingDeprecationWarning on 5.2 and a DeprecationWarning on 6.0.
    deprecations = (DeprecationWarning, PendingDeprecationWarning)
    with pytest.raises(deprecations, match="The ordering argument is deprecated"):
        ArrayAgg("name", ordering="name")


@pytest.mark.parametrize("category", [RemovedInNextVersionWarning, RemovedAfterNextVersionWarning])
def test_both_of_djangos_coming_removals_are_errors(category: type[Warning]) -> None:
    with pytest.raises(category):
        warnings.warn("a deprecated call", category, stacklevel=1)


def test_the_setting_is_in_pyproject_for_every_suite() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    filters = config["tool"]["pytest"]["ini_options"]["filterwarnings"]

    assert {"error::DeprecationWarning", "error::PendingDeprecationWarning"} <= set(filters)
    # A later "ignore" for a whole category would switch it off again.
    assert not [f for f in filters if f.startswith("ignore::") and f.count(":") == 2]
