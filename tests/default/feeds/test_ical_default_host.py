"""The export on the smallest host (other field names) with the default adapter hooks."""

from __future__ import annotations

import datetime as dt

import icalendar
import pytest
import recurring_ical_events
from django.test import override_settings

from revel_recurring.ical import series_feed
from revel_recurring.models import DeletedSeries
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import delete_series
from tests.support.factories import VIENNA, make_series, occurrences

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=VIENNA)


@override_settings(ALLOWED_HOSTS=[".example.org", "*", "calendar.example.org"])
def test_default_hooks_export_the_mapped_fields() -> None:
    series = make_series(name="Monday yoga", auto_publish=True, weekdays=[0])
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    moved = occurrences(series)[1]
    moved.starts_at += dt.timedelta(hours=2)
    moved.ends_at += dt.timedelta(hours=2)
    moved.save()
    body = series_feed(series).body
    calendar = icalendar.Calendar.from_ical(body)
    master = next(e for e in calendar.walk("VEVENT") if "RRULE" in e)

    expanded = recurring_ical_events.of(calendar).between(
        dt.datetime(2026, 3, 1, tzinfo=dt.UTC), series.last_generated_until
    )

    assert {e["DTSTART"].dt.astimezone(dt.UTC) for e in expanded} == {
        o.starts_at for o in occurrences(series)
    }
    assert {str(e["SUMMARY"]) for e in expanded} == {"Monday yoga"}
    assert master.decoded("DTEND") - master.decoded("DTSTART") == dt.timedelta(hours=1, minutes=30)
    assert str(master["UID"]) == f"revel-recurring-series-{series.pk}@example.org"
    assert "URL" not in master  # the default series URL is relative
    assert "LOCATION" not in master
    assert len([e for e in calendar.walk("VEVENT") if "RECURRENCE-ID" in e]) == 1


def test_a_series_of_drafts_exports_an_empty_calendar() -> None:
    series = make_series(auto_publish=False, weekdays=[0])
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    assert occurrences(series)

    calendar = icalendar.Calendar.from_ical(series_feed(series).body)

    assert list(calendar.walk("VEVENT")) == []
    assert str(calendar["X-WR-CALNAME"]) == series.name


def test_a_deleted_series_is_remembered_without_an_open_feed() -> None:
    series = make_series(name="Monday yoga", auto_publish=True, weekdays=[0])
    generate_series_events(series, now=NOW)
    pk = series.pk

    delete_series(series)

    deleted = DeletedSeries.latest(series_pk=pk)
    assert deleted is not None
    assert (deleted.name, deleted.slug) == ("Monday yoga", "monday-yoga")
    # The smallest host has no visibility field: its feeds are not open to strangers.
    assert deleted.feed_was_open is False
