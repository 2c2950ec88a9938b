"""The example host site. Imported as ``example_project`` with the repository root on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent

# `python manage.py` (before manage.py fixes it) and pytest-django's manage.py discovery
# put this directory itself on sys.path. There, celery.py would shadow the Celery
# distribution (`from celery import Celery` would import this project's module again),
# so the directory is dropped before the Celery app is imported.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from .celery import app as celery_app  # noqa: E402

__all__ = ["celery_app"]
