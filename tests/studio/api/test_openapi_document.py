"""The studio host's API document stays what tests/openapi/studio.yaml holds."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support.openapi_snapshot import check_openapi_document


@pytest.mark.django_db
def test_openapi_document_is_the_kept_one(client: Client) -> None:
    check_openapi_document(client, "studio")
