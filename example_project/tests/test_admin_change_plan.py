"""The change plan page on the example site: organisation staff move a run to Thursdays.

The tier with tickets sold marks its run booked and unticked; confirming keeps
it, cancels the others, creates the Thursdays at once; a stale plan writes
nothing; a rename saves directly.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client, override_settings

from example_project.events.models import Event, Organization, TicketTier
from example_project.tests.conftest import MakeTemplate
from example_project.tests.helpers import generated_from_now, staff_of
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from tests.support.forms import confirm_plan, drift_boxes, form_data, form_errors

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


@pytest.fixture
def staff(django_user_model: Any, organization: Organization) -> Any:
    return staff_of(django_user_model, organization, "staff")


@pytest.fixture
def runs(make_template: MakeTemplate) -> tuple[EventSeries, list[Event]]:
    """Tuesday runs generated from the admin's clock (16 weeks ahead); the second sold."""
    series = generated_from_now(make_template().series)
    rows = list(Event.objects.filter(series=series, is_template=False).order_by("start"))
    assert len(rows) >= 3
    TicketTier.objects.filter(event=rows[1]).update(quantity_sold=3)
    return series, rows


def states(rows: list[Event]) -> list[str]:
    found = dict(Event.objects.filter(pk__in=[r.pk for r in rows]).values_list("pk", "status"))
    return [found[row.pk] for row in rows]


# Nobody told: a sold run moves only when ticked (with its people told it moves too).
@override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none")
def test_staff_confirm_the_plan_and_the_sold_run_is_kept(
    client: Client, staff: Any, runs: tuple[EventSeries, list[Event]]
) -> None:
    series, rows = runs
    client.force_login(staff)
    url = f"{CHANGELIST}{series.pk}/change/"

    shown = client.post(url, form_data(series, name="Thursday run", weekdays=["3"]))

    assert shown.status_code == 200
    plan = shown.context["plan"]
    assert [row.id for row in plan.drift] == [row.pk for row in rows]
    assert [row.id for row in plan.booked_drift] == [rows[1].pk]
    assert drift_boxes(shown) == {str(row.pk): row != rows[1] for row in rows}
    assert "booked (3 bookings)" in shown.content.decode()

    response = confirm_plan(client, url, shown, follow=True)

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    # The ticked runs moved to their weeks' Thursdays (same rows); the sold one, left
    # unticked, stays on its Tuesday, and its Thursday is new beside it.
    assert states(rows) == [row.status for row in rows]
    after = {event.pk: event for event in Event.objects.filter(pk__in=[r.pk for r in rows])}
    assert {after[row.pk].start.weekday() for row in rows if row != rows[1]} == {3}
    assert after[rows[1].pk].start == rows[1].start
    new = [date.start for date in plan.new]
    assert [date.beside for date in plan.new if date.beside is not None] == [rows[1].pk]
    assert set(new) <= {row.instant for row in response.context["upcoming"]}
    messages = [str(message) for message in get_messages(response.wsgi_request)]
    moved = f"{len(rows) - 1} dates moved"
    assert any(moved in text and "1 new date" in text for text in messages), messages
    assert any("1 booked date kept where it was" in text for text in messages), messages
    series.refresh_from_db()
    assert series.name == "Thursday run"


def test_a_stale_plan_writes_nothing(
    client: Client, staff: Any, runs: tuple[EventSeries, list[Event]]
) -> None:
    series, rows = runs
    client.force_login(staff)
    url = f"{CHANGELIST}{series.pk}/change/"
    shown = client.post(url, form_data(series, weekdays=["3"]))
    cancel_occurrence(series, rows[0].start)

    response = confirm_plan(client, url, shown)

    assert response.status_code == 200
    assert response.context["outdated"]
    assert states(rows)[1:] == [row.status for row in rows[1:]]
    series.refresh_from_db()
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == [1]


def test_a_rename_saves_directly(
    client: Client, staff: Any, runs: tuple[EventSeries, list[Event]]
) -> None:
    series, _rows = runs
    client.force_login(staff)

    response = client.post(f"{CHANGELIST}{series.pk}/change/", form_data(series, name="Renamed"))

    assert response.status_code == 302, form_errors(response)
