"""Reverting in the admin: the revert's plan page, then a confirmation with its hash."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from revel_recurring.models import SeriesOperation
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from tests.hosts.testapp.models import Seat
from tests.support.admin import change_url, generated_series, texts
from tests.support.revert import last_operation, rows_of

pytestmark = pytest.mark.django_db
TUESDAYS = {"weekdays": [1]}
TEMPLATE = "admin/revel_recurring/eventseries/revert.html"


def planned() -> tuple[Any, SeriesOperation]:
    series = generated_series(name="Yoga")
    plan = plan_recurrence_change(series, TUESDAYS, now=timezone.now())
    apply_recurrence_plan(series, plan.hash, TUESDAYS, cancel_drift="all")
    return series, last_operation(series, "plan")


def revert_url(series: Any, operation: SeriesOperation) -> str:
    return change_url(series, f"history/{operation.pk}/revert")


def test_the_page_shows_the_plan_and_confirming_reverts(admin_client: Any) -> None:
    series = generated_series(name="Yoga")
    rows = rows_of(series)
    plan = plan_recurrence_change(series, TUESDAYS, now=timezone.now())
    apply_recurrence_plan(series, plan.hash, TUESDAYS, cancel_drift="all")
    operation = last_operation(series, "plan")

    page = admin_client.get(revert_url(series, operation))
    assert page.status_code == 200
    assert TEMPLATE in [template.name for template in page.templates]
    shown = page.context["plan"]
    assert len(page.context["restored"]) == len(rows)
    assert rows_of(series) != rows  # showing writes nothing

    done = admin_client.post(
        revert_url(series, operation), {"plan_hash": shown.hash, "_confirm": "1"}, follow=True
    )

    assert done.status_code == 200
    assert rows_of(series) == rows
    assert any("reverted" in text for text in texts(done))
    revert = SeriesOperation.objects.get(kind="revert")
    assert revert.reverts_id == operation.pk
    assert revert.face == "admin"


def test_a_refused_revert_says_why_on_the_history_page(admin_client: Any) -> None:
    series, operation = planned()
    shown = admin_client.get(revert_url(series, operation)).context["plan"]
    admin_client.post(revert_url(series, operation), {"plan_hash": shown.hash, "_confirm": "1"})

    again = admin_client.get(revert_url(series, operation), follow=True)

    assert again.redirect_chain[-1][0] == change_url(series, "history")
    assert any("reverted already" in text for text in texts(again))


def test_a_late_confirmation_shows_the_fresh_plan(admin_client: Any) -> None:
    series, operation = planned()
    shown = admin_client.get(revert_url(series, operation)).context["plan"]
    row = shown.rows[0]
    Seat.objects.filter(event_id=row.id).delete()
    Seat.objects.create(event_id=row.id, label="Front", quantity=5, booked=2)
    rows = rows_of(series)

    late = admin_client.post(
        revert_url(series, operation), {"plan_hash": shown.hash, "_confirm": "1"}
    )

    assert late.status_code == 200
    assert late.context["plan"].hash != shown.hash
    assert late.context["plan"].rows[0].bookings == 2
    assert rows_of(series) == rows
    assert not SeriesOperation.objects.filter(kind="revert").exists()


def test_the_history_offers_a_revert_for_what_can_be_undone(admin_client: Any) -> None:
    series, operation = planned()
    cancel_occurrence(series, rows_of(series)[-1][2])
    cancel = last_operation(series, "cancel")

    page = admin_client.get(change_url(series, "history"))
    offered = {entry.operation.pk: entry.revert_url for entry in page.context["operations"]}
    one = admin_client.get(change_url(series, f"history/{operation.pk}"))

    assert offered[operation.pk] == revert_url(series, operation)
    assert offered[cancel.pk] == ""  # a single cancellation is restored, not reverted
    assert one.context["revert_url"] == revert_url(series, operation)
    assert revert_url(series, operation).encode() in page.content


def test_a_viewer_is_offered_no_revert_and_may_not_open_one(
    client: Any, django_user_model: Any
) -> None:
    from tests.support.api import user_with

    viewer = user_with(django_user_model, "viewer", "view_eventseries")
    viewer.is_staff = True
    viewer.save()
    client.force_login(viewer)
    series, operation = planned()

    page = client.get(change_url(series, "history"))

    assert [entry.revert_url for entry in page.context["operations"]] == [""] * len(
        page.context["operations"]
    )
    assert client.get(revert_url(series, operation)).status_code == 403
