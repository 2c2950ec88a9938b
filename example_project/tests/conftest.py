from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.cache import caches

from example_project.events.models import Event, Organization, TicketTier
from example_project.tests.helpers import book_ticket_holder
from revel_recurring.models import EventSeries, RecurrenceRule
from tests.support.language import (
    language_of_the_settings_after_each_test as language_of_the_settings_after_each_test,
)
from tests.support.mysql_driver import missing_time_zone_tables
from tests.support.people import BookPerson

VIENNA = ZoneInfo("Europe/Vienna")

MakeTemplate = Callable[..., Event]


@pytest.fixture(scope="session", autouse=True)
def mariadb_has_time_zone_tables(django_db_blocker: Any) -> None:
    """Stop at once, saying what to do, on a MariaDB server without time zone tables.

    Dates in named zones (``start__date``, the admin's date hierarchy) need them; without,
    dozens of tests would fail with no hint why (.ci/run loads them).
    """
    with django_db_blocker.unblock():
        problem = missing_time_zone_tables()
    if problem:
        pytest.exit(problem, returncode=1)


@pytest.fixture(autouse=True)
def feeds_show_the_fixtures_past(settings: Any) -> None:
    """Feeds show ten years of the past here: the fixtures are dated (2027), and a
    feed must not change as the calendar moves on. Tests of the 90-day default
    (``REVEL_RECURRING_FEED_PAST_DAYS``) set it themselves and pass ``now``."""
    settings.REVEL_RECURRING_FEED_PAST_DAYS = 3650


@pytest.fixture(autouse=True)
def empty_feed_cache() -> None:
    """No test sees feed bodies an earlier one cached (REVEL_RECURRING_FEED_CACHE)."""
    caches["default"].clear()


@pytest.fixture
def now() -> dt.datetime:
    """A fixed clock: Monday 2027-02-01 09:00 Vienna, eight weeks before the DST switch."""
    return dt.datetime(2027, 2, 1, 9, 0, tzinfo=VIENNA)


@pytest.fixture
def organization(django_user_model: Any) -> Organization:
    owner = django_user_model.objects.create_user(username="owner", password="x")
    return Organization.objects.create(name="Runners", slug="runners", owner=owner)


@pytest.fixture
def make_template(organization: Organization, now: dt.datetime) -> MakeTemplate:
    """A weekly Tuesday 18:30 Vienna series and its template; keyword overrides go to Event."""

    def make(*, tiers: int = 1, auto_publish: bool = True, **overrides: Any) -> Event:
        start = dt.datetime(2027, 2, 2, 18, 30, tzinfo=VIENNA)
        rule = RecurrenceRule.objects.create(
            frequency=RecurrenceRule.Frequency.WEEKLY,
            weekdays=[1],
            dtstart=start,
            timezone="Europe/Vienna",
        )
        series = EventSeries.objects.create(
            name=overrides.get("name", "Evening Run"),
            recurrence_rule=rule,
            auto_publish=auto_publish,
        )
        fields: dict[str, Any] = {
            "organization": organization,
            "series": series,
            "is_template": True,
            "name": "Evening Run",
            "slug": "evening-run",
            "description": "Meet at the Lusthaus.",
            "start": start,
            "end": start + dt.timedelta(minutes=90),
            "status": Event.Status.DRAFT,
            "visibility": Event.Visibility.MEMBERS_ONLY,
            "capacity": 25,
            "address": "Freudenau 254, 1020 Wien",
            "latitude": Decimal("48.198471"),
            "longitude": Decimal("16.445278"),
            "waitlist_open": True,
            "requires_ticket": True,
            "rsvp_before": start - dt.timedelta(hours=2),
            "check_in_starts_at": start - dt.timedelta(minutes=30),
        }
        fields.update(overrides)
        template = Event.objects.create(**fields)
        for number in range(tiers):
            TicketTier.objects.create(
                event=template,
                name=f"Tier {number + 1}",
                price=Decimal("5.00") * (number + 1),
                quantity=30,
                quantity_sold=7,
                sales_start=start - dt.timedelta(days=14),
                sales_end=start - dt.timedelta(hours=1),
            )
        return template

    return make


@pytest.fixture
def book_person(db: Any) -> BookPerson:
    """Book a named person on an event (a ``Ticket``): ``book_person(event, address, *,
    name="", language="", timezone="") -> BookedPerson`` (tests/support/people.py)."""
    return book_ticket_holder
