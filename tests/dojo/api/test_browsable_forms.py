"""The browsable API's POST forms on the dojo (slugs, integer statuses, durations, German),
posted as prefilled; the plan's hash."""

from __future__ import annotations

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from revel_recurring.api.pages import action_sentence
from tests.dojo.conftest import API, MakeSeries
from tests.support.browsable import (
    POST_ACTIONS,
    check_create_form,
    check_hash_names_its_request,
    check_prefilled_answer,
    post_as_prefilled,
    prefilled,
)

pytestmark = pytest.mark.django_db


def test_every_form_posted_as_prefilled_works(api: APIClient, make_series: MakeSeries) -> None:
    series = make_series()
    # split/ last: it ends the series before the date its form names.
    for action in sorted(POST_ACTIONS, key=lambda name: name == "split"):
        body, answer = post_as_prefilled(api, f"{API}{series.pk}/{action}/")
        check_prefilled_answer(action, body, answer)


def test_the_page_sentence_is_german(api: APIClient, make_series: MakeSeries) -> None:
    series = make_series()
    page = api.get(f"{API}{series.pk}/split-plan/", HTTP_ACCEPT="text/html").content.decode()
    with translation.override("en"):
        english = action_sentence("split_plan")
    assert english.startswith("POST a date to this page")
    assert english not in page
    with translation.override("de"):
        assert action_sentence("split_plan") in page
    assert '"at": "' in prefilled(api, f"{API}{series.pk}/split-plan/")


def test_apply_takes_the_plans_hash_and_tells_a_wrong_one_from_a_late_one(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    check_hash_names_its_request(
        api,
        f"{API}{series.pk}/",
        {"recurrence": {"weekdays": [3]}},
        {"recurrence": {"weekdays": [4]}},
    )


def test_the_new_series_form_names_what_to_fill_in(api: APIClient) -> None:
    check_create_form(api, API)
