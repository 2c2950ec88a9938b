"""The API's schema and Swagger UI on a host whose REST_FRAMEWORK sets only authentication.

``tests.settings`` is such a host: no ``DEFAULT_SCHEMA_CLASS`` (DRF's default is its
own AutoSchema, whose signature drf-spectacular's generator cannot call), no default
permission, filter or pagination classes.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from drf_spectacular.validation import validate_schema

from example_project.tests.browser import browser_page, screenshot

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
SCHEMA = "/api/recurring/schema/"
DOCS = "/api/recurring/docs/"
__all__ = ["browser_page"]  # the fixture, imported for the browser test


def test_the_host_sets_nothing_but_authentication() -> None:
    # What makes the other tests here mean something.
    assert set(settings.REST_FRAMEWORK) == {"DEFAULT_AUTHENTICATION_CLASSES"}


def test_schema_is_valid_openapi_with_every_annotation(client: Client) -> None:
    response = client.get(SCHEMA, {"format": "json"})

    assert response.status_code == 200, response.content[:500]
    document = response.json()
    validate_schema(document)
    series = "/api/recurring/series/"
    assert len(document["paths"]) >= 13
    # The extend_schema annotations made it (they are what a wrong base class loses).
    pause = document["paths"][f"{series}{{id}}/pause/"]["post"]
    assert pause["summary"] == "Stop generating occurrences (idempotent)"
    assert "409" in document["paths"][f"{series}{{id}}/"]["delete"]["responses"]
    assert document["paths"][series]["get"]["summary"] == "List the series you may see"


def test_schema_as_yaml_and_the_docs_page_point_at_each_other(client: Client) -> None:
    assert client.get(SCHEMA).status_code == 200
    page = client.get(DOCS)

    assert page.status_code == 200
    assert SCHEMA.encode() in page.content
    assert b"drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page.content


@pytest.mark.browser
def test_swagger_ui_renders_the_operations(live_server: Any, browser_page: Any) -> None:
    page = browser_page
    page.goto(f"{live_server.url}{DOCS}")
    # Either the operations or Swagger UI's error box ("Failed to load API definition").
    page.wait_for_selector(".opblock-summary, .errors-wrapper", timeout=15_000)
    screenshot(page, "bare-host-swagger-ui")

    body = page.inner_text("body")
    assert "Failed to load API definition" not in body
    assert page.locator(".opblock").count() >= 13
    assert "Stop generating occurrences (idempotent)" in body
