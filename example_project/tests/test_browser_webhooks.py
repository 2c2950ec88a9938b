"""In Chromium: registering a webhook endpoint (its secret shown once), its log, a resend.

The receiver is a real local HTTP server; the example project runs Celery eagerly,
so the resent delivery has reached it when the log shows again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from revel_recurring.models import WebhookDelivery, WebhookEndpoint
from tests.support.webhooks import Receiver, receiver

from .browser import browser_page, read_db, screenshot, submit_login
from .test_browser_admin import PASSWORD, superuser

__all__ = ["browser_page", "superuser"]  # fixtures, imported for pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server() -> Iterator[Receiver]:
    with receiver() as running:
        yield running


@pytest.fixture
def failed(server: Receiver) -> WebhookDelivery:
    endpoint = WebhookEndpoint.objects.create(url=server.url, description="CRM")
    return WebhookDelivery.objects.create(
        endpoint=endpoint,
        operation_ref="4b0d6c2e-8f1a-4e3b-9c5d-7a6b5c4d3e2f",
        kind="cancel",
        payload={"type": "series.operation", "data": {"kind": "cancel"}},
        status=WebhookDelivery.Status.FAILED,
        attempts=8,
        last_status_code=500,
        last_error="HTTP 500: down for maintenance",
    )


def test_an_endpoint_is_registered_its_log_read_and_a_delivery_sent_again(
    live_server: Any,
    superuser: Any,
    server: Receiver,
    failed: WebhookDelivery,
    browser_page: Any,
) -> None:
    page = browser_page
    add = "/admin/revel_recurring/webhookendpoint/add/"
    page.goto(f"{live_server.url}/admin/login/?next={add}")
    page.fill("#id_username", "admin")
    page.fill("#id_password", PASSWORD)
    submit_login(page)
    page.fill("#id_url", "https://shop.example/hooks")
    page.fill("#id_description", "Shop")
    page.check("input[name=kinds][value=cancel]")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist")
    screenshot(page, "webhooks-01-secret-once")
    created = read_db(lambda: WebhookEndpoint.objects.get(description="Shop"))
    assert created.kinds == ["cancel"]
    assert created.secret in page.inner_text(".messagelist")

    page.goto(
        f"{live_server.url}/admin/revel_recurring/webhookendpoint/{failed.endpoint_id}/change/"
    )
    log = page.inner_text(".field-latest_deliveries")
    assert "failed" in log
    assert "HTTP 500: down for maintenance" in log
    assert created.secret not in page.content()
    page.click("text=The whole delivery log")
    page.wait_for_selector("#result_list")
    page.check(f"input[name=_selected_action][value='{failed.pk}']")
    page.select_option("select[name=action]", "send_again")
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist")
    screenshot(page, "webhooks-02-sent-again")
    assert "queued again" in page.inner_text(".messagelist")
    assert "delivered" in page.inner_text("#result_list")
    assert [one.headers["webhook-id"] for one in server.received] == [str(failed.operation_ref)]
