""" "This and following" over the API on the example project: ticket tiers follow the
moved runs, and the continuation belongs to the same organisation."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import override_settings

from example_project.events.models import Event, TicketTier
from example_project.tests.api.conftest import (
    API,
    VIENNA,
    ClientFor,
    World,
    make_series,
    occurrences_of,
    url,
)
from revel_recurring.models import EventSeries

pytestmark = pytest.mark.django_db


def utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def with_tiers(series: EventSeries) -> list[Event]:
    """A Standard tier on the template and on every run; the runs in start order."""
    template = Event.objects.get(series=series, is_template=True)
    TicketTier.objects.create(event=template, name="Standard", quantity=30)
    runs = occurrences_of(series)
    Event.clone_related(template, runs)
    return runs


def split_body(runs: list[Event]) -> dict[str, Any]:
    two_days_later = (runs[2].start.astimezone(VIENNA).weekday() + 2) % 7
    return {
        "at": utc(runs[2].start),
        "recurrence": {"weekdays": [two_days_later]},
        "template": {"capacity": 40},
        "name": "Evening Run (later in the week)",
    }


# Nobody told: a sold run moves only when ticked (with its people told it moves too).
@override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none")
def test_sold_tickets_stay_on_their_run_and_new_runs_get_the_tiers(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    runs = with_tiers(series)
    sold = runs[3]
    TicketTier.objects.filter(event=sold).update(quantity_sold=12)
    client = client_for(world.a.staff)
    body = split_body(runs)
    plan = client.post(url(series, "split-plan"), body, format="json").json()
    assert {row["id"]: row["bookings"] for row in plan["drift"] if row["booked"]} == {sold.pk: 12}

    response = client.post(url(series, "split"), {**body, "plan_hash": plan["hash"]}, format="json")

    assert response.status_code == 201, response.json()
    answer = response.json()
    continuation = EventSeries.objects.get(pk=answer["continuation"]["id"])
    assert answer["moved"] == [run.pk for run in runs[2:]]
    moved = Event.objects.get(pk=sold.pk)
    assert moved.series_id == continuation.pk
    assert TicketTier.objects.get(event=moved).quantity_sold == 12
    # A drifted run keeps the old capacity; the new runs have the new one and the tiers.
    assert moved.capacity == 20
    created = Event.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert created.count() == len(plan["new"]) > 0
    assert {event.capacity for event in created} == {40}
    assert all(
        TicketTier.objects.filter(event=event, quantity_sold=0).exists() for event in created
    )
    template = Event.objects.get(series=continuation, is_template=True)
    assert template.organization_id == world.a.organization.pk
    assert template.capacity == 40


def test_whoever_reads_the_original_reads_the_continuation_and_nobody_else(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    runs = occurrences_of(series)
    split = client_for(world.a.owner).post(
        url(series, "split"), {"at": utc(runs[2].start)}, format="json"
    )
    assert split.status_code == 201, split.json()
    continuation = split.json()["continuation"]["id"]

    for reader in (world.a.owner, world.a.staff, world.a.member, world.a.paused):
        client = client_for(reader)
        listed = [row["id"] for row in client.get(API).json()["results"]]
        assert sorted(listed) == sorted([series.pk, continuation]), reader
        detail = client.get(url(continuation))
        assert detail.status_code == 200, reader
        assert detail.json()["split_from"]["id"] == series.pk
    for outsider in (world.b.owner, world.b.staff, world.stranger):
        client = client_for(outsider)
        assert continuation not in [row["id"] for row in client.get(API).json()["results"]]
        assert client.get(url(continuation)).status_code == 404, outsider
    # Staff of the organisation run it; its members read it only.
    assert client_for(world.a.staff).post(url(continuation, "pause")).status_code == 200
    assert client_for(world.a.member).post(url(continuation, "resume")).status_code == 403


def test_a_run_edited_after_the_plan_outdates_it_and_the_409_counts_the_tickets(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    runs = with_tiers(series)
    TicketTier.objects.filter(event=runs[3]).update(quantity_sold=2)
    client = client_for(world.a.staff)
    body = split_body(runs)
    plan = client.post(url(series, "split-plan"), body, format="json").json()
    # A ticket sold since is no reason to refuse (a split cancels nothing); an edit is.
    TicketTier.objects.filter(event=runs[4]).update(quantity_sold=1)
    edited = Event.objects.get(pk=runs[5].pk)
    edited.capacity = 25
    edited.save()

    response = client.post(url(series, "split"), {**body, "plan_hash": plan["hash"]}, format="json")

    assert response.status_code == 409, response.json()
    fresh = response.json()["plan"]
    assert fresh["hash"] != plan["hash"]
    assert {row["id"]: row["bookings"] for row in fresh["drift"] if row["booked"]} == {
        runs[3].pk: 2,
        runs[4].pk: 1,
    }
    assert [row["is_modified"] for row in fresh["drift"]][3] is True
    assert not EventSeries.objects.filter(split_from=series).exists()
    assert set(
        Event.objects.filter(pk__in=[r.pk for r in runs]).values_list("series", flat=True)
    ) == {series.pk}


def test_only_propagatable_fields_change_at_a_split(world: World, client_for: ClientFor) -> None:
    series = world.a.series
    runs = occurrences_of(series)
    client = client_for(world.a.staff)
    body = {"at": utc(runs[2].start), "template": {"organization": world.b.organization.pk}}

    response = client.post(url(series, "split"), body, format="json")

    assert response.status_code == 400, response.json()
    assert list(response.json()) == ["template"]
    assert list(response.json()["template"]) == ["organization"]
    assert not EventSeries.objects.filter(split_from=series).exists()


def test_the_hosts_validation_of_the_new_template_is_a_400_under_template(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    runs = occurrences_of(series)
    client = client_for(world.a.staff)
    # A latitude without a longitude: refused by the host's Event.clean(), in the service.
    body = {"at": utc(runs[2].start), "template": {"latitude": "48.2"}}

    for action in ("split-plan", "split"):
        response = client.post(url(series, action), body, format="json")

        assert response.status_code == 400, response.json()
        assert response.json() == {
            "template": {"longitude": ["Give both latitude and longitude, or neither."]}
        }
    assert not EventSeries.objects.filter(split_from=series).exists()


def test_split_at_every_run_from_the_last_backwards_is_accepted(
    world: World, client_for: ClientFor
) -> None:
    series = make_series(world.a.organization, name="Five runs", rule={"count": 5})
    runs = occurrences_of(series)
    assert len(runs) == 5
    client = client_for(world.a.staff)
    for run in reversed(runs[1:]):
        response = client.post(url(series, "split"), {"at": utc(run.start)}, format="json")
        assert response.status_code == 201, response.json()
        assert response.json()["moved"] == [run.pk]
        assert response.json()["continuation"]["recurrence"]["count"] == 1
    assert EventSeries.objects.filter(split_from__isnull=False).count() == 4
