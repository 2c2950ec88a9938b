"""Booked dates through the API: marked on every row, kept by cancel-stale unless
`include_booked`, refused one by one without it, named by date in every answer."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from example_project.events.models import Event, TicketTier
from example_project.tests.api.conftest import (
    VIENNA,
    ClientFor,
    World,
    make_series,
    occurrences_of,
    stamp,
    url,
)
from revel_recurring.models import EventSeries
from tests.support.drift import ended_before_its_dates

pytestmark = pytest.mark.django_db


def book(event: Event) -> None:
    TicketTier.objects.create(event=event, name="Paid", quantity=10, quantity_sold=2)


def display(event: Event) -> str:
    """The date as a person reads it, spelled out here independently of the app's helper."""
    local = event.start.astimezone(VIENNA)
    return f"{local:%a} {local.day} {local:%b %Y %H:%M} (Europe/Vienna)"


def drifted_series(world: World, client: Any) -> list[Event]:
    """World A's series ended before its dates (a PATCH): every occurrence drifts, with no
    date of the rule to move to (a PATCH to another weekday would move them)."""
    series = world.a.series
    before = occurrences_of(series)
    ended = ended_before_its_dates(series)
    body = {"recurrence": {"dtstart": ended["dtstart"].isoformat(), "count": 1}}
    response = client.patch(url(series), body, format="json")
    assert response.status_code == 200, response.json()
    assert [row["id"] for row in response.json()["drift"]] == [event.pk for event in before]
    return before


