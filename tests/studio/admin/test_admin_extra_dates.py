"""The admin's extra dates on the studio host: UUID lessons, a pupil's booking."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from revel_recurring import rules
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import BERLIN, PASSWORD, MakeSeries, lessons

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


@pytest.fixture
def owner(db: Any) -> Client:
    User.objects.create_superuser("owner@studio.example", PASSWORD)
    client = Client()
    client.login(username="owner@studio.example", password=PASSWORD)
    return client


def messages_of(response: Any, level: str) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request) if m.level_tag == level]


def test_a_booked_extra_lesson_is_not_removed_and_is_named(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    series = make_series(generation_window_weeks=6)
    saturday = (lessons(series)[1].begins.astimezone(BERLIN) + dt.timedelta(days=2)).replace(
        hour=11, minute=0
    )
    label = f"{saturday:%a} {saturday.day} {saturday:%b %Y} 11:00 (Europe/Berlin)"
    base = f"{CHANGELIST}{series.pk}/"

    added = owner.post(
        f"{base}add-date/", {"when_0": f"{saturday:%Y-%m-%d}", "when_1": "11:00"}, follow=True
    )

    assert messages_of(added, "success") == [f"{label} added to Salsa; its occurrence was created."]
    extra = Lesson.objects.get(series=series, begins=saturday)
    marked = [row for row in added.context["upcoming"] if row.extra]
    assert [row.event_id for row in marked] == [extra.pk]
    assert f'href="/admin/studio/lesson/{extra.pk}/change/"' in added.content.decode()
    Booking.objects.create(lesson=extra, pupil=pupil)

    refused = owner.post(
        f"{base}remove-date/", {"instant": rules.format_instant(saturday)}, follow=True
    )

    assert refused.status_code == 200
    assert messages_of(refused, "error") == [
        f"Salsa: {label} of series 'Salsa' has bookings; its extra date was not removed."
    ]
    series.refresh_from_db()
    assert series.extra_date_instants == {rules.to_utc(saturday)}
    extra.refresh_from_db()
    assert extra.occurrence_status != Lesson.RECURRING_STATUS_CANCELLED
    assert Booking.objects.get(pupil=pupil).lesson_id == extra.pk
