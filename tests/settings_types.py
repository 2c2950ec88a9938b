"""Settings for the type checker only: the default host's, with the other two hosts installed.

django-stubs reads the models of the installed apps, so mypy knows every host's models
(``[tool.django-stubs]`` in pyproject.toml). No test runs with these settings.
"""

from __future__ import annotations

from tests.settings import *  # noqa: F403
from tests.settings import INSTALLED_APPS as DEFAULT_APPS

INSTALLED_APPS = [*DEFAULT_APPS, "tests.hosts.studio", "tests.hosts.dojo"]
