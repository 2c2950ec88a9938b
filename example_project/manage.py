#!/usr/bin/env python
"""Django's command-line utility for the example project."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    # The project is the `example_project` package inside the repository root, and
    # revel_recurring is importable from there too without installing it. The script's
    # own directory (sys.path[0]) is replaced: its celery.py would shadow Celery.
    sys.path[0] = str(REPO_ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
