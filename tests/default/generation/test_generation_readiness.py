"""A series that cannot generate gets the same reason from the admin and from the API.

The admin's *Generate now* shows it as a warning; ``POST generate/`` answers 409
with it as ``detail``. Both ask ``generation_readiness``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.urls import include, path
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.generation import NotReadyReason, generation_readiness
from revel_recurring.services.lifecycle import pause_series
from tests.support.admin import CHANGELIST, change_url
from tests.support.factories import VIENNA, make_series, occurrences

# The admin and the API under one URLconf, as on a real site.
urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/recurring/", include("revel_recurring.api.urls")),
]

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]
API = "/api/recurring/series/"


def paused() -> EventSeries:
    series = make_series(name="Yoga")
    pause_series(series)
    return series


def without_template() -> EventSeries:
    rule = RecurrenceRule.objects.create(
        frequency="WEEKLY", dtstart=dt.datetime(2026, 3, 2, 10, tzinfo=VIENNA), timezone=VIENNA.key
    )
    return EventSeries.objects.create(name="Yoga", recurrence_rule=rule)


def without_rule() -> EventSeries:
    return EventSeries.objects.create(name="Yoga")


CASES = {
    NotReadyReason.PAUSED: (paused, "Yoga is paused, so nothing was generated. Resume it first."),
    NotReadyReason.NO_TEMPLATE: (
        without_template,
        "Yoga has no template event, so nothing can be generated.",
    ),
    NotReadyReason.NO_RULE: (
        without_rule,
        "Yoga has no recurrence rule, so nothing can be generated.",
    ),
}


def warnings(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request) if m.level_tag == "warning"]


@pytest.mark.parametrize("reason", list(CASES))
def test_admin_generate_now_and_the_api_give_the_same_reason(
    admin_client: Any, admin_user: Any, reason: NotReadyReason
) -> None:
    make, sentence = CASES[reason]
    series = make()
    api = APIClient()
    api.force_authenticate(admin_user)

    button = admin_client.post(change_url(series, "generate"), follow=True)
    action = admin_client.post(
        CHANGELIST,
        {"action": "generate_now_action", "_selected_action": [series.pk]},
        follow=True,
    )
    answer = api.post(f"{API}{series.pk}/generate/", {}, format="json")

    assert generation_readiness(series).reason is reason
    assert answer.status_code == 409, answer.json()
    assert answer.json()["detail"] == sentence
    assert warnings(button) == [sentence]
    assert warnings(action) == [sentence]
    assert occurrences(series) == []


def test_a_parked_series_is_ready_and_generates(admin_client: Any, admin_user: Any) -> None:
    # Generating by hand is how an organiser retries a parked series.
    series = make_series(name="Yoga", window_weeks=2)
    EventSeries.objects.filter(pk=series.pk).update(
        parked_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), parked_reason="ValueError: boom"
    )
    series.refresh_from_db()
    api = APIClient()
    api.force_authenticate(admin_user)

    assert generation_readiness(series).ready
    answer = api.post(f"{API}{series.pk}/generate/", {}, format="json")

    assert answer.status_code == 200
    assert len(answer.json()["created"]) == 2
    series.refresh_from_db()
    assert series.parked_at is None
