"""Scoping: the adapter decides who sees and runs a series; every route enforces it."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from example_project.events.models import Event
from example_project.tests.api.conftest import API, ClientFor, World, create_body, url
from revel_recurring.models import EventSeries

pytestmark = pytest.mark.django_db

READS = [
    ("get", ""),
    ("get", "drift"),
    ("get", "occurrences"),
    ("get", "preview"),
    ("get", "template"),
]
WRITES: list[tuple[str, str, dict[str, Any]]] = [
    ("patch", "", {"auto_publish": False}),
    ("delete", "", {}),
    ("post", "pause", {}),
    ("post", "resume", {}),
    ("post", "generate", {}),
    ("post", "cancel-stale", {}),
    ("post", "cancel-occurrence", {"occurrence": "2030-01-01T00:00:00Z"}),
    ("post", "restore-occurrence", {"occurrence": "2030-01-01T00:00:00Z"}),
    ("patch", "template", {"capacity": 3}),
    ("post", "recurrence-plan", {"recurrence": {"interval": 2}}),
    ("post", "recurrence-apply", {"recurrence": {"interval": 2}, "plan_hash": "0" * 80}),
    ("post", "split-plan", {"at": "2030-01-01T00:00:00Z"}),
    ("post", "split", {"at": "2030-01-01T00:00:00Z"}),
]


def call(client: APIClient, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    return getattr(client, method)(path, body or {}, format="json")


def snapshot() -> tuple[Any, ...]:
    return (
        list(EventSeries.objects.order_by("pk").values_list("pk", "is_active", "exdates")),
        list(Event.objects.order_by("pk").values_list("pk", "status", "capacity")),
    )


@pytest.mark.parametrize("role", ["owner", "staff"])
def test_runners_of_a_get_404_on_every_route_of_b_and_never_see_it(
    world: World, client_for: ClientFor, role: str
) -> None:
    client = client_for(getattr(world.a, role))
    listed = [row["id"] for row in client.get(API).json()["results"]]
    assert listed == [world.a.series.pk]
    before = snapshot()
    for method, action in READS:
        assert call(client, method, url(world.b.series, action)).status_code == 404, action
    for method, action, body in WRITES:
        response = call(client, method, url(world.b.series, action), body)
        assert response.status_code == 404, action
    assert snapshot() == before
    for method, action in READS:
        assert call(client, method, url(world.a.series, action)).status_code == 200, action


@pytest.mark.parametrize("who", ["member", "paused"])
def test_a_member_reads_with_200_and_every_write_is_a_403(
    world: World, client_for: ClientFor, who: str
) -> None:
    # A paused member is told about members-only dates, so reads them too (one policy).
    client = client_for(world.a.member if who == "member" else world.a.paused)
    assert [row["id"] for row in client.get(API).json()["results"]] == [world.a.series.pk]
    for method, action in READS:
        assert call(client, method, url(world.a.series, action)).status_code == 200, action
    before = snapshot()
    for method, action, body in WRITES:
        response = call(client, method, url(world.a.series, action), body)
        assert response.status_code == 403, action
    # Even a body that is invalid is refused for permission first.
    assert (
        call(client, "patch", url(world.a.series), {"generation_window_weeks": 0}).status_code
        == 403
    )
    assert call(client, "post", API, create_body(world.a.organization)).status_code == 403
    assert snapshot() == before


def test_strangers_see_nothing_of_a_members_only_series(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.stranger)
    assert client.get(API).json()["results"] == []
    for method, action in READS:
        assert call(client, method, url(world.a.series, action)).status_code == 404
    for method, action, body in WRITES:
        assert call(client, method, url(world.a.series, action), body).status_code == 404


def test_anonymous_is_refused_everywhere(world: World) -> None:
    client = APIClient()
    before = snapshot()
    assert client.get(API).status_code in (401, 403)
    assert call(client, "post", API, create_body(world.a.organization)).status_code in (401, 403)
    for method, action in READS:
        assert call(client, method, url(world.a.series, action)).status_code in (401, 403)
    for method, action, body in WRITES:
        assert call(client, method, url(world.a.series, action), body).status_code in (401, 403)
    assert snapshot() == before


def test_token_and_session_authentication_both_work(world: World) -> None:
    token = Token.objects.create(user=world.a.owner)
    with_token = APIClient(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert with_token.get(API).status_code == 200
    refused = APIClient(HTTP_AUTHORIZATION="Token wrong").get(API)
    # 403 rather than 401: SessionAuthentication comes first and sends no challenge.
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Invalid token."
    session = APIClient(enforce_csrf_checks=True)
    session.force_login(world.a.owner)
    assert session.get(API).status_code == 200
    # Session writes need the CSRF token, as Django requires of a browser.
    assert session.post(url(world.a.series, "pause")).status_code == 403
    assert EventSeries.objects.get(pk=world.a.series.pk).is_active
