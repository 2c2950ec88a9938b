"""Helpers shared by the example project's tests."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth.models import Permission
from django.utils import timezone

from example_project.events.models import Event, Membership, Organization, Ticket, TicketTier
from revel_recurring.models import EventSeries
from revel_recurring.people import BookedPerson
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series


def weekly_starts(template: Event, count: int) -> list[dt.datetime]:
    """``count`` weekly UTC instants after the template's start (no rule maths needed)."""
    return [template.start + dt.timedelta(weeks=week) for week in range(1, count + 1)]


def materialize(template: Event, starts: list[dt.datetime]) -> list[Event]:
    """Insert occurrences the way generation does: prepare_occurrence, then bulk_create."""
    occurrences = [
        template.prepare_occurrence(start=start, occurrence_index=index, status=Event.Status.OPEN)
        for index, start in enumerate(starts, start=1)
    ]
    return Event.objects.bulk_create(occurrences)


def tuesday_run(
    organization: Organization,
    slug: str,
    visibility: str,
    *,
    now: dt.datetime,
    auto_publish: bool = True,
) -> EventSeries:
    """A weekly Tuesday 18:30 (Vienna) series from 2 Feb 2027, named after ``slug``, generated."""
    start = dt.datetime(2027, 2, 2, 18, 30, tzinfo=ZoneInfo("Europe/Vienna"))
    name = slug.replace("-", " ").title()
    return create_recurring_series(
        name=name,
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [1],
            "timezone": "Europe/Vienna",
            "dtstart": start,
        },
        template_data={
            "organization": organization,
            "name": name,
            "slug": slug,
            "end": start + dt.timedelta(hours=1),
            "visibility": visibility,
        },
        auto_publish=auto_publish,
        now=now,
    )


def weekly_run(
    organization: Organization,
    name: str,
    *,
    start: dt.datetime,
    window_weeks: int,
    holidays: dict[str, Any] | None = None,
) -> EventSeries:
    """A public weekly run on ``start``'s weekday and wall clock (a ZoneInfo start),
    published as generated, its first window generated on the real clock."""
    assert isinstance(start.tzinfo, ZoneInfo)
    return create_recurring_series(
        name=name,
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [start.weekday()],
            "dtstart": start,
            "timezone": start.tzinfo.key,
        },
        template_data={
            "organization": organization,
            "name": name,
            "slug": name.lower().replace(" ", "-"),
            "end": start + dt.timedelta(hours=1),
            "visibility": Event.Visibility.PUBLIC,
        },
        generation_window_weeks=window_weeks,
        auto_publish=True,
        holidays=holidays,
    )


def may_edit_series(user: Any) -> Any:
    """Give ``user`` the admin's view and change permissions on series; returns it."""
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_eventseries", "change_eventseries"])
    )
    return user


def staff_of(user_model: Any, organization: Organization, username: str) -> Any:
    """A staff user of ``organization`` who may view and change its series."""
    user = user_model.objects.create_user(username, is_staff=True)
    organization.staff.add(user)
    return may_edit_series(user)


def member_of(user_model: Any, organization: Organization, username: str) -> Any:
    """A member (not staff) of ``organization`` with the same admin permissions."""
    user = user_model.objects.create_user(username, is_staff=True)
    Membership.objects.create(organization=organization, user=user)
    return may_edit_series(user)


def generated_from_now(series: EventSeries, *, weeks: int = 16) -> EventSeries:
    """``series`` with a ``weeks`` window, generated from the admin's (real) clock."""
    EventSeries.objects.filter(pk=series.pk).update(generation_window_weeks=weeks)
    series.refresh_from_db()
    generate_series_events(series, now=timezone.now())
    series.refresh_from_db()
    return series


def book_ticket_holder(
    event: Any, address: str, *, name: str = "", language: str = "", timezone: str = ""
) -> BookedPerson:
    """A ``Ticket`` of ``address`` on ``event``'s first tier: the ``book_person`` fixture.

    The tier (made if the event has none) counts the ticket in ``quantity_sold``;
    tests/support/people.py describes the fixture every host's suite shares.
    """
    tier = TicketTier.objects.filter(event=event).order_by("pk").first()
    if tier is None:
        tier = TicketTier.objects.create(event=event, name="Door", quantity=100)
    ticket = Ticket.objects.create(
        tier=tier, email=address, name=name, language=language, timezone=timezone
    )
    return BookedPerson(
        address=ticket.email, name=ticket.name, language=ticket.language, timezone=ticket.timezone
    )
