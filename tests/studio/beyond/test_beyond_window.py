"""Dates beyond the window (the UUID host): listed, materialized once, kept by the pass."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.studio.conftest import MakeSeries
from tests.support.beyond_window import (
    Book,
    check_list_shows_dates_beyond_the_window,
    check_materialize_far_ahead,
    check_plan_moves_it_like_any_row,
    check_refusals,
    check_split_carries_it,
    check_window_reaches_it,
)

pytestmark = pytest.mark.django_db


def test_the_list_shows_the_dates_beyond_the_window_marked_and_capped(
    api: APIClient, make_series: MakeSeries, settings: Any
) -> None:
    check_list_shows_dates_beyond_the_window(api, make_series(), settings)


def test_a_date_six_months_ahead_is_materialized_once_and_the_window_keeps_it(
    api: APIClient, make_series: MakeSeries, book: Book, settings: Any
) -> None:
    series = make_series()
    row, start = check_materialize_far_ahead(api, series, book, settings)
    check_window_reaches_it(series, row, start)


def test_bad_dates_are_refused_naming_start(api: APIClient, make_series: MakeSeries) -> None:
    check_refusals(api, make_series())


def test_a_plan_moves_a_date_materialized_ahead_like_any_row(
    api: APIClient, make_series: MakeSeries, book: Book, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = make_series()
    row, _ = check_materialize_far_ahead(api, series, lambda row: None, settings)
    check_plan_moves_it_like_any_row(api, series, row)


def test_a_split_carries_a_date_materialized_ahead(
    api: APIClient, make_series: MakeSeries, book: Book, settings: Any
) -> None:
    series = make_series()
    row, _ = check_materialize_far_ahead(api, series, book, settings)
    check_split_carries_it(api, series, row)
