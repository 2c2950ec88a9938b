"""Fixtures of the studio host: a school, its teacher, a pupil, lesson series."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from example_project.tests.browser import submit_login
from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.studio import notifier
from tests.hosts.studio.models import Booking, Lesson, School, User
from tests.support.people import BookPerson, book_pupil

BERLIN = ZoneInfo("Europe/Berlin")
PASSWORD = "studio-test-password"
API = "/api/recurring/series/"

MakeSeries = Callable[..., EventSeries]


def next_weekday(weekday: int, *, hour: int = 18, minute: int = 30) -> dt.datetime:
    """The next ``weekday`` (0 = Monday) after today at ``hour:minute`` in Berlin."""
    today = timezone.now().astimezone(BERLIN).date()
    day = today + dt.timedelta(days=(weekday - today.weekday()) % 7 or 7)
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=BERLIN)


@pytest.fixture(autouse=True)
def _clear_digests() -> Iterator[None]:
    notifier.digests.clear()
    yield
    notifier.digests.clear()


@pytest.fixture
def school(db: Any) -> School:
    return School.objects.create(name="Salsa School", slug="salsa")


@pytest.fixture
def teacher(school: School) -> User:
    user = User.objects.create_user("teacher@studio.example", PASSWORD, full_name="Tea Cher")
    school.teachers.add(user)
    return user


@pytest.fixture
def pupil(db: Any) -> User:
    return User.objects.create_user("pupil@studio.example", PASSWORD)


@pytest.fixture
def api(teacher: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(teacher)
    return client


@pytest.fixture
def make_series(school: School) -> MakeSeries:
    """A weekly lesson series (Thursdays 18:30 Berlin), first window generated."""

    def build(
        *,
        name: str = "Salsa",
        weekdays: tuple[int, ...] = (3,),
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
        template = {
            "school": school,
            "title": name,
            "room": "Hall 1",
            "finishes": start + dt.timedelta(hours=1),
        }
        options.setdefault("auto_publish", True)
        return create_recurring_series(name=name, rule_data=rule, template_data=template, **options)

    return build


def lessons(series: EventSeries) -> list[Lesson]:
    """The series' occurrences (template excluded) in start order."""
    return list(Lesson.objects.filter(series=series, is_template=False).order_by("begins"))


OWNER_EMAIL = "owner@studio.example"


@pytest.fixture
def owner(db: Any) -> User:
    """A superuser who signs in to the admin (the browser tests)."""
    return User.objects.create_superuser(OWNER_EMAIL, PASSWORD)


def sign_in(page: Any, base_url: str, path: str) -> None:
    """Sign the owner in through the admin's login page, landing on ``path``."""
    page.goto(f"{base_url}/admin/login/?next={path}")
    page.fill("#id_username", OWNER_EMAIL)
    page.fill("#id_password", PASSWORD)
    submit_login(page)


@pytest.fixture
def booked_tue_thu(make_series: MakeSeries, pupil: User) -> tuple[EventSeries, list[Lesson]]:
    """Tuesday/Thursday lessons, the second and fifth booked by the pupil."""
    series = make_series(weekdays=(1, 3))
    rows = lessons(series)
    for lesson in (rows[1], rows[4]):
        Booking.objects.create(lesson=lesson, pupil=pupil)
    return series, rows


def fridays_from_the_third_week(series: EventSeries) -> list[Lesson]:
    """Move the rule to Fridays from the third week's Friday: each Thursday from then on
    moves to its week's Friday (same lesson), the first two stay, off the rule, with no
    date of it in their week to go to. Returns those two."""
    from revel_recurring.services.lifecycle import update_series_recurrence

    thursdays = lessons(series)
    start = thursdays[0].begins + dt.timedelta(weeks=2, days=1)
    update_series_recurrence(series, rule_changes={"weekdays": [4], "dtstart": start})
    series.refresh_from_db()
    return thursdays[:2]


@pytest.fixture
def book_person(db: Any) -> BookPerson:
    """Book a named person on a lesson: ``book_person(event, address, *, name="",
    language="", timezone="") -> BookedPerson`` (tests/support/people.py)."""
    return book_pupil
