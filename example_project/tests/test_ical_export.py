"""The iCalendar export, read back by icalendar and expanded by recurring-ical-events."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events
from django.utils import timezone

from example_project.events.models import Event, Organization
from revel_recurring.ical import calendar_feed, series_feed
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import (
    create_recurring_series,
    pause_series,
    update_series_recurrence,
)

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
NOW = dt.datetime(2027, 2, 1, 9, 0, tzinfo=VIENNA)
# Past the switch to summer time on 2027-03-28: slots on both sides of it.
UNTIL = dt.datetime(2027, 4, 21, 0, 0, tzinfo=VIENNA)
TRICKY_NAME = 'Run, fast; then\\rest\nand "stretch" ' + "é" * 40


def _series(organization: Organization, **options: Any) -> EventSeries:
    start = options.pop("dtstart", dt.datetime(2027, 2, 2, 18, 30, tzinfo=VIENNA))
    rule = {"frequency": "WEEKLY", "weekdays": [1], "timezone": "Europe/Vienna", "dtstart": start}
    if "count" in options:
        rule["count"] = options.pop("count")
    series = create_recurring_series(
        name="Evening Run",
        description="Weekly run",
        rule_data=rule,
        template_data={
            "organization": organization,
            "name": "Evening Run",
            "slug": "evening-run",
            "description": "Meet at the Lusthaus.",
            "start": start,
            "end": start + dt.timedelta(minutes=90),
            "address": "Freudenau 254, 1020 Wien",
            "latitude": "48.198471",
            "longitude": "16.445278",
        },
        auto_publish=options.pop("auto_publish", True),
        generate=False,
        now=NOW,
    )
    generate_series_events(series, until=UNTIL, now=NOW)
    series.refresh_from_db()
    return series


def _on(series: EventSeries, day: dt.date) -> Event:
    return Event.objects.occurrences().get(series=series, start__date=day)


def _expand(body: bytes, start: dt.datetime, end: dt.datetime) -> set[tuple[dt.datetime, str]]:
    calendar = icalendar.Calendar.from_ical(body)
    return {
        (event["DTSTART"].dt.astimezone(dt.UTC), str(event["SUMMARY"]))
        for event in recurring_ical_events.of(calendar).between(start, end)
    }


def _shown(series: EventSeries) -> set[tuple[dt.datetime, str]]:
    rows = Event.objects.occurrences().filter(series=series)
    return {
        (event.start.astimezone(dt.UTC), event.name)
        for event in rows.exclude(status__in=[Event.Status.CANCELLED, Event.Status.DRAFT])
    }


@pytest.fixture
def edited_series(organization: Organization) -> EventSeries:
    """Moved, modified, cancelled, deleted (excluded) and draft occurrences across DST."""
    series = _series(organization)
    moved = _on(series, dt.date(2027, 2, 16))
    moved.start += dt.timedelta(hours=1)
    moved.end += dt.timedelta(hours=1)
    moved.save()
    renamed = _on(series, dt.date(2027, 3, 2))
    renamed.name = TRICKY_NAME
    renamed.save()
    cancel_occurrence(series, dt.datetime(2027, 3, 9, 18, 30, tzinfo=VIENNA), now=NOW)
    _on(series, dt.date(2027, 3, 16)).delete()
    # After the switch: moved to the next day, on summer time.
    after_switch = _on(series, dt.date(2027, 4, 6))
    after_switch.start = dt.datetime(2027, 4, 7, 18, 30, tzinfo=VIENNA)
    after_switch.end = after_switch.start + dt.timedelta(minutes=90)
    after_switch.save()
    drafted = _on(series, dt.date(2027, 4, 13))
    drafted.status = Event.Status.DRAFT
    drafted.save()
    # A slot beyond what is materialized, excluded ahead of time.
    cancel_occurrence(series, dt.datetime(2027, 4, 27, 18, 30, tzinfo=VIENNA), now=NOW)
    series.refresh_from_db()
    return series


def test_expanded_feed_is_exactly_the_shown_occurrences(edited_series: EventSeries) -> None:
    body = series_feed(edited_series).body
    window = (dt.datetime(2027, 1, 1, tzinfo=dt.UTC), UNTIL)

    expanded = _expand(body, *window)

    assert expanded == _shown(edited_series)
    assert len(expanded) == 9  # 12 Tuesdays minus cancelled, deleted and draft
    assert (dt.datetime(2027, 2, 16, 18, 30, tzinfo=dt.UTC), "Evening Run") in expanded
    assert (dt.datetime(2027, 3, 30, 16, 30, tzinfo=dt.UTC), "Evening Run") in expanded
    assert (dt.datetime(2027, 4, 7, 16, 30, tzinfo=dt.UTC), "Evening Run") in expanded
    assert (dt.datetime(2027, 3, 2, 17, 30, tzinfo=dt.UTC), TRICKY_NAME) in expanded


def test_rule_continues_past_the_cursor_without_excluded_slots(
    edited_series: EventSeries,
) -> None:
    body = series_feed(edited_series).body

    later = _expand(body, UNTIL, dt.datetime(2027, 5, 12, tzinfo=dt.UTC))

    assert sorted(start for start, _ in later) == [
        dt.datetime(2027, 5, 4, 16, 30, tzinfo=dt.UTC),
        dt.datetime(2027, 5, 11, 16, 30, tzinfo=dt.UTC),
    ]


def test_feed_structure_follows_rfc_5545(edited_series: EventSeries) -> None:
    body = series_feed(edited_series).body
    calendar = icalendar.Calendar.from_ical(body)
    events = list(calendar.walk("VEVENT"))
    master = next(e for e in events if "RRULE" in e)
    overrides = [e for e in events if "RECURRENCE-ID" in e]

    assert [c.errors for c in calendar.walk()] == [[] for _ in calendar.walk()]
    assert [tz["TZID"] for tz in calendar.walk("VTIMEZONE")] == ["Europe/Vienna"]
    assert b"DTSTART;TZID=Europe/Vienna:20270202T183000\r\n" in body
    assert b"RRULE:FREQ=WEEKLY;BYDAY=TU\r\n" in body
    exdates = [line for line in body.split(b"\r\n") if line.startswith(b"EXDATE")]
    assert exdates == [
        b"EXDATE;TZID=Europe/Vienna:20270309T183000",
        b"EXDATE;TZID=Europe/Vienna:20270316T183000",
        b"EXDATE;TZID=Europe/Vienna:20270413T183000",
        b"EXDATE;TZID=Europe/Vienna:20270427T183000",
    ]
    assert sorted(e.decoded("RECURRENCE-ID").date() for e in overrides) == [
        dt.date(2027, 2, 16),
        dt.date(2027, 3, 2),
        dt.date(2027, 4, 6),
    ]
    assert all(b"RECURRENCE-ID;TZID=Europe/Vienna:" in e.to_ical() for e in overrides)
    assert {e["UID"] for e in events} == {master["UID"]}
    assert str(master["LOCATION"]) == "Freudenau 254, 1020 Wien"
    assert master.decoded("GEO") == (48.198471, 16.445278)
    assert str(master["URL"]).endswith("/series/evening-run/")


def test_feed_text_is_folded_crlf_and_escaped(edited_series: EventSeries) -> None:
    body = series_feed(edited_series).body

    assert body.endswith(b"\r\n")
    lines = body.split(b"\r\n")[:-1]
    assert all(len(line) <= 75 for line in lines)
    assert b"\n" not in body.replace(b"\r\n", b"")
    unfolded = body.replace(b"\r\n ", b"")
    assert b'SUMMARY:Run\\, fast\\; then\\\\rest\\nand "stretch" ' in unfolded
    overrides = icalendar.Calendar.from_ical(body).walk("VEVENT")
    assert TRICKY_NAME in {str(e["SUMMARY"]) for e in overrides}


def _made_an_hour_ago(series: EventSeries) -> EventSeries:
    earlier = timezone.now() - dt.timedelta(hours=1)
    EventSeries.objects.filter(pk=series.pk).update(created_at=earlier, updated_at=earlier)
    RecurrenceRule.objects.filter(series=series).update(created_at=earlier, updated_at=earlier)
    Event.objects.filter(series=series).update(updated_at=earlier)
    series.refresh_from_db()
    return series


def test_uids_are_stable_and_sequence_grows_with_changes(organization: Organization) -> None:
    series = _made_an_hour_ago(_series(organization))
    first = icalendar.Calendar.from_ical(series_feed(series).body)
    again = icalendar.Calendar.from_ical(series_feed(series).body)
    master = next(e for e in first.walk("VEVENT") if "RRULE" in e)

    series.refresh_from_db()
    update_series_recurrence(
        series,
        rule_changes={"until": dt.datetime(2027, 6, 1, tzinfo=VIENNA)},
        now=NOW + dt.timedelta(minutes=5),
    )
    changed = icalendar.Calendar.from_ical(series_feed(series).body)
    changed_master = next(e for e in changed.walk("VEVENT") if "RRULE" in e)

    assert series_feed(series).body != first.to_ical()
    assert first.to_ical() == again.to_ical()
    assert changed_master["UID"] == master["UID"] == f"revel-recurring-series-{series.pk}@127.0.0.1"
    assert changed_master["SEQUENCE"] > master["SEQUENCE"]


def test_drifted_occurrences_are_standalone_events(organization: Organization) -> None:
    series = _moved_to_thursday(organization)
    body = series_feed(series).body
    events = list(icalendar.Calendar.from_ical(body).walk("VEVENT"))
    standalone = [e for e in events if "RRULE" not in e and "RECURRENCE-ID" not in e]

    expanded = _expand(body, dt.datetime(2027, 1, 1, tzinfo=dt.UTC), UNTIL)

    assert expanded == _shown(series)
    assert {e.decoded("DTSTART").weekday() for e in standalone} == {1}
    assert len({e["UID"] for e in standalone}) == len(standalone) > 0
    assert any(start.weekday() == 3 for start, _ in expanded)


def test_drafts_are_never_exported(organization: Organization) -> None:
    series = _series(organization, auto_publish=False)

    body = series_feed(series).body

    assert (
        _expand(
            body, dt.datetime(2027, 1, 1, tzinfo=dt.UTC), dt.datetime(2028, 1, 1, tzinfo=dt.UTC)
        )
        == set()
    )
    published = _on(series, dt.date(2027, 2, 9))
    published.status = Event.Status.OPEN
    published.save()
    assert _expand(
        series_feed(series).body,
        dt.datetime(2027, 1, 1, tzinfo=dt.UTC),
        dt.datetime(2028, 1, 1, tzinfo=dt.UTC),
    ) == {(dt.datetime(2027, 2, 9, 17, 30, tzinfo=dt.UTC), "Evening Run")}


def test_paused_series_ends_at_its_cursor(organization: Organization) -> None:
    series = _series(organization)
    pause_series(series, now=NOW)
    series.refresh_from_db()

    body = series_feed(series).body

    expanded = _expand(
        body, dt.datetime(2027, 1, 1, tzinfo=dt.UTC), dt.datetime(2028, 1, 1, tzinfo=dt.UTC)
    )
    assert expanded == _shown(series)


def test_series_started_in_the_past_is_exported_from_its_first_generated_slot(
    organization: Organization,
) -> None:
    # Generation never creates the past: the slots from December to now have no row.
    series = _series(organization, dtstart=dt.datetime(2026, 12, 1, 18, 30, tzinfo=VIENNA))
    first_row = Event.objects.occurrences().filter(series=series).order_by("start").first()
    assert first_row is not None
    body = series_feed(series).body

    expanded = _expand(body, dt.datetime(2026, 1, 1, tzinfo=dt.UTC), UNTIL)

    assert expanded == _shown(series)
    assert min(start for start, _ in expanded) == first_row.start
    assert b"DTSTART;TZID=Europe/Vienna:20270202T183000\r\n" in body
    assert b"EXDATE" not in body


def test_count_rule_started_in_the_past_keeps_its_last_date(organization: Organization) -> None:
    series = _series(
        organization, dtstart=dt.datetime(2026, 12, 1, 18, 30, tzinfo=VIENNA), count=20
    )
    body = series_feed(series).body

    expanded = _expand(
        body, dt.datetime(2026, 1, 1, tzinfo=dt.UTC), dt.datetime(2028, 1, 1, tzinfo=dt.UTC)
    )

    # 20 Tuesdays from 1 December 2026: the last on 13 April 2027 (summer time).
    assert max(start for start, _ in expanded) == dt.datetime(2027, 4, 13, 16, 30, tzinfo=dt.UTC)
    assert len(expanded) == 11  # 2 February to 13 April; the nine before were never generated
    assert b"COUNT" not in body


def test_organisation_feed_holds_every_series(organization: Organization) -> None:
    first = _series(organization)
    second = create_recurring_series(
        name="Sunday Swim",
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [6],
            "timezone": "America/New_York",
            "dtstart": dt.datetime(2027, 2, 7, 8, 0, tzinfo=ZoneInfo("America/New_York")),
        },
        template_data={
            "organization": organization,
            "name": "Swim",
            "slug": "swim",
            "end": dt.datetime(2027, 2, 7, 9, 0, tzinfo=ZoneInfo("America/New_York")),
        },
        auto_publish=True,
        now=NOW,
    )

    feed = calendar_feed([first, second], name="Runners")
    calendar = icalendar.Calendar.from_ical(feed.body)

    assert {tz["TZID"] for tz in calendar.walk("VTIMEZONE")} == {
        "Europe/Vienna",
        "America/New_York",
    }
    assert str(calendar["X-WR-CALNAME"]) == "Runners"
    expanded = _expand(feed.body, dt.datetime(2027, 1, 1, tzinfo=dt.UTC), UNTIL)
    assert {name for _, name in expanded} == {"Evening Run", "Swim"}
    assert feed.etag == calendar_feed([first, second], name="Runners").etag
    assert feed.last_modified is not None
    assert feed.last_modified >= max(first.updated_at, second.updated_at)


def _expand_list(
    body: bytes, start: dt.datetime, end: dt.datetime
) -> list[tuple[dt.datetime, str]]:
    """Every expanded instance, duplicates kept: a date shown twice must fail."""
    calendar = icalendar.Calendar.from_ical(body)
    return sorted(
        (event["DTSTART"].dt.astimezone(dt.UTC), str(event["SUMMARY"]))
        for event in recurring_ical_events.of(calendar).between(start, end)
    )


def _shown_list(series: EventSeries) -> list[tuple[dt.datetime, str]]:
    rows = Event.objects.occurrences().filter(series=series)
    return sorted(
        (event.start.astimezone(dt.UTC), event.name)
        for event in rows.exclude(status__in=[Event.Status.CANCELLED, Event.Status.DRAFT])
    )


WIDE = (dt.datetime(2026, 1, 1, tzinfo=dt.UTC), UNTIL)


def test_dtstart_off_the_rule_is_not_exported_as_a_date(organization: Organization) -> None:
    # From Tuesday 2 February on a Monday/Wednesday rule: the Tuesday is no date.
    start = dt.datetime(2027, 2, 2, 18, 30, tzinfo=VIENNA)
    series = create_recurring_series(
        name="Evening Run",
        rule_data={
            "frequency": "WEEKLY",
            "weekdays": [0, 2],
            "timezone": "Europe/Vienna",
            "dtstart": start,
        },
        template_data={
            "organization": organization,
            "name": "Evening Run",
            "slug": "evening-run",
            "start": start,
            "end": start + dt.timedelta(minutes=90),
        },
        auto_publish=True,
        generate=False,
        now=NOW,
    )
    generate_series_events(series, until=UNTIL, now=NOW)
    series.refresh_from_db()
    body = series_feed(series).body

    expanded = _expand_list(body, *WIDE)

    assert expanded == _shown_list(series)
    assert expanded[0][0] == dt.datetime(2027, 2, 3, 17, 30, tzinfo=dt.UTC)
    assert b"DTSTART;TZID=Europe/Vienna:20270203T183000\r\n" in body


def _moved_to_thursday(organization: Organization) -> EventSeries:
    """Tuesdays to Thursdays, ending before the last Thursday: each Tuesday moves to its
    week's Thursday but the last, whose Thursday is past the end: it stays, off the rule."""
    series = _series(organization)
    update_series_recurrence(series, rule_changes={"weekdays": [3], "until": UNTIL}, now=NOW)
    series.refresh_from_db()
    generate_series_events(series, until=UNTIL, now=NOW)
    series.refresh_from_db()
    return series


