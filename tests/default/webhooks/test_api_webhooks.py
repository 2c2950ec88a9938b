"""``webhooks/`` and ``webhook-deliveries/`` on the real URLconf: CRUD, the secret once, 400s."""

from __future__ import annotations

from typing import Any

import pytest

from revel_recurring.models import WebhookDelivery, WebhookEndpoint
from revel_recurring.services.cancellation import cancel_occurrence
from tests.support.api import client, user_with
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.people import BookPerson
from tests.support.webhooks import receiver

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]

API = "/api/recurring/"


@pytest.fixture
def organiser(django_user_model: Any) -> Any:
    return user_with(django_user_model, "organiser", "change_eventseries", "view_eventseries")


def test_registering_answers_the_secret_once_and_never_again(organiser: Any) -> None:
    api = client(organiser)
    created = api.post(
        f"{API}webhooks/",
        {"url": "https://crm.example/hook", "kinds": ["plan", "cancel"], "description": "CRM"},
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    endpoint = WebhookEndpoint.objects.get()
    assert body["secret"] == endpoint.secret
    assert body["secret"].startswith("whsec_")
    assert body["kinds"] == ["cancel", "plan"]
    assert body["scope"] == ""
    assert endpoint.created_by == str(organiser.pk)
    read = api.get(f"{API}webhooks/{endpoint.pk}/").json()
    assert "secret" not in read
    assert "secret" not in api.get(f"{API}webhooks/").json()["results"][0]
    rotated = api.post(f"{API}webhooks/{endpoint.pk}/rotate-secret/").json()
    endpoint.refresh_from_db()
    assert rotated["secret"] == endpoint.secret != body["secret"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "not a url"}, "url"),
        ({"url": "ftp://files.example/hook"}, "url"),
        ({"url": "file:///etc/passwd"}, "url"),
        ({"url": "https://crm.example/hook", "kinds": ["cancle"]}, "kinds"),
        ({"url": "https://crm.example/hook", "kinds": "cancel"}, "kinds"),
        ({"url": "https://crm.example/hook", "active": "perhaps"}, "active"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(
    organiser: Any, body: dict[str, Any], field: str
) -> None:
    answer = client(organiser).post(f"{API}webhooks/", body, format="json")
    assert answer.status_code == 400
    assert field in answer.json()
    assert not WebhookEndpoint.objects.exists()


def test_a_user_without_a_webhook_scope_is_refused(django_user_model: Any) -> None:
    viewer = user_with(django_user_model, "viewer", "view_eventseries")
    assert client(viewer).get(f"{API}webhooks/").status_code == 403
    assert (
        client(viewer).post(f"{API}webhooks/", {"url": "https://a.example/"}, format="json")
    ).status_code == 403


def test_the_delivery_log_and_resend(
    organiser: Any, book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    api = client(organiser)
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "anna@example.com")
    with receiver(answers=[500] * 8) as server:
        endpoint_id = api.post(f"{API}webhooks/", {"url": server.url}, format="json").json()["id"]
        with django_capture_on_commit_callbacks(execute=True):
            cancel_occurrence(series, rows[2].starts_at, include_booked=True, now=NOW)
        log = api.get(f"{API}webhooks/{endpoint_id}/deliveries/").json()
        assert log["count"] == 1
        entry = log["results"][0]
        assert entry["status"] == "failed"
        assert entry["attempts"] == 8
        assert entry["last_status_code"] == 500
        with django_capture_on_commit_callbacks(execute=True):
            resent = api.post(f"{API}webhook-deliveries/{entry['id']}/resend/")
        assert resent.status_code == 202
        assert resent.json()["status"] == "pending"
        ids = [one.headers["webhook-id"] for one in server.received]
    assert len(ids) == 9
    assert set(ids) == {entry["operation_id"]}
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.DELIVERED


def test_removing_an_endpoint_removes_its_log(organiser: Any) -> None:
    api = client(organiser)
    endpoint = WebhookEndpoint.objects.create(url="https://a.example/hook")
    WebhookDelivery.objects.create(
        endpoint=endpoint,
        operation_ref="0b9a9a59-53e5-4c0c-9b6f-1d1f8c1f3c11",
        kind="cancel",
        payload={},
    )
    assert (
        api.patch(f"{API}webhooks/{endpoint.pk}/", {"active": False}, format="json").json()[
            "active"
        ]
        is False
    )
    assert api.delete(f"{API}webhooks/{endpoint.pk}/").status_code == 204
    assert not WebhookDelivery.objects.exists()
    assert api.get(f"{API}webhooks/{endpoint.pk}/").status_code == 404
