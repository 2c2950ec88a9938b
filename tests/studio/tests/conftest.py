"""Fixtures of the studio host: a school, its teacher, a pupil, lesson series."""

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
from tests.studio import notifier
from tests.studio.models import Lesson, School, User

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
        *, name: str = "Salsa", weekdays: tuple[int, ...] = (3,), **options: Any
    ) -> EventSeries:
        start = next_weekday(weekdays[0])
        rule = {
            "frequency": "WEEKLY",
            "weekdays": list(weekdays),
            "dtstart": start,
            "timezone": "Europe/Berlin",
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
