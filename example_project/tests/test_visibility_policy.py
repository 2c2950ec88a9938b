"""One visibility policy: who reads a series (API, feeds, pages) and who is told about it.

A matrix of roles x template visibilities. For each visibility a series is
generated for real (the digest goes through ExampleAdapter and the site's notifier),
then every role asks the API, its calendar feed, the series page and the list page.
Whoever the digest tells may read the series; nobody but staff (and superusers)
reads what the digest keeps to staff.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from example_project.events.models import (
    CalendarToken,
    Event,
    Follow,
    Membership,
    Notification,
    Organization,
)
from example_project.tests.conftest import MakeTemplate
from revel_recurring.models import EventSeries
from revel_recurring.notifications import Audience, visibilities_reaching, visibility_audience
from revel_recurring.services.generation import generate_series_events

pytestmark = pytest.mark.django_db

V = Event.Visibility
ROLES = ("anonymous", "stranger", "follower", "paused", "member", "staff", "owner", "superuser")
SIGNED_IN = set(ROLES) - {"anonymous"}
STAFF = {"staff", "owner"}
MEMBERS = {"paused", "member"} | STAFF

#: Who the generation digest tells, by the template's visibility (the house plan).
TOLD = {
    V.PUBLIC: MEMBERS | {"follower"},
    V.MEMBERS_ONLY: MEMBERS,
    V.STAFF_ONLY: STAFF,
    V.PRIVATE: STAFF,
    V.UNLISTED: STAFF,
}
#: Who reads the series through the API (and is offered it in lists and feeds).
READERS = {
    V.PUBLIC: SIGNED_IN,
    V.MEMBERS_ONLY: MEMBERS | {"superuser"},
    V.STAFF_ONLY: STAFF | {"superuser"},
    V.PRIVATE: STAFF | {"superuser"},
    V.UNLISTED: STAFF | {"superuser"},
}
#: Public and unlisted series are open to anyone with their link (page and feed).
BY_LINK = {V.PUBLIC, V.UNLISTED}


@pytest.fixture
def people(django_user_model: Any, organization: Organization) -> dict[str, Any]:
    make = django_user_model.objects.create_user
    people = {name: make(name) for name in ("stranger", "follower", "paused", "member", "staff")}
    Follow.objects.create(
        organization=organization, user=people["follower"], notify_new_events=True
    )
    Membership.objects.create(
        organization=organization, user=people["paused"], status=Membership.Status.PAUSED
    )
    Membership.objects.create(organization=organization, user=people["member"])
    organization.staff.add(people["staff"])
    people["owner"] = organization.owner
    people["superuser"] = django_user_model.objects.create_superuser("superuser", "su@example.com")
    return people


def told(series: EventSeries) -> set[str]:
    """The roles (usernames) the series' digest reached, through the site's notifier."""
    notified = Notification.objects.filter(digest__series=series)
    return set(notified.values_list("recipient__username", flat=True))


def reads(client: Client, user: Any, series: EventSeries) -> dict[str, bool]:
    """What ``user`` (None: anonymous) gets of ``series`` through each door."""
    client.logout()
    if user is None:
        feed = f"/series/{series.slug}/calendar.ics"
    else:
        client.force_login(user)
        feed = f"/calendar/{CalendarToken.for_user(user).key}/series/{series.slug}.ics"
    api = client.get(f"/api/recurring/series/{series.pk}/")
    listing = client.get("/api/recurring/series/")
    listed_ids = (
        {row["id"] for row in listing.json()["results"]} if listing.status_code == 200 else set()
    )
    return {
        "api": api.status_code == 200,
        "api list": series.pk in listed_ids,
        "feed": client.get(feed).status_code == 200,
        "page": client.get(f"/series/{series.slug}/").status_code == 200,
        "site list": series.name in client.get("/").content.decode(),
    }


@pytest.mark.parametrize("visibility", list(V))
def test_readers_and_digest_audience_agree(
    client: Client,
    people: dict[str, Any],
    make_template: MakeTemplate,
    now: dt.datetime,
    django_capture_on_commit_callbacks: Any,
    visibility: str,
) -> None:
    template = make_template(
        visibility=visibility, name=f"Run {visibility}", slug=f"run-{visibility}", tiers=0
    )
    series = template.series
    with django_capture_on_commit_callbacks(execute=True):
        assert len(generate_series_events(series, now=now)) == 8

    measured = {role: reads(client, people.get(role), series) for role in ROLES}
    by_door = {
        door: {role for role in ROLES if measured[role][door]} for door in measured["anonymous"]
    }

    assert told(series) == TOLD[visibility]
    assert by_door["api"] == by_door["api list"] == READERS[visibility]
    linked = set(ROLES) if visibility in BY_LINK else READERS[visibility]
    assert by_door["feed"] == by_door["page"] == linked
    # The list page names only public series to anonymous visitors.
    listed = READERS[visibility] | ({"anonymous"} if visibility == V.PUBLIC else set())
    assert by_door["site list"] == listed
    # The agreement itself: whoever is told may read; nobody outside the digest's
    # audience reads a series that is not public, superusers aside.
    assert TOLD[visibility] <= by_door["api"]
    if visibility != V.PUBLIC:
        assert by_door["api"] - {"superuser"} == TOLD[visibility]


def test_the_read_scope_and_the_digest_use_one_mapping() -> None:
    # What the adapter filters on is what the digest reads, value by value.
    for value in V:
        audience = visibility_audience(Event, value)
        assert audience is not None
        assert (value in visibilities_reaching(Event, Audience.PUBLIC)) == (
            audience is Audience.PUBLIC
        )
        assert (value in visibilities_reaching(Event, Audience.MEMBERS)) == (
            audience in (Audience.MEMBERS, Audience.PUBLIC)
        )
        assert value in visibilities_reaching(Event, Audience.STAFF)
    assert visibility_audience(Event, "no-such-level") is None
