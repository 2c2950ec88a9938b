"""The record of a 10,000-row cancel-stale on the default host: written and read in pages,
and the API's rows/ answers each page in the same few statements."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.api import client, user_with
from tests.support.history_bounds import check_a_big_record_is_bounded
from tests.support.history_checks import MakeSeries

API = "/api/recurring/series/"


@pytest.mark.django_db
@pytest.mark.urls("tests.api_urls")
def test_a_10000_row_record_is_written_and_read_in_pages(
    history_series: MakeSeries, django_user_model: Any
) -> None:
    record = check_a_big_record_is_bounded(history_series)

    viewer = client(user_with(django_user_model, "viewer", "view_eventseries"))
    url = f"{API}{record.series_ref}/operations/{record.pk}/rows/"
    viewer.get(url)  # the user's permissions, read once per user
    counts = []
    for page in (1, 50, -(-record.row_count // 100)):
        with CaptureQueriesContext(connection) as read:
            answer = viewer.get(url, {"page": page})
        assert answer.status_code == 200
        assert answer.json()["results"][0]["position"] == (page - 1) * 100 + 1
        counts.append(len(read.captured_queries))
    assert counts[0] == counts[1] == counts[2] <= 6, counts