def test_cancel_stale_keeps_booked_dates_and_names_them(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    old = drifted_series(world, client)
    book(old[1])
    book(old[3])

    response = client.post(url(series, "cancel-stale"), {}, format="json")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["cancelled"] == [e.pk for e in old if e.pk not in (old[1].pk, old[3].pk)]
    assert body["kept_booked"] == [
        {"id": event.pk, "start": stamp(event.start), "display": display(event)}
        for event in (old[1], old[3])
    ]
    assert Event.objects.get(pk=old[1].pk).status == Event.Status.OPEN
    assert Event.objects.get(pk=old[3].pk).status == Event.Status.OPEN
    drift = client.get(url(series, "drift")).json()
    assert [(row["id"], row["has_bookings"]) for row in drift["occurrences"]] == [
        (old[1].pk, True),
        (old[3].pk, True),
    ]

    again = client.post(url(series, "cancel-stale"), {"include_booked": True}, format="json")

    assert again.status_code == 200, again.json()
    assert again.json()["cancelled"] == [old[1].pk, old[3].pk]
    assert again.json()["kept_booked"] == []
    assert Event.objects.get(pk=old[1].pk).status == Event.Status.CANCELLED


def test_cancel_stale_with_ids_keeps_a_booked_one_among_them(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    old = drifted_series(world, client)
    book(old[0])
    body = {"ids": [old[0].pk, old[2].pk], "include_booked": False}

    response = client.post(url(series, "cancel-stale"), body, format="json")

    assert response.json()["cancelled"] == [old[2].pk]
    assert [row["id"] for row in response.json()["kept_booked"]] == [old[0].pk]


@pytest.mark.parametrize("value", ["maybe", [], {"x": 1}, None])
def test_include_booked_must_be_a_boolean(world: World, client_for: ClientFor, value: Any) -> None:
    client, series = client_for(world.a.owner), world.a.series
    old = drifted_series(world, client)
    book(old[0])
    for action, extra in (
        ("cancel-stale", {}),
        ("cancel-occurrence", {"occurrence": old[0].start.isoformat()}),
    ):
        response = client.post(
            url(series, action), {**extra, "include_booked": value}, format="json"
        )
        assert response.status_code == 400, response.json()
        assert list(response.json()) == ["include_booked"]
    assert Event.objects.get(pk=old[0].pk).status == Event.Status.OPEN


def test_cancelling_one_booked_occurrence_needs_include_booked(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    booked = occurrences_of(series)[2]
    book(booked)
    body: dict[str, Any] = {"occurrence": booked.start.astimezone(VIENNA).isoformat()}

    refused = client.post(url(series, "cancel-occurrence"), body, format="json")

    assert refused.status_code == 409, refused.json()
    assert refused.json()["detail"].startswith(
        f"{display(booked)} of series '{series.name}' has bookings and was not cancelled"
    )
    assert "include_booked" in refused.json()["detail"]
    assert Event.objects.get(pk=booked.pk).status == Event.Status.OPEN
    assert EventSeries.objects.get(pk=series.pk).exdates == []

    done = client.post(
        url(series, "cancel-occurrence"), {**body, "include_booked": True}, format="json"
    )

    assert done.status_code == 200, done.json()
    assert done.json()["occurrence"]["id"] == booked.pk
    assert done.json()["occurrence"]["cancelled"] is True
    assert done.json()["occurrence"]["has_bookings"] is True
    assert Event.objects.get(pk=booked.pk).status == Event.Status.CANCELLED


def test_an_unbooked_occurrence_is_cancelled_without_the_flag(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    free = occurrences_of(series)[2]
    book(occurrences_of(series)[1])
    body = {"occurrence": free.start.isoformat()}
    response = client.post(url(series, "cancel-occurrence"), body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["occurrence"]["has_bookings"] is False


def test_restore_takes_no_include_booked(world: World, client_for: ClientFor) -> None:
    client, series = client_for(world.a.owner), world.a.series
    first = occurrences_of(series)[0]
    body = {"occurrence": first.start.isoformat(), "include_booked": True}
    response = client.post(url(series, "restore-occurrence"), body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == ["include_booked"]


def test_deleting_a_series_with_bookings_is_a_409_naming_the_dates(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    rows = occurrences_of(series)
    book(rows[0])
    book(rows[2])

    response = client.delete(url(series))

    assert response.status_code == 409
    assert response.json()["detail"] == (
        f"Series '{series.name}' cannot be deleted: {display(rows[0])}, {display(rows[2])} "
        "have bookings. Cancel or refund those bookings first, or pause the series instead."
    )
    assert EventSeries.objects.filter(pk=series.pk).exists()


def _daily(world: World, name: str, weeks: int) -> EventSeries:
    series: EventSeries = make_series(
        world.a.organization,
        name=name,
        rule={"frequency": "DAILY", "weekdays": []},
        generation_window_weeks=weeks,
    )
    return series


def test_delete_series_costs_a_bounded_number_of_queries(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.owner)
    counts = []
    for weeks in (4, 20):
        series = _daily(world, f"Daily {weeks}", weeks)
        assert len(occurrences_of(series)) >= 7 * weeks - 1
        with CaptureQueriesContext(connection) as captured:
            assert client.delete(url(series)).status_code == 204
        tiers = [q for q in captured.captured_queries if "events_tickettier" in q["sql"]]
        # The bookings are asked once (booked_among's DISTINCT); Django's delete
        # collector reads the tiers too, since tickets hang off them.
        assert len([q for q in tiers if q["sql"].startswith("SELECT DISTINCT")]) == 1
        counts.append(len(captured))
    # Only Django's delete batches (100 rows each) grow with the events.
    assert counts[1] - counts[0] <= 2
    year = _daily(world, "Daily year", 52)
    with CaptureQueriesContext(connection) as captured:
        assert client.delete(url(year)).status_code == 204
    # Was 382 before booked_among. The history's record of the deletion names each
    # row, in pages (SQLite's parameter limit cuts them smaller): left out here,
    # bounded by tests/default/history.
    pages = [q for q in captured.captured_queries if _records_rows(q["sql"])]
    assert len(captured) - len(pages) <= counts[0] + 4


def _records_rows(sql: str) -> bool:
    return sql.startswith('INSERT INTO "revel_recurring_operationrow"') or sql.startswith(
        "INSERT INTO `revel_recurring_operationrow`"
    )


def _rows(client: Any, path: str) -> tuple[int, list[dict[str, Any]]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, response.json()
    body = response.json()
    return len(captured), body.get("results", body.get("occurrences"))


@pytest.mark.parametrize("since", [False, True])
def test_occurrences_mark_booked_rows_in_one_query_per_page(
    world: World, client_for: ClientFor, since: bool
) -> None:
    client = client_for(world.a.owner)
    series = _daily(world, "Daily", 6)
    events = occurrences_of(series)
    booked = {events[1].pk, events[25].pk}
    for event in events:
        if event.pk in booked:
            book(event)
    query = ""
    if since:
        moment = events[0].created_at - dt.timedelta(minutes=1)
        query = f"&modified_since={stamp(moment)}"
    small, rows_small = _rows(client, url(series, "occurrences") + "?page_size=3" + query)
    large, rows_large = _rows(client, url(series, "occurrences") + "?page_size=30" + query)
    assert small == large
    assert {row["id"] for row in rows_large if row["has_bookings"]} == booked
    assert [row["has_bookings"] for row in rows_small] == [False, True, False]


def test_drift_marks_booked_rows_in_one_query(world: World, client_for: ClientFor) -> None:
    client = client_for(world.a.owner)
    counts = []
    for weeks in (1, 8):
        series = _daily(world, f"Drift {weeks}", weeks)
        events = occurrences_of(series)
        book(events[-1])
        # The rule ends before the dates: all drift (a quarter of an hour later, the free
        # ones would move to their days' new time).
        ended = ended_before_its_dates(series)
        body = {"recurrence": {"dtstart": ended["dtstart"].isoformat(), "count": 1}}
        patch = client.patch(url(series), body, format="json")
        assert patch.status_code == 200, patch.json()
        count, rows = _rows(client, url(series, "drift"))
        assert len(rows) == len(events)
        assert [row["id"] for row in rows if row["has_bookings"]] == [events[-1].pk]
        counts.append(count)
    assert counts[0] == counts[1]
