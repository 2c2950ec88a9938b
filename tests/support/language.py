"""The active language is reset after every test.

Django's ``LocaleMiddleware`` activates the language a request asks for and leaves it
active on the thread when the response is done; in a server the next request activates
its own, but in a test run the next test would inherit it (a German admin page would
make every later English sentence German). The conftests of both hosts and of the
example project use this fixture.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.utils import translation


@pytest.fixture(autouse=True)
def language_of_the_settings_after_each_test() -> Iterator[None]:
    yield
    translation.deactivate()
