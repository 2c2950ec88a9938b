"""Reverting in the studio admin: UUID lessons put back, a teacher of another school kept out."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from revel_recurring.models import SeriesOperation
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from tests.hosts.studio.models import School, User
from tests.studio.admin.test_admin import admin
from tests.studio.conftest import PASSWORD, MakeSeries
from tests.support.revert import last_operation, rows_of

__all__ = ["admin"]  # the fixture, used by name

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/revel_recurring/eventseries/"
FRIDAYS = {"weekdays": [4]}


def test_a_plan_reverted_in_the_admin_puts_the_lessons_back(
    admin: Client, make_series: MakeSeries
) -> None:
    series = make_series()
    rows = rows_of(series)
    plan = plan_recurrence_change(series, FRIDAYS)
    apply_recurrence_plan(series, plan.hash, FRIDAYS, cancel_drift="all", notify="none")
    operation = last_operation(series, "plan")
    url = f"{CHANGELIST}{series.pk}/history/{operation.pk}/revert/"

    page = admin.get(url)
    assert page.status_code == 200
    assert {row.id for row in page.context["restored"]} == {row[0] for row in rows}
    done = admin.post(url, {"plan_hash": page.context["plan"].hash, "_confirm": "1"})

    assert done.status_code == 302
    assert rows_of(series) == rows
    assert SeriesOperation.objects.get(kind="revert").reverts_id == operation.pk


def test_a_teacher_of_another_school_cannot_open_a_revert(make_series: MakeSeries, db: Any) -> None:
    series = make_series()
    plan = plan_recurrence_change(series, FRIDAYS)
    apply_recurrence_plan(series, plan.hash, FRIDAYS, notify="none")
    operation = last_operation(series, "plan")
    ballet = School.objects.create(name="Ballet", slug="ballet")
    stranger = User.objects.create_user("ballet@studio.example", PASSWORD, is_staff=True)
    ballet.teachers.add(stranger)
    client = Client()
    client.force_login(stranger)  # type: ignore[arg-type]

    answer = client.get(f"{CHANGELIST}{series.pk}/history/{operation.pk}/revert/")

    assert answer.status_code in {403, 404}
    assert not SeriesOperation.objects.filter(kind="revert").exists()
