"""Helpers shared by the example project's tests."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from example_project.events.models import Event, Organization
from revel_recurring.models import EventSeries
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
