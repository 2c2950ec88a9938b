"""The admin's forms on the studio host (UUID lessons, e-mail users, a scoping adapter).

A refused save comes back on the form with the input kept; the change form takes
one series lock (a rule change is confirmed on its plan page first); the
adapter, not ``is_superuser``, decides who may add.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Lesson, School, User
from tests.studio.conftest import PASSWORD, MakeSeries, next_weekday
from tests.support.forms import form_data, form_errors, save_confirmed, series_locks

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"
ADD = f"{CHANGELIST}add/"


@pytest.fixture
def admin(db: Any) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("owner@studio.example", PASSWORD))  # type: ignore[arg-type]
    return client


def add_data(source: Lesson, start: dt.datetime) -> dict[str, Any]:
    return {
        "name": "Lindy Hop",
        "is_active": "on",
        "generation_window_weeks": 4,
        "template_source": str(source.pk),
        "frequency": "WEEKLY",
        "interval": 1,
        "weekdays": ["2"],
        "dtstart_0": start.date().isoformat(),
        "dtstart_1": "18:30",
        "timezone": "Europe/Berlin",
    }


def test_a_refused_add_keeps_the_uuid_source_and_the_rule(
    admin: Client, school: School, settings: Any
) -> None:
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1
    start = next_weekday(2)
    source = Lesson.objects.create(school=school, title="Lindy Hop", room="Loft", begins=start)

    response = admin.post(ADD, add_data(source, start))

    assert response.status_code == 200
    errors = form_errors(response)
    assert list(errors) == ["template_source"]
    assert "Lindy Hop would write" in errors["template_source"][0]
    form = response.context["adminform"].form
    assert form["template_source"].value() == str(source.pk)
    assert form["weekdays"].value() == ["2"]
    assert form["dtstart"].value()[1] == "18:30"
    assert not EventSeries.objects.exists()
    assert Lesson.objects.get().series_id is None


def test_the_change_form_is_one_lock_and_a_refusal_keeps_the_old_name(
    admin: Client, make_series: MakeSeries, settings: Any
) -> None:
    series = make_series(name="Salsa")

    with CaptureQueriesContext(connection) as queries:
        saved = admin.post(
            f"{CHANGELIST}{series.pk}/change/",
            form_data(series, name="Friday salsa", is_active=""),
        )
    # Read now: the next request clears the connection's query log.
    locks = series_locks(queries.captured_queries)
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1
    series.refresh_from_db()
    # A rule change is confirmed on its plan page first; the service refuses then. Mondays
    # besides the Thursdays are new dates (Mondays alone would move the Thursdays).
    refused = save_confirmed(
        admin,
        f"{CHANGELIST}{series.pk}/change/",
        form_data(series, name="Monday salsa", is_active="on", weekdays=["0", "3"]),
    )

    assert saved.status_code == 302, form_errors(saved)
    assert locks == 1
    assert refused.status_code == 200
    assert "REVEL_RECURRING_MAX_GENERATION_BYTES" in form_errors(refused)["__all__"][0]
    assert refused.context["adminform"].form["name"].value() == "Monday salsa"
    series.refresh_from_db()
    assert (series.name, series.is_active) == ("Friday salsa", False)


def test_the_adapter_decides_who_may_add(school: School, teacher: User) -> None:
    # Both hold every model permission; only the teacher may create series (StudioAdapter).
    clerk = User.objects.create_user("clerk@studio.example", PASSWORD)
    permissions = Permission.objects.filter(content_type__app_label="revel_recurring")
    for user in (clerk, teacher):
        user.is_staff = True
        user.save(update_fields=["is_staff"])
        user.user_permissions.add(*permissions)
    clerk_client, teacher_client = Client(), Client()
    clerk_client.force_login(clerk)  # type: ignore[arg-type]
    teacher_client.force_login(teacher)  # type: ignore[arg-type]

    assert clerk_client.get(ADD).status_code == 403
    assert teacher_client.get(ADD).status_code == 200
