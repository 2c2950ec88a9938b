"""The admin's endpoint pages: registering (the secret shown once), the log, send again."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages

from revel_recurring.models import WebhookDelivery, WebhookEndpoint
from revel_recurring.services.cancellation import cancel_occurrence
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.people import BookPerson
from tests.support.webhooks import receiver

pytestmark = pytest.mark.django_db

ENDPOINTS = "/admin/revel_recurring/webhookendpoint/"
DELIVERIES = "/admin/revel_recurring/webhookdelivery/"


def _messages(response: Any) -> list[str]:
    return [str(one) for one in get_messages(response.wsgi_request)]


def test_adding_an_endpoint_shows_its_secret_once(admin_client: Any) -> None:
    response = admin_client.post(
        f"{ENDPOINTS}add/",
        {
            "url": "https://crm.example/hook",
            "description": "CRM",
            "kinds": ["cancel"],
            "active": "on",
        },
        follow=True,
    )
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.kinds == ["cancel"]
    assert endpoint.scope == ""
    assert any(endpoint.secret in text for text in _messages(response))
    page = admin_client.get(f"{ENDPOINTS}{endpoint.pk}/change/").content.decode()
    assert endpoint.secret not in page


def test_a_bad_url_is_refused_on_the_form(admin_client: Any) -> None:
    response = admin_client.post(f"{ENDPOINTS}add/", {"url": "ftp://files.example/x"})
    assert response.status_code == 200
    assert "url" in response.context["adminform"].form.errors
    assert not WebhookEndpoint.objects.exists()


def test_the_endpoint_page_lists_its_deliveries_and_the_log_sends_one_again(
    admin_client: Any, book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    book_person(rows[2], "anna@example.com")
    with receiver(answers=[500] * 8) as server:
        endpoint = WebhookEndpoint.objects.create(url=server.url)
        with django_capture_on_commit_callbacks(execute=True):
            cancel_occurrence(series, rows[2].starts_at, include_booked=True, now=NOW)
        delivery = WebhookDelivery.objects.get()
        assert delivery.status == WebhookDelivery.Status.FAILED
        page = admin_client.get(f"{ENDPOINTS}{endpoint.pk}/change/").content.decode()
        assert f"{DELIVERIES}{delivery.pk}/change/" in page
        assert "HTTP 500" in page
        log = admin_client.get(f"{DELIVERIES}?endpoint__id__exact={endpoint.pk}")
        assert log.status_code == 200
        with django_capture_on_commit_callbacks(execute=True):
            response = admin_client.post(
                DELIVERIES,
                {"action": "send_again", "_selected_action": [delivery.pk]},
                follow=True,
            )
        assert any("queued again" in text for text in _messages(response))
        ids = {one.headers["webhook-id"] for one in server.received}
    assert len(server.received) == 9
    assert ids == {str(delivery.operation_ref)}
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.DELIVERED
