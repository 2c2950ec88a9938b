"""What pyproject.toml promises a site; the `package` tox env proves it on a built wheel."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import revel_recurring

ROOT = Path(__file__).resolve().parents[3]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_build_backend_reads_the_pep_639_license() -> None:
    assert PYPROJECT["build-system"]["requires"] == ["setuptools>=77"]
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_redis_extra_brings_what_celery_redis_transport_imports() -> None:
    # redis alone left out kombu's own needs ("No module named 'packaging'").
    assert PYPROJECT["project"]["optional-dependencies"]["redis"] == ["celery[redis]>=5.4"]


def test_project_urls_name_the_documentation_source_changelog_and_issues() -> None:
    urls = PYPROJECT["project"]["urls"]
    repository = "https://github.com/revel-recurring/revel-recurring"

    assert list(urls) == ["Documentation", "Source", "Changelog", "Issues"]
    assert urls["Source"] == repository
    assert urls["Issues"] == f"{repository}/issues"
    # The two that name files of the repository name ones that exist.
    for label, path in (("Documentation", "docs"), ("Changelog", "CHANGELOG.md")):
        prefix = f"{repository}/{'tree' if label == 'Documentation' else 'blob'}/main/"
        assert urls[label] == prefix + path
        assert (ROOT / path).exists()


def test_the_translations_ship_in_the_wheel_and_the_sdist() -> None:
    # The package env (scripts/check_package.py) finds them in the built wheel and
    # renders a German sentence from the installed copy.
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["revel_recurring"]
    assert {"locale/*/LC_MESSAGES/*.po", "locale/*/LC_MESSAGES/*.mo"} <= set(data)
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    assert "recursive-include revel_recurring/locale *.po *.mo" in manifest
    shipped = sorted(
        p.parent.parent.name for p in ROOT.glob("revel_recurring/locale/*/LC_MESSAGES/django.mo")
    )
    assert shipped == ["de", "es", "fr", "it", "nl"]


def test_the_version_has_one_source_the_package_attribute() -> None:
    # pyproject.toml names no version of its own: setuptools reads __version__
    # (statically, without importing Django) when it builds the wheel and the sdist.
    project = PYPROJECT["project"]

    assert "version" not in project
    assert "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "revel_recurring.__version__"
    }


def test_the_installed_distribution_reports_the_package_version() -> None:
    # The editable install's metadata was built from that one source (make reinstalls
    # when revel_recurring/__init__.py changes); the package env checks the built
    # wheel's and sdist's names and metadata the same way.
    assert importlib.metadata.version("revel-recurring") == revel_recurring.__version__
    release = r"\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?(?:\.dev\d+)?"
    assert re.fullmatch(release, revel_recurring.__version__)
