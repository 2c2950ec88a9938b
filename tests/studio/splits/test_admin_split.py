"""The admin's split on the studio host: UUID lessons, a pupil's Booking on a moved lesson.

Thursday lessons split at the third one and moved to Fridays in Hall 2: the
plan marks the booked Thursday as drift with its booking, the split keeps the
lesson (same UUID, same booking, old room) and lands on the continuation.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client, override_settings

from revel_recurring import rules
from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import PASSWORD, MakeSeries, lessons
from tests.support.forms import confirm_split, split_data, split_url

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


@pytest.fixture
def owner(db: Any) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("owner@studio.example", PASSWORD))  # type: ignore[arg-type]
    return client


@override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none")
def test_a_booked_lesson_moves_with_its_uuid_and_booking_and_stays_as_drift(
    owner: Client, make_series: MakeSeries, pupil: User
) -> None:
    series = make_series()
    rows = lessons(series)
    booking = Booking.objects.create(lesson=rows[3], pupil=pupil)
    at = rules.to_utc(rows[2].begins)

    page = owner.get(f"{CHANGELIST}{series.pk}/change/")
    # The first lesson is the rule's first date: splitting there is changing the series.
    assert [row.split_at is not None for row in page.context["upcoming"]] == [
        index > 0 for index in range(len(rows))
    ]
    form = owner.get(split_url(series, at))
    assert form.context["template_form"]["room"].value() == "Hall 1"

    shown = owner.post(
        split_url(series),
        split_data(series, at, template={"room": "Hall 2"}, weekdays=["4"], name="Friday salsa"),
    )

    plan = shown.context["plan"]
    assert [row.id for row in plan.drift] == [row.pk for row in rows[2:]]
    assert {row.id: row.bookings for row in plan.booked_drift} == {rows[3].pk: 1}
    assert "booked (1 booking)" in shown.content.decode()

    response = confirm_split(owner, shown, follow=True)

    continuation = EventSeries.objects.get(split_from=series)
    assert response.redirect_chain[-1][0] == f"{CHANGELIST}{continuation.pk}/change/"
    moved = Lesson.objects.get(pk=rows[3].pk)
    assert moved.series_id == continuation.pk
    assert moved.state != Lesson.State.SCRAPPED
    assert moved.room == "Hall 1"
    assert Booking.objects.get(pk=booking.pk).lesson_id == rows[3].pk
    assert continuation.get_template().room == "Hall 2"
    messages = [str(message) for message in get_messages(response.wsgi_request)]
    # The booked lesson, unticked, stays on its Thursday; the others moved on to Fridays.
    assert moved.begins == rows[3].begins
    assert any("dates moved" in text and "1 new date" in text for text in messages), messages
    page_text = response.content.decode()
    assert f'href="{CHANGELIST}{series.pk}/change/">Salsa</a>' in page_text
    assert "Continues" in page_text


def test_a_member_of_the_school_may_not_split(
    client: Client, make_series: MakeSeries, school: Any, django_user_model: Any
) -> None:
    series = make_series()
    member = django_user_model.objects.create_user("member@studio.example", PASSWORD)
    member.is_staff = True
    member.save()
    school.members.add(member)
    member.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_eventseries", "change_eventseries"])
    )
    client.force_login(member)
    at = rules.to_utc(lessons(series)[2].begins)

    assert client.get(f"{CHANGELIST}{series.pk}/change/").status_code == 200
    assert client.get(split_url(series, at)).status_code == 403
    assert client.post(split_url(series), split_data(series, at)).status_code == 403
    assert not EventSeries.objects.filter(split_from=series).exists()
