"""The browsable API's POST forms with UUID lessons, posted as prefilled; the plan's hash."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.studio.conftest import API, MakeSeries, lessons
from tests.support.browsable import (
    POST_ACTIONS,
    check_create_form,
    check_hash_names_its_request,
    check_prefilled_answer,
    post_as_prefilled,
)
from tests.support.drift import drift_every_date

pytestmark = pytest.mark.django_db


def test_every_form_posted_as_prefilled_works(api: APIClient, make_series: MakeSeries) -> None:
    series = make_series()
    # split/ last: it ends the series before the date its form names.
    for action in sorted(POST_ACTIONS, key=lambda name: name == "split"):
        body, answer = post_as_prefilled(api, f"{API}{series.pk}/{action}/")
        check_prefilled_answer(action, body, answer)


def test_a_drifted_series_cancel_stale_form_names_its_lessons(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    # Every lesson off the rule, with no date of it to move to (a weekday change moves them).
    thursdays = drift_every_date(series)
    assert [row.pk for row in thursdays] == [row.pk for row in lessons(series)]

    body, answer = post_as_prefilled(api, f"{API}{series.pk}/cancel-stale/")

    assert body["ids"] == [str(row.pk) for row in thursdays]
    assert answer.status_code == 200, answer.json()
    assert sorted(answer.json()["cancelled"]) == sorted(str(row.pk) for row in thursdays)


def test_apply_takes_the_plans_hash_and_tells_a_wrong_one_from_a_late_one(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    check_hash_names_its_request(
        api,
        f"{API}{series.pk}/",
        {"recurrence": {"weekdays": [2]}},
        {"recurrence": {"weekdays": [4]}},
    )


def test_the_new_series_form_names_what_to_fill_in(api: APIClient) -> None:
    check_create_form(api, API)
