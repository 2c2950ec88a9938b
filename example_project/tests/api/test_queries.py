"""No N+1: a page of 30 costs the same queries as a page of 3."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from example_project.events.models import Event
from example_project.tests.api.conftest import (
    API,
    ClientFor,
    World,
    make_series,
    occurrences_of,
    url,
)
from revel_recurring.services.splits import split_series

pytestmark = pytest.mark.django_db


def queries(client: object, path: str, expected_rows: int) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)  # type: ignore[attr-defined]
    assert response.status_code == 200, response.json()
    assert len(response.json()["results"]) == expected_rows
    return len(captured)


def test_series_list_with_counts_costs_the_same_for_3_and_30(
    world: World, client_for: ClientFor
) -> None:
    for number in range(27):
        series = make_series(
            world.a.organization, name=f"Series {number:02}", generation_window_weeks=2
        )
        if number % 9 == 0:
            # Both halves of a split show a link to the other (split_from, continued_by).
            split_series(series, at=occurrences_of(series)[1].start)
    client = client_for(world.a.owner)
    small = queries(client, API + "?page_size=3", 3)
    large = queries(client, API + "?page_size=30", 30)
    assert small == large
    rows = client.get(API + "?page_size=30").json()["results"]
    assert all(row["occurrence_counts"]["total"] > 0 for row in rows)
    assert all(row["template"] is not None for row in rows)
    assert sum(row["split_from"] is not None for row in rows) == 3
    assert sum(row["continued_by"] is not None for row in rows) == 3


@pytest.mark.parametrize("since", [False, True])
def test_occurrences_cost_the_same_for_3_and_30(
    world: World, client_for: ClientFor, since: bool
) -> None:
    series = make_series(
        world.a.organization,
        name="Daily",
        rule={"frequency": "DAILY", "weekdays": []},
        generation_window_weeks=6,
    )
    events = list(Event.objects.filter(series=series, is_template=False).order_by("start"))
    for event in (events[1], events[10], events[20]):
        event.delete()  # tombstones take part in both modified_since pages
    client = client_for(world.a.owner)
    query = ""
    if since:
        moment = (timezone.now() - dt.timedelta(minutes=1)).astimezone(dt.UTC)
        query = f"&modified_since={moment:%Y-%m-%dT%H:%M:%SZ}"
    small = queries(client, url(series, "occurrences") + "?page_size=3" + query, 3)
    large = queries(client, url(series, "occurrences") + "?page_size=30" + query, 30)
    assert small == large
