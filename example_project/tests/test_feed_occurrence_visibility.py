"""An occurrence narrowed on its own stays out of the open feeds of its public series."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events
from django.test import Client

from example_project.events.models import Event, Organization
from example_project.tests.helpers import tuesday_run
from revel_recurring.models import EventSeries

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
NOW = dt.datetime(2027, 2, 1, 9, 0, tzinfo=VIENNA)
# Within the generated window (beyond it the RRULE stands for dates not yet made).
WINDOW = (dt.datetime(2027, 1, 1, tzinfo=dt.UTC), dt.datetime(2027, 3, 20, tzinfo=dt.UTC))
NARROWED = {
    dt.date(2027, 2, 9): Event.Visibility.MEMBERS_ONLY,
    dt.date(2027, 2, 16): Event.Visibility.PRIVATE,
    dt.date(2027, 2, 23): Event.Visibility.UNLISTED,
    dt.date(2027, 3, 2): Event.Visibility.STAFF_ONLY,
}


def _public_series(organization: Organization) -> EventSeries:
    series = tuesday_run(organization, "open-run", Event.Visibility.PUBLIC, now=NOW)
    for day, visibility in NARROWED.items():
        row = Event.objects.occurrences().get(series=series, start__date=day)
        row.visibility = visibility
        row.save()
    return series


def _expanded(body: bytes) -> list[dt.datetime]:
    calendar = icalendar.Calendar.from_ical(body)
    return sorted(
        event["DTSTART"].dt.astimezone(dt.UTC)
        for event in recurring_ical_events.of(calendar).between(*WINDOW)
    )


def _public_rows(series: EventSeries) -> list[dt.datetime]:
    rows = Event.objects.occurrences().filter(
        series=series,
        visibility=Event.Visibility.PUBLIC,
        start__range=WINDOW,
        status__in=[Event.Status.OPEN, Event.Status.CLOSED],
    )
    return sorted(row.start.astimezone(dt.UTC) for row in rows)


@pytest.mark.parametrize(
    "url", ["/series/open-run/calendar.ics", "/organizations/runners/calendar.ics"]
)
def test_narrowed_occurrences_are_not_in_open_feeds(organization: Organization, url: str) -> None:
    series = _public_series(organization)

    response = Client().get(url)

    assert response.status_code == 200
    expanded = _expanded(response.content)
    assert expanded == _public_rows(series)
    assert not {start.date() for start in expanded} & set(NARROWED)
    assert dt.date(2027, 2, 2) in {start.date() for start in expanded}


def test_only_public_dates_differ_from_an_unlisted_series(organization: Organization) -> None:
    series = _public_series(organization)
    template = Event.objects.templates().get(series=series)
    template.visibility = Event.Visibility.UNLISTED
    template.save()
    # Unlisted like the series: stays in the series feed anyone with the link reads.
    Event.objects.occurrences().filter(series=series, start__date=dt.date(2027, 3, 9)).update(
        visibility=Event.Visibility.UNLISTED
    )

    expanded = _expanded(Client().get("/series/open-run/calendar.ics").content)

    # That open feed shows the public dates and those unlisted like the series;
    # members-only, private and staff-only ones are not the public's.
    days = {start.date() for start in expanded}
    assert dt.date(2027, 2, 2) in days
    assert dt.date(2027, 3, 9) in days
    assert not days & set(NARROWED) - {dt.date(2027, 2, 23)}
    assert dt.date(2027, 2, 23) in days
