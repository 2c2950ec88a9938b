"""Extra dates (RFC 5545 RDATE) through the example project's API: who may add them,
a new series with them, a sold ticket on one keeps it."""

from __future__ import annotations

import datetime as dt

import pytest

from example_project.events.models import Event, TicketTier
from example_project.tests.api.conftest import (
    API,
    VIENNA,
    ClientFor,
    World,
    create_body,
    occurrences_of,
    stamp,
    tomorrow_evening,
    url,
)
from revel_recurring.models import EventSeries

pytestmark = pytest.mark.django_db


def two_days_later() -> dt.datetime:
    """An evening that is no weekly date of the series starting tomorrow."""
    return (tomorrow_evening() + dt.timedelta(days=2)).astimezone(VIENNA)


def test_a_new_series_with_an_extra_date_generates_it_and_a_sold_one_stays(
    world: World, client_for: ClientFor
) -> None:
    owner = client_for(world.a.owner)
    extra = two_days_later()
    body = create_body(world.a.organization, recurrence={"extra_dates": [extra.isoformat()]})

    created = owner.post(API, body, format="json")

    assert created.status_code == 201, created.json()
    assert created.json()["extra_dates"] == [stamp(extra)]
    series = EventSeries.objects.get(pk=created.json()["id"])
    [event] = [e for e in occurrences_of(series) if e.start == extra]
    assert event.name == "Morning Swim"
    TicketTier.objects.create(event=event, name="Paid", quantity=10, quantity_sold=3)

    removed = owner.post(url(series, "remove-date"), {"instant": stamp(extra)}, format="json")

    assert removed.status_code == 409, removed.json()
    assert f"{extra.day} {extra:%b %Y 18:30}" in removed.json()["detail"]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == [stamp(extra)]
    assert Event.objects.filter(pk=event.pk, status="open").exists()


def test_only_editors_add_dates_and_another_organisation_does_not_see_the_series(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    body = {"instant": two_days_later().isoformat()}

    assert client_for(world.a.member).post(url(series, "add-date"), body, "json").status_code == 403
    assert client_for(world.b.owner).post(url(series, "add-date"), body, "json").status_code == 404
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []

    added = client_for(world.a.staff).post(url(series, "add-date"), body, format="json")

    assert added.status_code == 200, added.json()
    assert added.json()["occurrence"]["start"] == stamp(two_days_later())
    assert added.json()["series"]["extra_dates"] == [stamp(two_days_later())]
