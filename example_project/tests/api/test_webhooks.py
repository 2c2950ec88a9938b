"""Webhooks in the example project: an organisation's staff run its endpoints.

An endpoint of organisation A receives A's operations, never B's; B's endpoint
is a 404 to A's staff; a member runs no webhooks (403).
"""

from __future__ import annotations

from typing import Any

import pytest

from example_project.tests.api.conftest import ClientFor, World
from revel_recurring.models import WebhookDelivery
from revel_recurring.services.cancellation import cancel_occurrence
from tests.support.moves import rows_of
from tests.support.webhooks import receiver

pytestmark = pytest.mark.django_db

API = "/api/recurring/"


def test_an_organisations_endpoint_receives_its_operations_only(
    world: World, client_for: ClientFor, django_capture_on_commit_callbacks: Any
) -> None:
    with receiver() as server:
        mine = client_for(world.a.staff).post(
            f"{API}webhooks/", {"url": server.url + "/alpha"}, format="json"
        )
        theirs = client_for(world.b.owner).post(
            f"{API}webhooks/", {"url": server.url + "/beta"}, format="json"
        )
        assert mine.status_code == theirs.status_code == 201
        assert mine.json()["scope"] == f"organization:{world.a.organization.pk}"
        for side in (world.a, world.b):
            rows = rows_of(side.series)
            with django_capture_on_commit_callbacks(execute=True):
                cancel_occurrence(side.series, rows[1].recurrence_id, include_booked=True)
        paths = sorted(one.path for one in server.received)
    assert paths == ["/hook/alpha", "/hook/beta"]
    alpha = WebhookDelivery.objects.get(endpoint_id=mine.json()["id"])
    assert alpha.payload["data"]["series"]["id"] == world.a.series.pk
    api = client_for(world.a.staff)
    assert api.get(f"{API}webhooks/{theirs.json()['id']}/").status_code == 404
    assert [one["id"] for one in api.get(f"{API}webhooks/").json()["results"]] == [
        mine.json()["id"]
    ]


def test_a_member_runs_no_webhooks(world: World, client_for: ClientFor) -> None:
    assert client_for(world.a.member).get(f"{API}webhooks/").status_code == 403
