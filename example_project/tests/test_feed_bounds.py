"""What a feed reads: 90 days of the past, the columns the export uses, agreeing validators."""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from example_project.events.models import Event, Organization
from example_project.tests.helpers import tuesday_run
from revel_recurring.ical import calendar_feed, feed_revision, series_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
NOW = dt.datetime(2027, 2, 1, 9, 0, tzinfo=VIENNA)


@pytest.fixture(autouse=True)
def ninety_days(settings: object) -> None:
    settings.REVEL_RECURRING_FEED_PAST_DAYS = 90  # type: ignore[attr-defined]


def _weekly(organization: Organization, *, weeks: int) -> EventSeries:
    """A Tuesday series generated every week for ``weeks`` weeks from NOW (a long history)."""
    series = tuesday_run(organization, "long-run", Event.Visibility.PUBLIC, now=NOW)
    generate_series_events(series, until=NOW + dt.timedelta(weeks=weeks), now=NOW)
    series.refresh_from_db()
    return series


def _expanded(body: bytes, start: dt.datetime, end: dt.datetime) -> list[dt.datetime]:
    calendar = icalendar.Calendar.from_ical(body)
    return sorted(
        event["DTSTART"].dt.astimezone(dt.UTC)
        for event in recurring_ical_events.of(calendar).between(start, end)
    )


def test_a_feed_shows_ninety_days_of_the_past(organization: Organization) -> None:
    series = _weekly(organization, weeks=40)
    later = NOW + dt.timedelta(weeks=30)  # 30 weeks of the series are past by then
    starts = sorted(e.start for e in Event.objects.filter(series=series, is_template=False))
    cutoff = later - dt.timedelta(days=90)

    body = series_feed(series, now=later).body
    shown = _expanded(body, NOW - dt.timedelta(days=1), series.last_generated_until)

    assert shown == [start for start in starts if start >= cutoff]
    assert len(shown) < len(starts)
    master = next(e for e in icalendar.Calendar.from_ical(body).walk("VEVENT") if "RRULE" in e)
    assert master.decoded("DTSTART").astimezone(dt.UTC) == shown[0]
    # Everything is there when the feed is read at NOW.
    everything = _expanded(series_feed(series, now=NOW).body, NOW, series.last_generated_until)
    assert everything == starts


def test_a_series_wholly_older_than_the_bound_exports_nothing(organization: Organization) -> None:
    series = _weekly(organization, weeks=10)
    series.is_active = False  # ended: nothing after its cursor
    series.save(update_fields=["is_active"])
    later = NOW + dt.timedelta(weeks=40)

    calendar = icalendar.Calendar.from_ical(series_feed(series, now=later).body)

    assert calendar.walk("VEVENT") == []


def test_the_validators_agree_with_the_build_when_rows_are_left_out(
    organization: Organization,
) -> None:
    series = _weekly(organization, weeks=40)
    later = NOW + dt.timedelta(weeks=30)
    listed = EventSeries.objects.filter(pk=series.pk)
    # An old row changes: the stamp moves although the row is not shown.
    old = Event.objects.filter(series=series, is_template=False).order_by("start").first()
    assert old is not None
    old.name = "Long Run (renamed)"
    old.save()

    built = calendar_feed([series], name="Runners", now=later)
    revision = feed_revision(listed, name="Runners", now=later)

    assert (revision.etag, revision.last_modified) == (built.etag, built.last_modified)
    # The cutoff is part of the ETag: a day later the body may lose a row.
    next_day = feed_revision(listed, name="Runners", now=later + dt.timedelta(days=1))
    assert next_day.etag != revision.etag


def test_a_feed_reads_only_the_columns_it_exports(organization: Organization) -> None:
    series = _weekly(organization, weeks=4)

    with CaptureQueriesContext(connection) as queries:
        calendar_feed([series], name="Runners", now=NOW)

    table = Event._meta.db_table
    # Quoted as PostgreSQL and SQLite quote (MariaDB's backticks normalised).
    sqls = [q["sql"].replace("`", '"') for q in queries.captured_queries]
    reads = [sql for sql in sqls if f'FROM "{table}"' in sql]
    assert reads
    for sql in reads:
        selected = sql.split(" FROM ")[0]
        for unused in ("capacity", "waitlist_open", "requires_ticket", "check_in_starts_at"):
            assert unused not in selected, sql
    assert any('"address"' in sql.split(" FROM ")[0] for sql in reads)


def test_the_series_url_is_asked_once_per_series_and_build(
    organization: Organization, monkeypatch: pytest.MonkeyPatch
) -> None:
    from example_project.events.adapter import ExampleAdapter

    series = _weekly(organization, weeks=6)
    asked: list[object] = []
    original = ExampleAdapter.get_series_url

    def counting(self: ExampleAdapter, of: EventSeries) -> str:
        asked.append(of.pk)
        return original(self, of)

    monkeypatch.setattr(ExampleAdapter, "get_series_url", counting)
    body = calendar_feed([series], name="Runners", now=NOW).body
    calendar_feed([series], name="Runners", now=NOW)

    assert asked == [series.pk, series.pk]  # once in each build, not once per date
    assert b"URL:http://127.0.0.1:8000/series/long-run/" in body


def _organization_feed(client: Client) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/organizations/runners/calendar.ics")
    return len(queries.captured_queries), response


def test_a_feed_is_built_once_per_revision_with_a_feed_cache(
    organization: Organization, settings: Any
) -> None:
    assert settings.REVEL_RECURRING_FEED_CACHE == "default"
    series = _weekly(organization, weeks=4)
    client = Client()

    built_queries, first = _organization_feed(client)
    cached_queries, second = _organization_feed(client)  # another subscriber, no validators

    assert (first.status_code, second.status_code) == (200, 200)
    assert second.content == first.content
    assert second["ETag"] == first["ETag"]
    assert cached_queries < built_queries
    # The same queries as a 304: the revision only, no event row.
    assert cached_queries == _organization_feed_304_queries(client, first["ETag"])

    renamed = Event.objects.filter(series=series, is_template=False).order_by("start").last()
    assert renamed is not None
    renamed.name = "Renamed run"
    renamed.save()
    _, changed = _organization_feed(client)
    assert changed["ETag"] != first["ETag"]
    assert b"Renamed run" in changed.content


def _organization_feed_304_queries(client: Client, etag: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/organizations/runners/calendar.ics", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    return len(queries.captured_queries)


def test_without_a_feed_cache_every_request_builds(
    organization: Organization, settings: Any
) -> None:
    settings.REVEL_RECURRING_FEED_CACHE = None
    _weekly(organization, weeks=4)
    client = Client()

    built_queries, first = _organization_feed(client)
    again_queries, second = _organization_feed(client)

    assert again_queries == built_queries
    assert second.content == first.content
