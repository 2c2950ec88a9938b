"""Two organisations with people in every role, and a series each, for the API tests.

The API reads the real clock, so the series start tomorrow evening (Vienna) and
their first window is generated from now.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from example_project.events.models import Event, Membership, Organization
from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series

VIENNA = ZoneInfo("Europe/Vienna")
API = "/api/recurring/series/"


def tomorrow_evening() -> dt.datetime:
    day = (timezone.now() + dt.timedelta(days=1)).astimezone(VIENNA)
    return day.replace(hour=18, minute=30, second=0, microsecond=0)


def stamp(value: dt.datetime) -> str:
    """An instant as the API writes it: UTC, whole seconds, ``Z``."""
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def url(series: EventSeries | int, action: str = "") -> str:
    pk = series if isinstance(series, int) else series.pk
    return f"{API}{pk}/{action + '/' if action else ''}"


def make_series(organization: Organization, *, name: str = "Evening Run", **options: Any) -> Any:
    start = options.pop("dtstart", tomorrow_evening())
    rule = {"frequency": "WEEKLY", "weekdays": [start.weekday()], "dtstart": start}
    rule.update(options.pop("rule", {}))
    rule.setdefault("timezone", "Europe/Vienna")
    return create_recurring_series(
        rule_data=rule,
        template_data={
            "organization": organization,
            "name": name,
            "slug": options.pop("slug", name.lower().replace(" ", "-")),
            "end": start + dt.timedelta(minutes=90),
            "capacity": 20,
            "visibility": Event.Visibility.MEMBERS_ONLY,
        },
        name=name,
        auto_publish=options.pop("auto_publish", True),
        **options,
    )


@dataclass
class Org:
    organization: Organization
    owner: Any
    staff: Any
    member: Any
    paused: Any
    series: EventSeries


@dataclass
class World:
    a: Org
    b: Org
    stranger: Any


def _org(user_model: Any, slug: str) -> Org:
    owner = user_model.objects.create_user(username=f"{slug}-owner")
    organization = Organization.objects.create(name=slug.title(), slug=slug, owner=owner)
    staff = user_model.objects.create_user(username=f"{slug}-staff")
    organization.staff.add(staff)
    member = user_model.objects.create_user(username=f"{slug}-member")
    Membership.objects.create(organization=organization, user=member)
    paused = user_model.objects.create_user(username=f"{slug}-paused")
    Membership.objects.create(
        organization=organization, user=paused, status=Membership.Status.PAUSED
    )
    series = make_series(organization, name=f"{slug.title()} Run")
    return Org(organization, owner, staff, member, paused, series)


@pytest.fixture
def world(django_user_model: Any) -> World:
    return World(
        a=_org(django_user_model, "alpha"),
        b=_org(django_user_model, "beta"),
        stranger=django_user_model.objects.create_user(username="stranger"),
    )


ClientFor = Callable[[Any], APIClient]


@pytest.fixture
def client_for() -> ClientFor:
    def make(user: Any) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


def create_body(organization: Organization, **overrides: Any) -> dict[str, Any]:
    """A valid POST series/ body: weekly on tomorrow's weekday, 18:30 Vienna."""
    start = tomorrow_evening()
    body: dict[str, Any] = {
        "name": "Morning Swim",
        "recurrence": {
            "frequency": "WEEKLY",
            "weekdays": [start.weekday()],
            "dtstart": start.isoformat(),
            "timezone": "Europe/Vienna",
        },
        "template": {
            "organization": organization.pk,
            "name": "Morning Swim",
            "slug": "morning-swim",
            "end": (start + dt.timedelta(hours=1)).isoformat(),
            "capacity": 12,
        },
        "auto_publish": True,
        "generation_window_weeks": 4,
    }
    for key, value in overrides.items():
        if key in ("recurrence", "template") and isinstance(value, dict):
            body[key] = {**body[key], **value}
        else:
            body[key] = value
    return body


def occurrences_of(series: EventSeries) -> list[Event]:
    return list(Event.objects.filter(series=series, is_template=False).order_by("start"))
