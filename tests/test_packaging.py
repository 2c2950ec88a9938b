"""What pyproject.toml promises a site; the `package` tox env proves it on a built wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_build_backend_reads_the_pep_639_license() -> None:
    assert PYPROJECT["build-system"]["requires"] == ["setuptools>=77"]
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_redis_extra_brings_what_celery_redis_transport_imports() -> None:
    # redis alone left out kombu's own needs ("No module named 'packaging'").
    assert PYPROJECT["project"]["optional-dependencies"]["redis"] == ["celery[redis]>=5.4"]
