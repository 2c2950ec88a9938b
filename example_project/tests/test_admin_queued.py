"""Queued admin actions of the example site stay inside the staff member's organisation."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from example_project.events.models import Event, Organization
from example_project.tests.conftest import MakeTemplate
from example_project.tests.test_admin_scoping import staff_login
from revel_recurring.models import EventSeries
from tests.support.queued import (
    CHANGELIST,
    FAN_OUT,
    Broker,
    broker,
    broker_down,
    every_request,
    queries_of,
    select_all,
)

__all__ = ["broker", "broker_down"]  # fixtures, used by name

pytestmark = pytest.mark.django_db

PERMISSIONS = ("view_eventseries", "change_eventseries", "delete_eventseries", "delete_event")


def texts(response: Any) -> list[str]:
    return [str(message) for message in response.context["messages"]]


@pytest.fixture
def staff_client(client: Client, django_user_model: Any, organization: Organization) -> Client:
    """Staff of the Runners, with every model permission of the series admin."""
    staff = django_user_model.objects.create_user("staff")
    organization.staff.add(staff)
    staff_login(client, staff, *PERMISSIONS)
    return client


def other_organisation(django_user_model: Any, slug: str) -> Organization:
    owner = django_user_model.objects.create_user(f"owner-{slug}")
    return Organization.objects.create(name=slug.title(), slug=slug, owner=owner)


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2)
def test_select_all_queues_only_the_series_of_the_organisations_the_user_runs(
    staff_client: Client,
    django_user_model: Any,
    make_template: MakeTemplate,
    broker: Broker,
) -> None:
    runs = [make_template(name=f"Run {n}", slug=f"run-{n}", tiers=0).series for n in range(3)]
    swimmers = other_organisation(django_user_model, "swimmers")
    swim = make_template(  # public: the staff member sees it, but may not change it
        organization=swimmers,
        name="Swim",
        slug="swim",
        tiers=0,
        visibility=Event.Visibility.PUBLIC,
    ).series
    rowers = other_organisation(django_user_model, "rowers")
    row = make_template(organization=rowers, name="Row", slug="row", tiers=0).series

    listed = staff_client.get(CHANGELIST)
    paused = staff_client.post(
        CHANGELIST, select_all("pause_action", [s.pk for s in runs]), follow=True
    )
    [fan_out] = broker.take()
    broker.apply(fan_out)
    broker.run()

    assert {s.pk for s in listed.context["cl"].result_list} == {*(s.pk for s in runs), swim.pk}
    assert "Skipped Swim: you may view but not change them; nothing done to them." in texts(paused)
    assert "3 series queued to be paused; this page shows when it has finished." in texts(paused)
    assert fan_out.args[:2] == ["revel_recurring.pause_series_chunk", [s.pk for s in runs]]
    active = dict(EventSeries.objects.values_list("pk", "is_active"))
    assert active == {**{s.pk: False for s in runs}, swim.pk: True, row.pk: True}

    deleted = staff_client.post(
        CHANGELIST, select_all("delete_selected", [runs[0].pk], post="yes"), follow=True
    )
    broker.run()

    assert "3 series queued for deletion" in texts(deleted)[-1]
    assert set(EventSeries.objects.values_list("pk", flat=True)) == {swim.pk, row.pk}


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2)
def test_the_scoped_requests_cost_the_same_for_5_and_40_series(
    staff_client: Client, make_template: MakeTemplate, broker: Broker
) -> None:
    made: list[EventSeries] = []
    counts = {}
    for size in (5, 40):
        made += [
            make_template(name=f"Run {n}", slug=f"run-{n}", tiers=0).series
            for n in range(len(made), size)
        ]
        shown = [series.pk for series in made]
        counts[size] = queries_of(staff_client, every_request(shown))
        assert [message.task for message in broker.take()] == [FAN_OUT] * 5
    assert counts[5] == counts[40]


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2)
@pytest.mark.parametrize(
    ("action", "label", "extra"),
    [
        ("pause_action", "Pause", {}),
        ("delete_selected", "Delete selected event series", {"post": "yes"}),
    ],
)
def test_with_the_broker_down_a_queued_action_names_what_was_not_queued_and_does_nothing(
    staff_client: Client,
    make_template: MakeTemplate,
    broker_down: str,
    action: str,
    label: str,
    extra: dict[str, Any],
) -> None:
    runs = [make_template(name=f"Run {n}", slug=f"run-{n}", tiers=0).series for n in range(3)]
    before = {
        series.pk: (series.is_active, Event.objects.filter(series=series).count())
        for series in runs
    }

    response = staff_client.post(CHANGELIST, select_all(action, [runs[0].pk], **extra), follow=True)

    assert response.status_code == 200
    assert texts(response) == [
        "Nothing was queued: the task queue could not be reached. "
        f"“{label}” was not started for 3 series: Run 0, Run 1, Run 2. Nothing was done "
        "to them; try again later."
    ]
    assert _states(EventSeries.objects.filter(pk__in=before)) == before


def _states(series_list: Any) -> dict[int, tuple[bool, int]]:
    """Whether each series generates, and how many events it has."""
    return {s.pk: (s.is_active, Event.objects.filter(series=s).count()) for s in series_list}
