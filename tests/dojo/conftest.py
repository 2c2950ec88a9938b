"""Fixtures of the dojo host: its trainer, a member, training series (Berlin, in German)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.dojo import notifier
from tests.hosts.dojo.models import Booking, Training, User
from tests.support.people import BookPerson, book_member

BERLIN = ZoneInfo("Europe/Berlin")
PASSWORD = "dojo-test-password"
API = "/api/recurring/series/"
TRAINER_EMAIL = "trainer@dojo.example"

MakeSeries = Callable[..., EventSeries]


def next_weekday(weekday: int, *, hour: int = 19, minute: int = 0) -> dt.datetime:
    """The next ``weekday`` (0 = Monday) after today at ``hour:minute`` in Berlin."""
    today = timezone.now().astimezone(BERLIN).date()
    day = today + dt.timedelta(days=(weekday - today.weekday()) % 7 or 7)
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=BERLIN)


def utc_text(instant: dt.datetime) -> str:
    return instant.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(autouse=True)
def _clear_digests() -> Iterator[None]:
    notifier.digests.clear()
    yield
    notifier.digests.clear()


@pytest.fixture
def trainer(db: Any) -> User:
    """Staff with every permission: the dojo has one studio, no tenancy."""
    return User.objects.create_superuser(TRAINER_EMAIL, PASSWORD, name="Sensei")


@pytest.fixture
def member(db: Any) -> User:
    return User.objects.create_user("mitglied@dojo.example", PASSWORD)


@pytest.fixture
def api(trainer: User) -> APIClient:
    """The trainer's API client; German, as LANGUAGE_CODE says."""
    client = APIClient(HTTP_ACCEPT_LANGUAGE="de")
    client.force_authenticate(trainer)
    return client


@pytest.fixture
def make_series(db: Any) -> MakeSeries:
    """A weekly training series (Tuesdays 19:00 Berlin, 90 minutes), first window generated."""

    def build(
        *,
        name: str = "Karate Anfänger",
        weekdays: tuple[int, ...] = (1,),
        count: int | None = None,
        **options: Any,
    ) -> EventSeries:
        start = next_weekday(weekdays[0])
        rule = {
            "frequency": "WEEKLY",
            "weekdays": list(weekdays),
            "dtstart": start,
            "timezone": "Europe/Berlin",
            "count": count,
        }
        template = {"title": name, "mat": "Matte 1", "duration": dt.timedelta(minutes=90)}
        options.setdefault("auto_publish", True)
        return create_recurring_series(name=name, rule_data=rule, template_data=template, **options)

    return build


def trainings(series: EventSeries) -> list[Training]:
    """The series' occurrences (template excluded) in start order."""
    return list(Training.objects.filter(series=series, is_template=False).order_by("begins_at"))


def template_of(series: EventSeries) -> Training:
    return Training.objects.get(series=series, is_template=True)


@pytest.fixture
def booked(make_series: MakeSeries, member: User) -> tuple[EventSeries, list[Training]]:
    """Tuesday trainings, the second booked by the member."""
    series = make_series()
    rows = trainings(series)
    Booking.objects.create(training=rows[1], member=member)
    return series, rows


@pytest.fixture
def book_person(db: Any) -> BookPerson:
    """Book a named person on a training: ``book_person(event, address, *, name="",
    language="", timezone="") -> BookedPerson`` (tests/support/people.py)."""
    return book_member
