"""Change plans in the example project: tickets sold are the bookings a plan counts."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import override_settings

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


def weekday_of(stamp_text: str) -> int:
    return dt.datetime.fromisoformat(stamp_text).astimezone(VIENNA).weekday()


def apply_unbooked(
    client: Any, series: EventSeries, plan: dict[str, Any], recurrence: dict[str, Any]
) -> dict[str, Any]:
    """Apply ``plan`` (of ``recurrence``) with ``cancel_drift=unbooked``: the answer."""
    body = {"recurrence": recurrence, "plan_hash": plan["hash"], "cancel_drift": "unbooked"}
    applied = client.post(url(series, "recurrence-apply"), body, format="json")
    assert applied.status_code == 200, applied.json()
    return applied.json()  # type: ignore[no-any-return]


# Nobody told: a sold run moves only when ticked (with its people told it moves too).
@override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none")
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
    # Each run moves to the new rule's date of its week, when that one is still to come
    # and free (which ones are depends on the weekday the test runs); the new dates are
    # the rule's others, beside the sold runs among them.
    targets = {row["id"]: row["moves_to"] for row in plan["drift"]}
    weekdays = set(moved["weekdays"])
    assert {weekday_of(target) for target in targets.values() if target} <= weekdays
    assert {weekday_of(row["start"]) for row in plan["new"]} <= weekdays

    answer = apply_unbooked(client, series, plan, moved)

    sold_runs = (events[0].pk, events[2].pk)
    assert [row["id"] for row in answer["kept_booked"]] == list(sold_runs)
    free = [e.pk for e in events if e.pk not in sold_runs]
    assert answer["cancelled"] == [pk for pk in free if targets[pk] is None]
    assert sorted(answer["moved"]) == sorted(pk for pk in free if targets[pk])
    created = Event.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert sorted(stamp(event.start) for event in created) == [row["start"] for row in plan["new"]]
    statuses = dict(Event.objects.filter(series=series).values_list("pk", "status"))
    assert statuses[events[0].pk] == statuses[events[2].pk] == Event.Status.OPEN
    assert statuses[events[1].pk] == (
        Event.Status.CANCELLED if targets[events[1].pk] is None else Event.Status.OPEN
    )
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
    created = [row["start"] for row in applied.json()["created"]]
    assert sorted(created) == [row["start"] for row in fresh["new"]]
    # The cancelled run moved too (when it had a date to go to), and stays cancelled.
    assert Event.objects.get(pk=events[1].pk).status == Event.Status.CANCELLED


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


# Nobody told: a sold run moves only when ticked (with its people told it moves too).
@override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none")
def test_a_patch_moves_the_free_runs_and_names_sold_drift(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.staff)
    series, events, moved = twice_a_week(world)

    response = client.patch(url(series), {"recurrence": moved}, format="json")

    assert response.status_code == 200, response.json()
    answer = response.json()
    bookings = {row["id"]: row["bookings"] for row in answer["drift"]}
    assert (bookings[events[0].pk], bookings[events[2].pk]) == (5, 2)
    # The free runs moved to the new rule's dates of their weeks (same rows); the sold
    # ones, and any without a date to go to, are the drift named.
    drifted = [row["id"] for row in answer["drift"]]
    assert {events[0].pk, events[2].pk} <= set(drifted)
    weekdays = set(moved["weekdays"])
    moved_ids = [row["id"] for row in answer["moved"]]
    moved_runs = Event.objects.filter(pk__in=moved_ids)
    assert moved_runs.count() == len(moved_ids) > 0
    assert {event.start.astimezone(VIENNA).weekday() for event in moved_runs} <= weekdays
    assert not set(moved_ids) & set(drifted)
    assert sorted([*drifted, *moved_ids]) == sorted(event.pk for event in events)
    created = Event.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert {event.start.astimezone(VIENNA).weekday() for event in created} <= weekdays
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
    # Shown sold now, it moves (or, with no date to go to, is cancelled): ticked by "all".
    gone = "cancelled" if fresh["drift"][1]["moves_to"] is None else "moved"
    assert events[1].pk in applied.json()[gone]
