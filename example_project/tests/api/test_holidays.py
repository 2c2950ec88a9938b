"""Holiday rules through the example project's API: a New York club moves its runs off
public holidays, sells tickets for a moved date, then plans to skip holidays instead;
who may change the calendar; the schema documents it."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.test import Client

from example_project.events.models import Event, TicketTier
from example_project.tests.api.conftest import API, ClientFor, World, create_body, stamp, url
from revel_recurring.models import EventSeries
from tests.support.holiday_dates import WINDOW_WEEKS, at, holiday_name, next_holiday

pytestmark = pytest.mark.django_db

NEW_YORK = ZoneInfo("America/New_York")


def runs_on_the_next_holiday(world: World, client_for: ClientFor) -> tuple[EventSeries, dt.date]:
    """A weekly run created over the API, New York holidays moved to the next day."""
    holiday = next_holiday("US", NEW_YORK, subdivision="NY")
    first = at(holiday - dt.timedelta(weeks=1), NEW_YORK, 18, 30)
    body = create_body(
        world.a.organization,
        recurrence={
            "weekdays": [first.weekday()],
            "dtstart": first.isoformat(),
            "timezone": "America/New_York",
        },
        template={"end": (first + dt.timedelta(hours=1)).isoformat()},
        holidays={"country": "US", "subdivision": "ny", "policy": "shift"},
        generation_window_weeks=WINDOW_WEEKS,
    )
    created = client_for(world.a.owner).post(API, body, format="json")
    assert created.status_code == 201, created.json()
    holidays = created.json()["holidays"]
    assert (holidays["country"], holidays["subdivision"], holidays["policy"]) == (
        "US",
        "NY",
        "shift",
    )
    return EventSeries.objects.get(pk=created.json()["id"]), holiday


def test_a_moved_run_with_tickets_sold_stays_when_holidays_are_skipped_instead(
    world: World, client_for: ClientFor
) -> None:
    owner = client_for(world.a.owner)
    series, holiday = runs_on_the_next_holiday(world, client_for)
    slot = at(holiday, NEW_YORK, 18, 30)
    name = holiday_name("US", holiday, "en_US", subdivision="NY")

    listed = owner.get(url(series, "occurrences")).json()["results"]

    moved = next(row for row in listed if row["recurrence_id"] == stamp(slot))
    assert moved["start"] == stamp(slot + dt.timedelta(days=1))
    assert (moved["holiday"], moved["shifted_from"]) == (name, stamp(slot))
    event = Event.objects.get(pk=moved["id"])
    TicketTier.objects.create(event=event, name="Runner", quantity=30, quantity_sold=4)

    change = {"holidays": {"policy": "skip"}}
    plan = owner.post(url(series, "recurrence-plan"), change, format="json").json()

    # Every moved run no longer fits (later holidays may have moved some too).
    drift = {row["id"]: row for row in plan["drift"]}
    assert (drift[event.pk]["booked"], drift[event.pk]["slot"]) == (True, stamp(slot))
    assert all(not row["booked"] for pk, row in drift.items() if pk != event.pk)
    skipped = {row["start"]: row for row in plan["excluded"] if row["reason"] == "holiday"}
    assert skipped[stamp(slot)]["holiday"] == name
    applied = owner.post(
        url(series, "recurrence-apply"),
        {**change, "plan_hash": plan["hash"], "cancel_drift": "unbooked"},
        format="json",
    )
    assert applied.status_code == 200, applied.json()
    assert event.pk not in applied.json()["cancelled"]
    assert [row["id"] for row in applied.json()["kept_booked"]] == [event.pk]
    assert applied.json()["series"]["holidays"]["policy"] == "skip"
    assert Event.objects.get(pk=event.pk).status == Event.Status.OPEN


def test_only_editors_change_the_holiday_calendar(world: World, client_for: ClientFor) -> None:
    series = world.a.series
    change = {"holidays": {"country": "AT"}}

    member = client_for(world.a.member).patch(url(series), change, format="json")
    stranger = client_for(world.b.staff).patch(url(series), change, format="json")
    staff = client_for(world.a.staff).patch(url(series), change, format="json")

    assert (member.status_code, stranger.status_code) == (403, 404)
    assert staff.status_code == 200, staff.json()
    assert EventSeries.objects.get(pk=series.pk).holiday_country == "AT"


def test_the_schema_documents_the_holiday_settings_and_the_holiday_of_each_date() -> None:
    schema: dict[str, Any] = Client().get("/api/recurring/schema/?format=json").json()
    components = schema["components"]["schemas"]

    def properties(name: str) -> dict[str, Any]:
        return components[name]["properties"]  # type: ignore[no-any-return]

    shown = properties("Holidays")
    assert set(shown) == {"country", "subdivision", "categories", "policy", "data_version", "kept"}
    assert "holidays" in properties("Series")
    written = components["HolidaySettingsRequest"]
    assert set(written["properties"]) == {"country", "subdivision", "categories", "policy"}
    assert written["additionalProperties"] is False
    for body in (
        "SeriesCreateRequest",
        "PatchedSeriesUpdateRequest",
        "RecurrencePlanRequestRequest",
    ):
        assert "holidays" in properties(body), body
    assert {"holiday", "starts_at", "excluded_because"} <= set(properties("PreviewSlot"))
    assert {"holiday", "shifted_from"} <= set(properties("Occurrence"))
    assert {"holiday", "shifted_from"} <= set(properties("PlannedDate"))