def test_cadence_change_shows_each_kept_tuesday_once(organization: Organization) -> None:
    series = _moved_to_thursday(organization)
    shown = _shown_list(series)
    assert any(start.weekday() == 1 for start, _ in shown)  # drift rows kept

    expanded = _expand_list(series_feed(series).body, *WIDE)

    assert expanded == shown
    assert len(expanded) == len(set(expanded))


def test_cancelled_stale_dates_stay_away(organization: Organization) -> None:
    series = _moved_to_thursday(organization)
    cancel_stale_occurrences(series, now=NOW)
    series.refresh_from_db()
    shown = _shown_list(series)
    assert shown
    assert all(start.weekday() == 3 for start, _ in shown)

    expanded = _expand_list(series_feed(series).body, *WIDE)

    assert expanded == shown


def test_refresh_interval_and_published_ttl_are_durations(organization: Organization) -> None:
    body = series_feed(_series(organization)).body
    lines = body.split(b"\r\n")

    assert b"REFRESH-INTERVAL;VALUE=DURATION:PT1H" in lines
    assert b"X-PUBLISHED-TTL:PT1H" in lines
    assert sum(line.startswith(b"X-PUBLISHED-TTL") for line in lines) == 1


def test_time_zone_switches_are_one_rdate_per_line(organization: Organization) -> None:
    series = _series(organization)
    horizon = dt.datetime(2028, 1, 20, tzinfo=VIENNA)  # a year ahead: both 2027 switches
    generate_series_events(series, until=horizon, now=NOW)
    series.refresh_from_db()
    body = series_feed(series).body
    zone_text = body[body.index(b"BEGIN:VTIMEZONE") : body.index(b"END:VTIMEZONE")]
    rdates = [line for line in zone_text.split(b"\r\n") if line.startswith(b"RDATE")]

    # ical.js reads only the first date of a list: every switch has its own line.
    assert rdates
    assert all(b"," not in line for line in rdates)
    # Spring switches (last Sunday of March) of 2027 to 2029 at least, each once.
    for spring in (b"20270328", b"20280326", b"20290325"):
        assert sum(spring in line for line in rdates) == 1
    zone = icalendar.Calendar.from_ical(body).walk("VTIMEZONE")[0].to_tz()
    for summer in (dt.datetime(2027, 7, 6, 18, 30), dt.datetime(2029, 7, 3, 18, 30)):
        assert summer.replace(tzinfo=zone).utcoffset() == dt.timedelta(hours=2)
    for winter in (dt.datetime(2028, 1, 4, 18, 30), dt.datetime(2029, 12, 4, 18, 30)):
        assert winter.replace(tzinfo=zone).utcoffset() == dt.timedelta(hours=1)
    # Still expanded across both switches of 2027 to exactly the rows.
    expanded = _expand_list(body, dt.datetime(2027, 1, 1, tzinfo=dt.UTC), horizon)
    assert expanded == _shown_list(series)
    offsets = {start.astimezone(VIENNA).utcoffset() for start, _ in expanded}
    assert offsets == {dt.timedelta(hours=1), dt.timedelta(hours=2)}
    assert {start.astimezone(VIENNA).time() for start, _ in expanded} == {dt.time(18, 30)}
