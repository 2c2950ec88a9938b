"""The series admin of the example site: organisation staff, the ExampleAdapter, one form path.

A staff member of the organisation (no superuser) saves through one service call,
sees a refusal on the form with the input kept, and gets the same reason from
*Generate now* as from the API's ``generate/``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from example_project.events.models import Organization
from example_project.tests.conftest import MakeTemplate
from example_project.tests.helpers import staff_of
from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import pause_series
from tests.support.forms import form_data, form_errors, save_confirmed, series_locks

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


@pytest.fixture
def staff(django_user_model: Any, organization: Organization) -> Any:
    return staff_of(django_user_model, organization, "staff")


def test_staff_save_the_change_form_under_one_lock_and_see_a_refusal_on_it(
    client: Client, staff: Any, make_template: MakeTemplate, settings: Any
) -> None:
    series = make_template().series
    client.force_login(staff)

    with CaptureQueriesContext(connection) as queries:
        saved = client.post(
            f"{CHANGELIST}{series.pk}/change/", form_data(series, name="Thursday run")
        )
    locks = series_locks(queries.captured_queries)
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1
    series.refresh_from_db()
    # A rule change is confirmed on its plan page first; the service refuses then.
    refused = save_confirmed(
        client,
        f"{CHANGELIST}{series.pk}/change/",
        form_data(series, name="Friday run", weekdays=["4"], generation_window_weeks=12),
    )

    assert saved.status_code == 302, form_errors(saved)
    assert locks == 1
    assert refused.status_code == 200
    assert "would write" in form_errors(refused)["__all__"][0]
    assert refused.context["adminform"].form["weekdays"].value() == ["4"]
    series.refresh_from_db()
    assert series.name == "Thursday run"
    assert series.generation_window_weeks == 8


def test_a_paused_series_gets_the_same_reason_from_the_admin_and_the_api(
    client: Client, staff: Any, make_template: MakeTemplate
) -> None:
    series: EventSeries = make_template().series
    pause_series(series)
    client.force_login(staff)
    api = APIClient()
    api.force_authenticate(staff)

    button = client.post(f"{CHANGELIST}{series.pk}/generate/", follow=True)
    answer = api.post(f"/api/recurring/series/{series.pk}/generate/", {}, format="json")

    warnings = [str(m) for m in get_messages(button.wsgi_request) if m.level_tag == "warning"]
    assert answer.status_code == 409
    assert warnings == [answer.json()["detail"]]
    assert "Evening Run is paused" in warnings[0]
