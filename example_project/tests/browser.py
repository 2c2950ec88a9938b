"""Playwright on Debian's Chromium for the browser tests (marker ``browser``).

Playwright never downloads a browser here: it drives the system Chromium
(``apt-get install chromium``) through ``executable_path``. Without it, or
without the playwright package, the browser tests skip themselves.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.db import connections

CHROMIUM = Path(os.environ.get("REVEL_TEST_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "browser"
# Quiet, reproducible and sandbox-free (CI runs as root): no updates, sync,
# first-run pages or GPU.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


T = TypeVar("T")


def read_db(query: Callable[[], T]) -> T:
    """Run an ORM read while Playwright is active, then close the connection it used.

    Under Playwright's event loop the ORM opens a connection of its own that the
    test teardown never closes (PostgreSQL then refuses to drop the test database).
    Set up data in fixtures requested before ``browser_page`` instead.
    """
    try:
        return query()
    finally:
        connections.close_all()


def chromium_available() -> bool:
    return CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)


@pytest.fixture
def browser_page(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A fresh Chromium page; skips the test when Chromium or playwright is missing."""
    if not chromium_available():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    # Playwright's sync API runs an event loop in this thread; the test's own ORM
    # calls between page steps are still plain synchronous code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(15_000)
            yield page
        finally:
            browser.close()


def submit_login(page: Any) -> None:
    """Submit the admin's login form; return once the page it leads to has loaded.

    An element of that page showing is not enough: Django's admin scripts bind at
    DOMContentLoaded, which waits for the deferred scripts, after the list is drawn.
    A click on the list's "select all" box before then ticks that box alone (CI
    saw the action answer "Items must be selected" on a loaded machine).
    """
    page.click("input[type=submit]")
    # wait_for_url waits for the "load" event, which comes after DOMContentLoaded.
    page.wait_for_url(lambda url: "/admin/login/" not in url)


def open_series_page(page: Any, base_url: str, series_pk: int, password: str) -> None:
    """Sign in as ``admin`` with ``password`` and open the series' change page (its
    upcoming dates drawn)."""
    change = f"/admin/revel_recurring/eventseries/{series_pk}/change/"
    page.goto(f"{base_url}/admin/login/?next={change}")
    page.fill("#id_username", "admin")
    page.fill("#id_password", password)
    submit_login(page)
    page.wait_for_selector("#revel-upcoming")


def screenshot(page: Any, name: str) -> Path:
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
