"""A date materialized six months ahead, then the daily pass on a real Celery worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rest_framework.test import APIClient

from tests.studio.conftest import MakeSeries
from tests.support.beyond_window import (
    Book,
    check_daily_pass_on_a_worker_keeps_the_row,
    check_materialize_far_ahead,
)
from tests.support.worker_process import SERVER_WORKER_MARKS

pytestmark = SERVER_WORKER_MARKS


def test_the_daily_pass_on_a_worker_reaching_a_date_materialized_ahead_keeps_its_row(
    api: APIClient, make_series: MakeSeries, book: Book, settings: Any, tmp_path: Path
) -> None:
    series = make_series()
    row, start = check_materialize_far_ahead(api, series, book, settings)
    check_daily_pass_on_a_worker_keeps_the_row(
        series, row, start, tmp_path, settings_module="tests.settings_studio"
    )
