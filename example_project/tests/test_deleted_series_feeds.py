"""The feed of a deleted series: an empty calendar for a while, then 410 Gone.

Calendar apps drop a subscription's events only when the feed holds none; a 404
would leave every subscriber's calendar frozen with the old dates.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events
from django.test import Client
from django.test.utils import override_settings
from rest_framework.test import APIClient

from example_project.events.models import CalendarToken, Event, Membership, Organization
from example_project.tests.helpers import tuesday_run
from revel_recurring.models import DeletedSeries, EventSeries
from revel_recurring.services.lifecycle import delete_series

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
NOW = dt.datetime(2027, 2, 1, 9, 0, tzinfo=VIENNA)


def _series(organization: Organization, slug: str, visibility: str) -> EventSeries:
    return tuesday_run(organization, slug, visibility, now=NOW)


def _events(body: bytes) -> list[Any]:
    calendar = icalendar.Calendar.from_ical(body)
    window = (dt.datetime(2026, 1, 1, tzinfo=dt.UTC), dt.datetime(2028, 1, 1, tzinfo=dt.UTC))
    return list(recurring_ical_events.of(calendar).between(*window))


@pytest.fixture
def member(django_user_model: Any, organization: Organization) -> Any:
    user = django_user_model.objects.create_user(username="member")
    Membership.objects.create(organization=organization, user=user)
    return user


def test_deleting_remembers_the_series_and_whether_its_feed_was_open(
    organization: Organization,
) -> None:
    public = _series(organization, "open-run", Event.Visibility.PUBLIC)
    members = _series(organization, "members-run", Event.Visibility.MEMBERS_ONLY)
    public_pk, members_pk = public.pk, members.pk

    delete_series(public)
    delete_series(members)

    remembered = {d.series_pk: d for d in DeletedSeries.objects.all()}
    assert remembered[str(public_pk)].slug == "open-run"
    assert remembered[str(public_pk)].name == "Open Run"
    assert remembered[str(public_pk)].feed_was_open is True
    assert remembered[str(members_pk)].feed_was_open is False


def test_open_feed_of_a_deleted_series_is_an_empty_calendar(organization: Organization) -> None:
    series = _series(organization, "open-run", Event.Visibility.PUBLIC)
    client = Client()
    before = client.get("/series/open-run/calendar.ics")
    assert before.status_code == 200
    assert len(_events(before.content)) > 0

    delete_series(series)
    after = client.get("/series/open-run/calendar.ics")

    assert after.status_code == 200
    assert after["Content-Type"] == "text/calendar; charset=utf-8"
    calendar = icalendar.Calendar.from_ical(after.content)
    assert calendar.walk("VEVENT") == []
    assert "X-WR-CALNAME" not in calendar  # says nothing of the series
    assert _events(after.content) == []
    # The validators moved: a client polling with the old ones gets the empty body.
    polled = client.get(
        "/series/open-run/calendar.ics",
        HTTP_IF_NONE_MATCH=before["ETag"],
        HTTP_IF_MODIFIED_SINCE=before["Last-Modified"],
    )
    assert polled.status_code == 200
    assert _events(polled.content) == []
    # And the empty calendar itself is revalidated cheaply.
    again = client.get("/series/open-run/calendar.ics", HTTP_IF_NONE_MATCH=after["ETag"])
    assert again.status_code == 304


def test_deleted_feed_answers_410_after_the_retention(organization: Organization) -> None:
    series = _series(organization, "open-run", Event.Visibility.PUBLIC)
    delete_series(series)
    deleted = DeletedSeries.objects.get()
    client = Client()

    deleted.deleted_at -= dt.timedelta(days=89, hours=23)
    deleted.save()
    assert client.get("/series/open-run/calendar.ics").status_code == 200

    deleted.deleted_at -= dt.timedelta(hours=1)
    deleted.save()
    assert client.get("/series/open-run/calendar.ics").status_code == 410

    with override_settings(REVEL_RECURRING_DELETED_FEED_DAYS=120):
        assert client.get("/series/open-run/calendar.ics").status_code == 200


def test_a_stranger_learns_nothing_of_a_deleted_members_only_series(
    organization: Organization, member: Any
) -> None:
    series = _series(organization, "members-run", Event.Visibility.MEMBERS_ONLY)
    key = CalendarToken.for_user(member).key
    private_url = f"/calendar/{key}/series/members-run.ics"
    assert Client().get(private_url).status_code == 200

    delete_series(series)

    assert Client().get("/series/members-run/calendar.ics").status_code == 404
    private = Client().get(private_url)
    assert private.status_code == 200
    assert _events(private.content) == []
    assert Client().get("/series/never-existed/calendar.ics").status_code == 404


def test_a_new_series_with_the_slug_of_a_deleted_one_is_served(
    organization: Organization,
) -> None:
    delete_series(_series(organization, "open-run", Event.Visibility.PUBLIC))
    _series(organization, "open-run", Event.Visibility.PUBLIC)

    response = Client().get("/series/open-run/calendar.ics")

    assert response.status_code == 200
    assert len(_events(response.content)) > 0


def test_api_ical_of_a_deleted_series_is_empty_then_gone(
    organization: Organization, django_user_model: Any
) -> None:
    series = _series(organization, "open-run", Event.Visibility.PUBLIC)
    pk = series.pk
    owner = organization.owner
    client = APIClient()
    client.force_authenticate(owner)
    url = f"/api/recurring/series/{pk}/ical/"
    assert len(_events(client.get(url).content)) > 0

    response = client.delete(f"/api/recurring/series/{pk}/")
    assert response.status_code == 204

    after = client.get(url)
    assert after.status_code == 200
    assert _events(after.content) == []
    DeletedSeries.objects.update(
        deleted_at=DeletedSeries.objects.get().deleted_at - dt.timedelta(days=91)
    )
    assert client.get(url).status_code == 410
    assert client.get("/api/recurring/series/999999/ical/").status_code == 404
