"""A date materialized six months ahead, then the daily pass on a real Celery worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.default.beyond.test_beyond_window import _series, book
from tests.support.api import client, user_with
from tests.support.beyond_window import (
    check_daily_pass_on_a_worker_keeps_the_row,
    check_materialize_far_ahead,
)
from tests.support.worker_process import SERVER_WORKER_MARKS

pytestmark = [*SERVER_WORKER_MARKS, pytest.mark.urls("tests.api_urls")]


def test_the_daily_pass_on_a_worker_reaching_a_date_materialized_ahead_keeps_its_row(
    django_user_model: Any, settings: Any, tmp_path: Path
) -> None:
    api: APIClient = client(
        user_with(django_user_model, "organiser", "change_eventseries", "view_eventseries")
    )
    series = _series(auto_publish=True)
    row, start = check_materialize_far_ahead(api, series, book, settings)
    check_daily_pass_on_a_worker_keeps_the_row(
        series, row, start, tmp_path, settings_module="tests.settings"
    )
