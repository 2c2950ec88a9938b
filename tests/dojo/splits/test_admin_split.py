"""The admin's split on the dojo, in German: the continuation's template gets the key its
template copy chose, a booked training moves with its slug and its booking."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from revel_recurring import rules
from revel_recurring.models import EventSeries
from tests.dojo.conftest import PASSWORD, MakeSeries, template_of, trainings
from tests.hosts.dojo.models import Booking, Training, User
from tests.support.forms import confirm_split, split_data, split_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(db: Any) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.force_login(User.objects.create_superuser("inhaber@dojo.example", PASSWORD))  # type: ignore[arg-type]
    return client


def test_a_split_in_the_admin_keys_the_continuation_as_the_host_does(
    owner: Client, make_series: MakeSeries, member: User, settings: Any
) -> None:
    # Nobody told: the booked Tuesday stays, and its Friday is created beside it.
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = make_series()
    rows = trainings(series)
    booking = Booking.objects.create(training=rows[3], member=member)
    at = rules.to_utc(rows[2].begins_at)

    shown = owner.post(
        split_url(series),
        split_data(
            series,
            at,
            template={"mat": "Matte 2", "duration": "01:00:00"},
            weekdays=["4"],
            name="Karate Freitag",
        ),
    )
    assert shown.status_code == 200
    assert {row.id: row.bookings for row in shown.context["plan"].booked_drift} == {rows[3].slug: 1}
    response = confirm_split(owner, shown, follow=True)

    continuation = EventSeries.objects.get(split_from=series)
    assert response.redirect_chain[-1][0].endswith(f"/{continuation.pk}/change/")
    template = template_of(continuation)
    assert template.slug.startswith(f"karate-anfanger-ab-{at:%Y%m%d}-")
    assert (template.mat, template.duration) == ("Matte 2", dt.timedelta(hours=1))
    moved = Training.objects.get(pk=rows[3].slug)
    assert moved.series_id == continuation.pk
    assert moved.status == Training.Status.BUCHBAR
    assert Booking.objects.get(pk=booking.pk).training_id == rows[3].slug
    fridays = [row for row in trainings(continuation) if row.is_modified is False]
    assert any(f"-{continuation.pk}-" in row.slug for row in fridays)
    messages = [str(message) for message in get_messages(response.wsgi_request)]
    # One message: where the original ends, the dates moved on and the one new date
    # (the Friday beside the booked Tuesday, which stays).
    assert any(
        message.startswith("Karate Anfänger endet am ") and "1 neuer Termin" in message
        for message in messages
    ), messages
