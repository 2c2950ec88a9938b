"""Reverting over the API: GET the plan, POST it with its hash; 400 refusals, 409 stale."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries, SeriesOperation
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import client, next_tuesday, user_with
from tests.support.factories import make_series

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"
MON_WED = {"weekdays": [0, 2]}


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    return client(user_with(django_user_model, "editor", "view_eventseries", "change_eventseries"))


def rows_of(series: EventSeries) -> list[tuple[Any, ...]]:
    return list(
        Event.objects.filter(series=series, is_template=False)
        .order_by("pk")
        .values_list("pk", "recurrence_id", "starts_at", "state")
    )


def planned(name: str = "Tuesday yoga") -> tuple[EventSeries, SeriesOperation]:
    """Tuesdays and Thursdays for four weeks, moved to Mondays and Wednesdays by a plan."""
    series = make_series(name=name, dtstart=next_tuesday(), weekdays=[1, 3], window_weeks=4)
    generate_series_events(series)
    plan = plan_recurrence_change(series, MON_WED)
    apply_recurrence_plan(series, plan.hash, MON_WED, cancel_drift="all")
    return series, SeriesOperation.objects.filter(series_ref=series.pk, kind="plan").get()


def revert_url(series: EventSeries, operation: Any) -> str:
    return f"{API}{series.pk}/operations/{operation}/revert/"


def test_the_plan_then_the_revert_put_the_dates_back(editor: APIClient) -> None:
    series = make_series(dtstart=next_tuesday(), weekdays=[1, 3], window_weeks=4)
    generate_series_events(series)
    rows = rows_of(series)
    plan = plan_recurrence_change(series, MON_WED)
    apply_recurrence_plan(series, plan.hash, MON_WED, cancel_drift="all")
    operation = SeriesOperation.objects.get(series_ref=series.pk, kind="plan")
    assert rows_of(series) != rows

    seen = editor.get(revert_url(series, operation.pk))
    assert seen.status_code == 200, seen.json()
    body = seen.json()
    assert body["kind"] == "plan"
    assert body["rows"]
    assert body["hash"]
    assert {row["action"] for row in body["rows"]} <= {"restore", "remove"}
    answer = editor.post(
        revert_url(series, operation.pk), {"plan_hash": body["hash"]}, format="json"
    )

    assert answer.status_code == 200, answer.json()
    assert rows_of(series) == rows
    revert = SeriesOperation.objects.get(pk=answer.json()["operation"])
    assert revert.kind == "revert"
    assert revert.reverts_id == operation.pk


def test_a_refused_revert_is_a_400_naming_why(editor: APIClient) -> None:
    series, operation = planned()
    body = {"plan_hash": editor.get(revert_url(series, operation.pk)).json()["hash"]}
    assert editor.post(revert_url(series, operation.pk), body, format="json").status_code == 200

    again = editor.get(revert_url(series, operation.pk))
    applied_again = editor.post(revert_url(series, operation.pk), body, format="json")

    assert again.status_code == 400
    assert "reverted already" in again.json()["operation"][0]
    assert applied_again.status_code == 400
    assert list(applied_again.json()) == ["operation"]


def test_a_revert_kind_that_cannot_be_undone_is_a_400(editor: APIClient) -> None:
    series, _ = planned()
    last = Event.objects.filter(series=series, is_template=False).latest("starts_at")
    cancel_occurrence(series, last.recurrence_id)
    cancel = SeriesOperation.objects.get(series_ref=series.pk, kind="cancel")

    answer = editor.get(revert_url(series, cancel.pk))

    assert answer.status_code == 400
    assert "cannot be undone" in answer.json()["operation"][0]


def test_a_late_revert_is_the_409_of_a_late_plan_with_the_fresh_one(editor: APIClient) -> None:
    series, operation = planned()
    body = editor.get(revert_url(series, operation.pk)).json()
    moved = next(row for row in body["rows"] if row["action"] == "restore")
    Seat.objects.create(event_id=moved["id"], label="Front", quantity=5, booked=1)
    rows = rows_of(series)

    answer = editor.post(
        revert_url(series, operation.pk), {"plan_hash": body["hash"]}, format="json"
    )

    assert answer.status_code == 409
    assert answer.json()["plan"]["hash"] != body["hash"]
    assert answer.json()["detail"]
    assert rows_of(series) == rows
    fresh = answer.json()["plan"]
    redone = editor.post(
        revert_url(series, operation.pk), {"plan_hash": fresh["hash"]}, format="json"
    )
    assert redone.status_code == 200, redone.json()


def test_a_missing_hash_is_a_400_on_plan_hash(editor: APIClient) -> None:
    series, operation = planned()
    answer = editor.post(revert_url(series, operation.pk), {}, format="json")
    assert answer.status_code == 400
    assert list(answer.json()) == ["plan_hash"]


def test_another_series_operation_is_a_404(editor: APIClient) -> None:
    series, _ = planned()
    _other, operation = planned("Other yoga")
    assert editor.get(revert_url(series, operation.pk)).status_code == 404
    assert editor.get(revert_url(series, "not-an-id")).status_code == 404


def test_a_viewer_may_not_revert(django_user_model: Any) -> None:
    viewer = client(user_with(django_user_model, "viewer", "view_eventseries"))
    series, operation = planned()
    assert viewer.get(revert_url(series, operation.pk)).status_code == 403
    answer = viewer.post(revert_url(series, operation.pk), {"plan_hash": "x"}, format="json")
    assert answer.status_code == 403
