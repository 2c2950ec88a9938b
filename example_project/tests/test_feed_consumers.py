"""Every feed, expanded by three independent consumers, is exactly the shown rows.

recurring-ical-events, the ``ical`` package (Home Assistant) and Mozilla's ical.js
(Thunderbird, many web calendars) each expand the feed of one scenario; the list
of (UTC instant, summary) they read must equal the occurrences that are shown
(not draft, not cancelled, let in by ``is_ical_exported``), duplicates included.
The helpers are in tests/support/feed_consumers.py, shared with the other two hosts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
from django.test import override_settings

from example_project.events.models import Event, Organization, TicketTier
from revel_recurring.ical import calendar_feed, series_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import (
    create_recurring_series,
    pause_series,
    update_series_recurrence,
)
from tests.support.feed_consumers import CONSUMERS, expand, expand_many, shown_instances, window

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
NEW_YORK = ZoneInfo("America/New_York")
# A Monday. Years ahead of the wall clock, so that no date here is ever "long past".
NOW = dt.datetime(2030, 9, 2, 9, 0, tzinfo=VIENNA)
TUESDAY = dt.datetime(2030, 9, 3, 18, 30, tzinfo=VIENNA)
# Beyond the cursor a rule with an end has nothing left: a year more shows it ends.
YEAR = dt.timedelta(days=365)


@pytest.fixture
def organization(django_user_model: Any) -> Organization:
    # conftest's, less the password: hashing it costs about a second per test here.
    owner = django_user_model.objects.create_user(username="owner")
    return Organization.objects.create(name="Runners", slug="runners", owner=owner)


def _series(
    organization: Organization,
    slug: str,
    *,
    dtstart: dt.datetime = TUESDAY,
    generate_until: dt.datetime | None = None,
    auto_publish: bool = True,
    **rule: Any,
) -> EventSeries:
    """A series created through the service, its first window (or up to ``generate_until``)."""
    zone = dtstart.tzinfo
    assert isinstance(zone, ZoneInfo)
    rule = {"frequency": "WEEKLY", "timezone": zone.key, "dtstart": dtstart, **rule}
    if rule["frequency"] == "WEEKLY":
        rule.setdefault("weekdays", [dtstart.weekday()])
    name = slug.replace("-", " ").title()
    series = create_recurring_series(
        name=name,
        rule_data=rule,
        template_data={
            "organization": organization,
            "name": name,
            "slug": slug,
            "start": dtstart,
            "end": dtstart + dt.timedelta(minutes=90),
        },
        auto_publish=auto_publish,
        generate=False,
        now=NOW,
    )
    generate_series_events(series, until=generate_until, now=NOW)
    series.refresh_from_db()
    return series


def _row(series: EventSeries, day: dt.date) -> Event:
    return Event.objects.occurrences().get(series=series, start__date=day)


def _weekly_across_both_switches(organization: Organization) -> EventSeries:
    # Vienna: winter time from 27 October 2030, summer time again from 30 March 2031.
    # The feed's VTIMEZONE starts in 2029: 2031 is its third year, whose switch
    # ical.js misses when a zone's dates share one RDATE line.
    series = _series(
        organization, "dst-run", generate_until=dt.datetime(2031, 4, 30, tzinfo=VIENNA)
    )
    offsets = {s.astimezone(VIENNA).utcoffset() for s, _ in shown_instances(series)}
    assert offsets == {dt.timedelta(hours=1), dt.timedelta(hours=2)}
    return series


def _monthly_nth_weekday(organization: Organization) -> EventSeries:
    # The second Tuesday of each month, 19:00 New York, across 3 November 2030 and
    # 9 March 2031.
    return _series(
        organization,
        "second-tuesday",
        dtstart=dt.datetime(2030, 9, 10, 19, 0, tzinfo=NEW_YORK),
        generate_until=dt.datetime(2031, 8, 31, tzinfo=NEW_YORK),
        frequency="MONTHLY",
        monthly_type="NTH_WEEKDAY",
        nth_weekday=2,
        weekday=1,
    )


def _monthly_last_day(organization: Organization) -> EventSeries:
    return _series(
        organization,
        "month-end",
        dtstart=dt.datetime(2030, 9, 30, 20, 0, tzinfo=NEW_YORK),
        generate_until=dt.datetime(2031, 9, 1, tzinfo=NEW_YORK),
        frequency="MONTHLY",
        monthly_type="DAY_OF_MONTH",
        day_of_month=-1,
    )


def _count(organization: Organization) -> EventSeries:
    return _series(
        organization, "six-mornings", dtstart=dt.datetime(2030, 9, 5, 7, 0, tzinfo=VIENNA), count=6
    )


def _until(organization: Organization) -> EventSeries:
    return _series(
        organization,
        "lunch-until-october",
        dtstart=dt.datetime(2030, 9, 4, 12, 0, tzinfo=VIENNA),
        until=dt.datetime(2030, 10, 23, 12, 0, tzinfo=VIENNA),
    )


def _cancelled_date(organization: Organization) -> EventSeries:
    series = _series(organization, "cancelled-run")
    cancel_occurrence(series, dt.datetime(2030, 9, 17, 18, 30, tzinfo=VIENNA), now=NOW)
    return series


def _moved_by_hand(organization: Organization) -> EventSeries:
    series = _series(organization, "moved-run")
    later = _row(series, dt.date(2030, 9, 10))
    later.start += dt.timedelta(hours=2)
    later.end += dt.timedelta(hours=2)
    later.save()
    next_day = _row(series, dt.date(2030, 10, 1))
    next_day.start = dt.datetime(2030, 10, 2, 18, 30, tzinfo=VIENNA)
    next_day.end = next_day.start + dt.timedelta(minutes=90)
    next_day.name = "Run (Wednesday this week)"
    next_day.save()
    return series


def _cancelled_then_restored(organization: Organization) -> EventSeries:
    series = _series(organization, "restored-run")
    restored = dt.datetime(2030, 9, 17, 18, 30, tzinfo=VIENNA)
    cancel_occurrence(series, restored, now=NOW)
    cancel_occurrence(series, dt.datetime(2030, 10, 8, 18, 30, tzinfo=VIENNA), now=NOW)
    restore_occurrence(series, restored, now=NOW)
    return series


def _cadence_change_with_drift(organization: Organization) -> EventSeries:
    series = _series(organization, "cadence-run")
    booked = _row(series, dt.date(2030, 9, 10))
    TicketTier.objects.create(event=booked, name="Entry", price=Decimal("5"), quantity=9)
    TicketTier.objects.filter(event=booked).update(quantity_sold=1)
    edited = _row(series, dt.date(2030, 9, 24))
    edited.name = "Run with the coach"
    edited.save()
    # Nobody told: the booked date stays as drift rather than moving with its people.
    with override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none"):
        update_series_recurrence(series, rule_changes={"weekdays": [3]}, now=NOW)
    generate_series_events(series, now=NOW)
    cancel_stale_occurrences(series, now=NOW)
    series.refresh_from_db()
    tuesdays = [s for s, _ in shown_instances(series) if s.astimezone(VIENNA).weekday() == 1]
    assert len(tuesdays) == 2  # the booked and the edited one are kept
    return series


def _paused(organization: Organization) -> EventSeries:
    series = _series(organization, "paused-run")
    cancel_occurrence(series, dt.datetime(2030, 9, 24, 18, 30, tzinfo=VIENNA), now=NOW)
    pause_series(series, now=NOW)
    return series


def _draft_template(organization: Organization) -> EventSeries:
    # auto_publish off: every new date is a draft; one is published by hand.
    series = _series(organization, "draft-run", auto_publish=False)
    published = _row(series, dt.date(2030, 9, 17))
    published.status = Event.Status.OPEN
    published.save()
    assert len(shown_instances(series)) == 1
    return series


def _started_in_the_past(organization: Organization) -> EventSeries:
    # Generation never creates the past: July and August have no row.
    return _series(organization, "old-run", dtstart=dt.datetime(2030, 7, 2, 18, 30, tzinfo=VIENNA))


def _off_slot_dtstart(organization: Organization) -> EventSeries:
    # From Tuesday 3 September on a Monday/Wednesday rule: the Tuesday is no date.
    return _series(organization, "off-slot-run", weekdays=[0, 2])


def _members_only_date(organization: Organization) -> EventSeries:
    series = _series(organization, "narrowed-run")
    narrowed = _row(series, dt.date(2030, 9, 24))
    narrowed.visibility = Event.Visibility.MEMBERS_ONLY
    narrowed.save()
    return series


def _extra_dates(organization: Organization) -> EventSeries:
    # Tuesday runs and Saturday races (RDATE) on both sides of 27 October 2030: one
    # race before the first run's week is out, one cancelled, one moved by hand.
    series = _series(
        organization, "race-run", generate_until=dt.datetime(2030, 11, 30, tzinfo=VIENNA)
    )
    saturday = dt.datetime(2030, 9, 7, 10, 0, tzinfo=VIENNA)
    for week in (0, 7, 8, 9, 10):
        add_extra_date(series, saturday + dt.timedelta(weeks=week), now=NOW)
    cancel_occurrence(series, saturday + dt.timedelta(weeks=9), now=NOW)
    moved = _row(series, dt.date(2030, 11, 16))
    moved.start += dt.timedelta(hours=1)
    moved.end += dt.timedelta(hours=1)
    moved.save()
    series.refresh_from_db()
    return series


def _extra_dates_on_count(organization: Organization) -> EventSeries:
    # COUNT=3 bounds the rule's own mornings; the two extra mornings come on top.
    series = _series(
        organization,
        "three-mornings",
        dtstart=dt.datetime(2030, 9, 5, 7, 0, tzinfo=VIENNA),
        count=3,
    )
    for day in (14, 28):
        add_extra_date(series, dt.datetime(2030, 9, day, 9, 0, tzinfo=VIENNA), now=NOW)
    series.refresh_from_db()
    assert len(shown_instances(series)) == 5
    return series


Scenario = Callable[[Organization], EventSeries]

# name -> (builder, whether the rule ends by the cursor, so a window a year past it holds).
SCENARIOS: dict[str, tuple[Scenario, bool]] = {
    "weekly across both DST switches (Vienna)": (_weekly_across_both_switches, False),
    "monthly 2nd Tuesday (New York)": (_monthly_nth_weekday, False),
    "monthly last day (New York)": (_monthly_last_day, False),
    "COUNT": (_count, True),
    "UNTIL": (_until, True),
    "a cancelled date": (_cancelled_date, False),
    "dates moved by hand": (_moved_by_hand, False),
    "a cancelled then restored date": (_cancelled_then_restored, False),
    "cadence change with kept drift rows": (_cadence_change_with_drift, False),
    "a paused series": (_paused, True),
    "a draft template": (_draft_template, True),
    "a series started in the past": (_started_in_the_past, False),
    "an off-slot dtstart": (_off_slot_dtstart, False),
    "a members-only date in a public series": (_members_only_date, False),
    "extra dates (RDATE) across a DST switch": (_extra_dates, False),
    "extra dates on top of COUNT": (_extra_dates_on_count, True),
}


def _build(name: str, organization: Organization) -> tuple[EventSeries, dt.datetime, dt.datetime]:
    builder, ends = SCENARIOS[name]
    series = builder(organization)
    start, end = window(series)
    return series, start, end + YEAR if ends else end


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_series_feed_expands_to_the_shown_rows(
    scenario: str, consumer: str, organization: Organization
) -> None:
    series, start, end = _build(scenario, organization)
    shown = shown_instances(series)
    assert shown
    assert all(start <= instant < end for instant, _ in shown)

    assert expand(consumer, series_feed(series).body, start, end) == shown


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_organisation_feed_of_every_scenario_expands_to_the_shown_rows(
    consumer: str, organization: Organization
) -> None:
    built = [_build(name, organization) for name in SCENARIOS]
    start = min(start for _, start, _ in built)
    end = min(end for _, _, end in built)
    shown = sorted(
        item for series, _, _ in built for item in shown_instances(series) if start <= item[0] < end
    )
    feed = calendar_feed([series for series, _, _ in built], name="Runners")
    assert len(shown) > 4 * len(built)

    assert expand(consumer, feed.body, start, end) == shown


# A series deleted: what should its feed say so that subscribers' apps drop its dates?
# (a) every VEVENT kept, marked STATUS:CANCELLED; (b) a calendar with no VEVENT.


def _all_cancelled(body: bytes) -> bytes:
    calendar = icalendar.Calendar.from_ical(body)
    for event in calendar.walk("VEVENT"):
        event.pop("STATUS")
        event.add("status", "CANCELLED")
    return calendar.to_ical()


def _empty(name: str) -> bytes:
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//revel-recurring//test//EN")
    calendar.add("version", "2.0")
    calendar.add("name", name)
    calendar.add("x-wr-calname", name)
    return calendar.to_ical()


def test_deleted_series_format(organization: Organization) -> None:
    series, start, end = _build("dates moved by hand", organization)
    shown = shown_instances(series)
    cancelled = _all_cancelled(series_feed(series).body)
    empty = _empty(series.name)
    assert b"STATUS:CONFIRMED" not in cancelled
    assert cancelled.count(b"STATUS:CANCELLED") == cancelled.count(b"BEGIN:VEVENT") == 3
    assert b"BEGIN:VEVENT" not in empty

    read = {
        consumer: expand_many(consumer, [(cancelled, start, end), (empty, start, end)])
        for consumer in CONSUMERS
    }

    # None of the three expands by STATUS: every cancelled date is still listed, at
    # its time, by each of them (each hands the status on to the app: an app that
    # does not act on it keeps showing the dates). The empty calendar reads as no
    # dates in all three.
    assert read == {consumer: [shown, []] for consumer in CONSUMERS}
