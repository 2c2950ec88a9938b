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
from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.validators import EXTRA_DATES_MAX

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


def test_a_series_at_the_extra_date_limit_is_patched_back_as_read_and_takes_no_more(
    world: World, client_for: ClientFor
) -> None:
    owner = client_for(world.a.owner)
    created = owner.post(API, create_body(world.a.organization), format="json")
    assert created.status_code == 201, created.json()
    series = EventSeries.objects.get(pk=created.json()["id"])
    first = two_days_later()
    series.extra_dates = rules.normalize_exdates(
        [first + dt.timedelta(weeks=week) for week in range(EXTRA_DATES_MAX)]
    )
    series.save(update_fields=["extra_dates"])
    read = owner.get(url(series)).json()

    back = owner.patch(url(series), read, format="json")
    one_more = stamp(first + dt.timedelta(days=1))
    added = owner.post(url(series, "add-date"), {"instant": one_more}, format="json")
    planned = owner.post(
        url(series, "recurrence-plan"),
        {"recurrence": {"extra_dates": [*read["extra_dates"], one_more]}},
        format="json",
    )

    assert back.status_code == 200, back.json()
    assert back.json()["extra_dates"] == read["extra_dates"]
    assert added.status_code == 400, added.json()
    assert planned.status_code == 400, planned.json()
    assert list(planned.json()["recurrence"]) == ["extra_dates"]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == read["extra_dates"]
