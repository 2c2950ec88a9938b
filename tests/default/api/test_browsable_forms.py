"""The browsable API's POST forms on the testapp host, posted as prefilled; the plan's hash.

Issue 35, "The browsable API": each form holds a body that works as it stands (a
2xx, or a 400 naming the date the person must choose), never DRF's skeleton of nulls;
OPTIONS describes each action's own body; apply takes the plan's hash as ``hash``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.support.api import user_with
from tests.support.browsable import (
    POST_ACTIONS,
    check_create_form,
    check_hash_names_its_request,
    check_prefilled_answer,
    post_as_prefilled,
    prefilled,
)
from tests.support.factories import VIENNA

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(
        user_with(django_user_model, "editor", "view_eventseries", "change_eventseries")
    )
    return api


def weekly_yoga() -> EventSeries:
    """Weekly from tomorrow 10:00 Vienna, its window generated."""
    day = (timezone.now() + dt.timedelta(days=1)).astimezone(VIENNA)
    start = day.replace(hour=10, minute=0, second=0, microsecond=0)
    return create_recurring_series(
        name="Yoga",
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": "Europe/Vienna"},
        template_data={"title": "Yoga", "ends_at": start + dt.timedelta(hours=1)},
        auto_publish=True,
    )


def test_every_form_posted_as_prefilled_works(editor: APIClient) -> None:
    series = weekly_yoga()
    # split/ last: it ends the series before the date its form names.
    for action in sorted(POST_ACTIONS, key=lambda name: name == "split"):
        body, answer = post_as_prefilled(editor, f"{API}{series.pk}/{action}/")
        check_prefilled_answer(action, body, answer)
    forms = {
        action: prefilled(editor, f"{API}{series.pk}/{action}/")
        for action in ("recurrence-apply", "add-date")
    }
    assert '"hash": "' in forms["recurrence-apply"]
    assert '"cancel_drift": "none"' in forms["recurrence-apply"]
    assert '"instant": "' in forms["add-date"]


def test_the_split_form_splits_at_the_first_date_it_can(editor: APIClient) -> None:
    series = weekly_yoga()
    path = f"{API}{series.pk}/split/"

    body, answer = post_as_prefilled(editor, path)

    assert answer.status_code == 201, answer.json()
    assert answer.json()["at"] == body["at"]
    assert answer.json()["continuation"]["name"] == "Yoga"


def test_the_pages_say_what_posting_does_and_draw_code_as_code(editor: APIClient) -> None:
    series = weekly_yoga()
    page = editor.get(f"{API}{series.pk}/recurrence-plan/", HTTP_ACCEPT="text/html")
    text = page.content.decode()
    assert "recurrence_plan" not in text.split("<h1>", 1)[1].split("</textarea>", 1)[0]
    assert "to see what it would do to its dates. Nothing is changed." in text
    add_date = editor.get(f"{API}{series.pk}/add-date/", HTTP_ACCEPT="text/html").content
    assert b"<code>{&quot;instant&quot;" in add_date
    assert b"`" not in add_date.split(b'<div class="pull-left">', 1)[1].split(b"</p>", 1)[0]


def test_options_describes_each_actions_own_body(editor: APIClient) -> None:
    series = weekly_yoga()

    def fields(action: str) -> set[str]:
        answer = editor.options(f"{API}{series.pk}/{action}/")
        assert answer.status_code == 200, answer.content
        return set(answer.json()["actions"]["POST"])

    assert fields("add-date") == {"instant"}
    assert fields("recurrence-apply") == {
        "recurrence",
        "generation_window_weeks",
        "holidays",
        "hash",
        "plan_hash",
        "notify",
        "cancel_drift",
    }
    assert fields("split-plan") == {"at", "recurrence", "name", "template", "holidays", "notify"}
    assert fields("pause") == set()
    drift = editor.options(f"{API}{series.pk}/recurrence-apply/").json()["actions"]["POST"]
    labels = {
        choice["value"]: choice["display_name"] for choice in drift["cancel_drift"]["choices"]
    }
    assert set(labels) == {"none", "unbooked", "all"}
    assert labels["unbooked"].startswith("unbooked: also cancel the drifted dates without bookings")


def test_apply_takes_the_plans_hash_and_tells_a_wrong_one_from_a_late_one(
    editor: APIClient,
) -> None:
    series = weekly_yoga()
    check_hash_names_its_request(
        editor,
        f"{API}{series.pk}/",
        {"recurrence": {"weekdays": [2]}},
        {"recurrence": {"weekdays": [3]}},
    )


def test_the_new_series_form_names_what_to_fill_in(django_user_model: Any) -> None:
    creator = APIClient()
    creator.force_authenticate(
        user_with(django_user_model, "creator", "view_eventseries", "add_eventseries")
    )
    check_create_form(creator, API)
