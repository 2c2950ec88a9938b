"""Change plans in the example project: tickets sold are the bookings a plan counts."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from example_project.events.models import Event, TicketTier
from example_project.tests.api.conftest import (
    VIENNA,
    ClientFor,
    World,
    make_series,
    occurrences_of,
    stamp,
    tomorrow_evening,
    url,
)
from revel_recurring.models import EventSeries

pytestmark = pytest.mark.django_db


def twice_a_week(world: World) -> tuple[EventSeries, list[Event], dict[str, Any]]:
    """Two evenings a week (tomorrow's weekday and two days later), tickets sold on two
    dates; and the change that moves both evenings one day back."""
    first = tomorrow_evening().weekday()
    series = make_series(
        world.a.organization,
        name="Twice",
        rule={"weekdays": sorted({first, (first + 2) % 7})},
        generation_window_weeks=3,
    )
    events = occurrences_of(series)
    TicketTier.objects.create(event=events[0], name="Early", quantity=10, quantity_sold=4)
    TicketTier.objects.create(event=events[0], name="Late", quantity=10, quantity_sold=1)
    TicketTier.objects.create(event=events[2], name="Early", quantity=10, quantity_sold=2)
    moved = {"weekdays": sorted({(first + 6) % 7, (first + 1) % 7})}
    return series, events, moved


def apply_unbooked(
    client: Any, series: EventSeries, plan: dict[str, Any], recurrence: dict[str, Any]
) -> dict[str, Any]:
    """Apply ``plan`` (of ``recurrence``) with ``cancel_drift=unbooked``: the answer."""
    body = {"recurrence": recurrence, "plan_hash": plan["hash"], "cancel_drift": "unbooked"}
    applied = client.post(url(series, "recurrence-apply"), body, format="json")
    assert applied.status_code == 200, applied.json()
    return applied.json()  # type: ignore[no-any-return]


def test_plan_then_apply_unbooked_with_ticket_counts(world: World, client_for: ClientFor) -> None:
    client = client_for(world.a.staff)
    series, events, moved = twice_a_week(world)

    planned = client.post(url(series, "recurrence-plan"), {"recurrence": moved}, format="json")

    assert planned.status_code == 200, planned.json()
    plan = planned.json()
    sold = Event.count_bookings_among(events)
    assert [row["id"] for row in plan["drift"]] == [event.pk for event in events]
    assert [row["bookings"] for row in plan["drift"]] == [sold.get(e.pk, 0) for e in events]
    assert [row["bookings"] for row in plan["drift"]][:3] == [5, 0, 2]
    assert {
        dt.datetime.fromisoformat(row["local"]).astimezone(VIENNA).weekday() for row in plan["new"]
    } == set(moved["weekdays"])

    answer = apply_unbooked(client, series, plan, moved)

    assert [row["id"] for row in answer["kept_booked"]] == [events[0].pk, events[2].pk]
    assert answer["cancelled"] == [e.pk for e in events if e.pk not in (events[0].pk, events[2].pk)]
    created = Event.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert sorted(stamp(event.start) for event in created) == [row["start"] for row in plan["new"]]
    statuses = dict(Event.objects.filter(series=series).values_list("pk", "status"))
    assert statuses[events[0].pk] == statuses[events[2].pk] == Event.Status.OPEN
    assert statuses[events[1].pk] == Event.Status.CANCELLED
    assert answer["series"]["recurrence"]["weekdays"] == moved["weekdays"]


def test_a_cancel_through_the_api_outdates_the_plan_and_its_fresh_hash_applies(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.owner)
    series, events, moved = twice_a_week(world)
    plan = client.post(url(series, "recurrence-plan"), {"recurrence": moved}, format="json").json()
    cancelled = client.post(
        url(series, "cancel-occurrence"), {"occurrence": stamp(events[1].start)}, format="json"
    )
    assert cancelled.status_code == 200, cancelled.json()

    outdated = client.post(
        url(series, "recurrence-apply"),
        {"recurrence": moved, "plan_hash": plan["hash"], "cancel_drift": "all"},
        format="json",
    )

    assert outdated.status_code == 409, outdated.json()
    assert outdated.json()["detail"]
    fresh = outdated.json()["plan"]
    assert [row["id"] for row in fresh["drift"]] == [e.pk for e in events if e != events[1]]
    # Nothing was written: the booked dates are still open, the rule unchanged.
    assert Event.objects.get(pk=events[0].pk).status == Event.Status.OPEN
    assert EventSeries.objects.get(pk=series.pk).recurrence_rule.weekdays != moved["weekdays"]

    applied = client.post(
        url(series, "recurrence-apply"),
        {"recurrence": moved, "plan_hash": fresh["hash"]},
        format="json",
    )

    assert applied.status_code == 200, applied.json()
    assert applied.json()["cancelled"] == []
    assert len(applied.json()["created"]) == len(fresh["new"]) > 0


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"recurrence": {"weekdays": [1]}}, {"hash"}),
        ({"plan_hash": "0" * 65}, {"plan_hash"}),
        ({"plan_hash": "0" * 80, "cancel_drift": "booked"}, {"cancel_drift"}),
        ({"plan_hash": "0" * 80, "recurrence": {"weekdays": [9]}}, {"recurrence"}),
        ({"plan_hash": "0" * 80, "recurrence": {"timezone": "Nowhere/Town"}}, {"recurrence"}),
    ],
)
def test_bad_apply_bodies_are_400s_naming_the_field(
    world: World, client_for: ClientFor, body: dict[str, Any], expected: set[str]
) -> None:
    client = client_for(world.a.owner)

    response = client.post(url(world.a.series, "recurrence-apply"), body, format="json")

    assert response.status_code == 400, response.json()
    assert set(response.json()) == expected


def test_a_patch_generates_the_new_dates_and_names_sold_drift(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.staff)
    series, events, moved = twice_a_week(world)

    response = client.patch(url(series), {"recurrence": moved}, format="json")

    assert response.status_code == 200, response.json()
    answer = response.json()
    assert [(row["id"], row["bookings"]) for row in answer["drift"]][:3] == [
        (events[0].pk, 5),
        (events[1].pk, 0),
        (events[2].pk, 2),
    ]
    assert [row["id"] for row in answer["drift"]] == [event.pk for event in events]
    created = Event.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert created.count() == len(answer["created"]) > 0
    assert {event.start.astimezone(VIENNA).weekday() for event in created} == set(moved["weekdays"])
    assert not Event.objects.filter(series=series, status=Event.Status.CANCELLED).exists()


def test_extra_dates_through_the_plan_a_sold_one_left_out_is_kept_and_named(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.staff)
    series, _events, _moved = twice_a_week(world)
    first = tomorrow_evening()
    # Evenings the rule does not have (the day before its first, after its first),
    # all within its three weeks.
    sold, free, added = (first + dt.timedelta(days=days) for days in (6, 13, 8))
    for instant in (sold, free):
        added_now = client.post(url(series, "add-date"), {"instant": stamp(instant)}, format="json")
        assert added_now.status_code == 200, added_now.json()
    sold_event = Event.objects.get(series=series, start=sold)
    TicketTier.objects.create(event=sold_event, name="Early", quantity=10, quantity_sold=6)
    free_event = Event.objects.get(series=series, start=free)
    recurrence = {"extra_dates": [added.isoformat()]}

    planned = client.post(url(series, "recurrence-plan"), {"recurrence": recurrence}, format="json")

    assert planned.status_code == 200, planned.json()
    plan = planned.json()
    assert plan["changed"] == ["extra_dates"]
    assert [(row["id"], row["bookings"]) for row in plan["drift"]] == [
        (sold_event.pk, 6),
        (free_event.pk, 0),
    ]
    assert [row["start"] for row in plan["new"]] == [stamp(added)]
    answer = apply_unbooked(client, series, plan, recurrence)
    assert answer["cancelled"] == [free_event.pk]
    assert [row["id"] for row in answer["kept_booked"]] == [sold_event.pk]
    assert [row["start"] for row in answer["created"]] == [stamp(added)]
    assert answer["series"]["extra_dates"] == [stamp(added)]
    statuses = dict(Event.objects.filter(series=series).values_list("pk", "status"))
    assert statuses[sold_event.pk] == Event.Status.OPEN
    assert statuses[free_event.pk] == Event.Status.CANCELLED


def test_a_ticket_sold_after_the_plan_makes_apply_all_a_409_and_the_run_stays_open(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.staff)
    series, events, moved = twice_a_week(world)
    plan = client.post(url(series, "recurrence-plan"), {"recurrence": moved}, format="json").json()
    assert plan["drift"][1]["bookings"] == 0
    TicketTier.objects.create(event=events[1], name="Door", quantity=10, quantity_sold=1)
    body = {"recurrence": moved, "plan_hash": plan["hash"], "cancel_drift": "all"}

    outdated = client.post(url(series, "recurrence-apply"), body, format="json")

    assert outdated.status_code == 409, outdated.json()
    assert outdated.json()["plan"]["drift"][1]["bookings"] == 1
    assert Event.objects.get(pk=events[1].pk).status == Event.Status.OPEN
    # Another ticket on a run the plan showed sold changes nothing the person saw.
    TicketTier.objects.filter(event=events[0], name="Late").update(quantity_sold=3)
    fresh = outdated.json()["plan"]
    applied = client.post(
        url(series, "recurrence-apply"), {**body, "plan_hash": fresh["hash"]}, format="json"
    )
    assert applied.status_code == 200, applied.json()
    assert events[1].pk in applied.json()["cancelled"]
