"""Time-zone data updates (services.zone_data): a government moves its clocks after the
dates were generated.

A Vancouver class at 18:00 every Monday is generated while the zone (a test
time-zone directory, tests/support/zone_files.py) stays at UTC-8; then a tz
release moves it to UTC-7 from the Wednesday of its fourth week on, and the
process loads it (the cache cleared, as a restart does). Its last four Mondays
sit at 19:00 until their dates move; the first four keep theirs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from io import StringIO
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from revel_recurring import rules
from revel_recurring.checks import check_zone_data
from revel_recurring.exceptions import SeriesNotReadyError
from revel_recurring.ical import series_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.beyond_window import materialize_date
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.zone_data import (
    apply_zone_data,
    apply_zone_data_unattended,
    series_changed_by_zone_data,
)
from revel_recurring.tasks import generate_all_series
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import fresh, occurrences
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window
from tests.support.zone_shift import ZONE, clocks_change, first_monday, old_zone_data, wall_hours

pytestmark = pytest.mark.django_db


@pytest.fixture
def zones(tmp_path: Path) -> Iterator[Path]:
    with old_zone_data(tmp_path):
        yield tmp_path


def vancouver_class(name: str = "Evening class", zone: str = ZONE) -> EventSeries:
    first = first_monday().astimezone(ZoneInfo(zone))
    if zone != ZONE:
        first = first.replace(hour=18)
    return create_recurring_series(
        rule_data={"frequency": "WEEKLY", "dtstart": first, "timezone": zone},
        template_data={"title": name, "ends_at": first + dt.timedelta(hours=1)},
        name=name,
        generation_window_weeks=8,
        auto_publish=True,
    )


def hours(series: EventSeries) -> list[int]:
    return wall_hours([e.starts_at for e in occurrences(series)])


def test_generation_stores_the_zone_fingerprint_and_nothing_is_outdated(zones: Path) -> None:
    series = vancouver_class()

    assert fresh(series).zone_fingerprint
    assert hours(series) == [18] * 8
    assert series_changed_by_zone_data() == []
    assert check_zone_data(databases=["default"]) == []


def test_the_report_names_exactly_the_dates_whose_wall_clock_moved(zones: Path) -> None:
    series = vancouver_class()
    vienna = vancouver_class("Vienna class", zone="Europe/Vienna")
    vienna_rows = [(e.pk, e.starts_at) for e in occurrences(vienna)]
    rows = occurrences(series)

    clocks_change(zones)

    assert hours(series) == [18] * 4 + [19] * 4
    [change] = series_changed_by_zone_data()
    assert change.series.pk == series.pk  # the Vienna series is not named
    assert [row.id for row in change.moves] == [row.pk for row in rows[4:]]
    assert [row.moves_to for row in change.moves] == [
        row.starts_at - dt.timedelta(hours=1) for row in rows[4:]
    ]
    assert change.stuck == ()
    warnings = check_zone_data(databases=["default"])
    assert [w.id for w in warnings] == ["revel_recurring.W003"]
    assert "4 of their dates" in warnings[0].msg
    assert f"Evening class ({series.pk})" in warnings[0].msg
    apply_zone_data(series)
    assert [(e.pk, e.starts_at) for e in occurrences(vienna)] == vienna_rows


def test_before_the_fix_nothing_is_stale_and_the_daily_pass_doubles_nothing(
    zones: Path,
) -> None:
    series = vancouver_class()
    before = {(e.pk, e.starts_at) for e in occurrences(series)}
    clocks_change(zones)

    assert detect_cadence_drift(series) == []
    # A week on, the window reaches a new Monday; the last date sits an hour after
    # its new slot, which the run would take for a free date without the hold.
    created = generate_series_events(series.pk, now=timezone.now() + dt.timedelta(days=7))

    assert created == []
    assert {(e.pk, e.starts_at) for e in occurrences(series)} == before
    assert fresh(series).last_generated_until == series.last_generated_until


def test_applying_moves_the_same_rows_to_their_wall_clock_times(zones: Path) -> None:
    series = vancouver_class()
    ids = [e.pk for e in occurrences(series)]
    clocks_change(zones)

    done = apply_zone_data(series)

    assert done is not None
    assert sorted(done.applied.moved) == sorted(ids[4:])
    assert done.applied.created == []
    assert [e.pk for e in occurrences(series)] == ids
    assert hours(series) == [18] * 8
    assert all(e.recurrence_id == e.starts_at for e in occurrences(series))
    assert series_changed_by_zone_data() == []
    assert check_zone_data(databases=["default"]) == []
    # The window moves on as before: one new Monday, no double.
    created = generate_series_events(series.pk, now=timezone.now() + dt.timedelta(days=7))
    assert len(created) == 1
    assert hours(series) == [18] * 9


def test_a_date_moved_by_hand_keeps_its_own_wall_clock_time(zones: Path) -> None:
    series = vancouver_class()
    by_hand = occurrences(series)[5]
    by_hand.starts_at += dt.timedelta(hours=2)  # 20:00 that Monday
    by_hand.is_modified = True
    by_hand.save()
    clocks_change(zones)

    apply_zone_data(series)

    assert wall_hours([Event.objects.get(pk=by_hand.pk).starts_at]) == [20]
    assert len(occurrences(series)) == 8


def test_the_daily_pass_moves_series_without_bookings_and_holds_booked_ones(
    zones: Path,
) -> None:
    free = vancouver_class("Free class")
    booked = vancouver_class("Booked class")
    seat_row = occurrences(booked)[6]
    Seat.objects.create(event=seat_row, label="Row 1", quantity=10, booked=2)
    clocks_change(zones)

    assert apply_zone_data_unattended(mode="none") == []
    done = apply_zone_data_unattended(mode="unbooked")

    assert [item.change.series.pk for item in done] == [free.pk]
    assert hours(free) == [18] * 8
    assert hours(booked) == [18] * 4 + [19] * 4
    [waiting] = series_changed_by_zone_data()
    assert [row.id for row in waiting.booked] == [seat_row.pk]

    done = apply_zone_data_unattended(mode="all")

    assert [item.change.series.pk for item in done] == [booked.pk]
    assert hours(booked) == [18] * 8
    assert Seat.objects.get(event=seat_row).booked == 2


def test_the_command_shows_the_moves_then_applies_them(zones: Path) -> None:
    series = vancouver_class()
    clocks_change(zones)
    out = StringIO()

    call_command("revel_recurring_data", stdout=out)

    text = out.getvalue()
    assert f"Evening class (series {series.pk}): zone {ZONE}, held until applied" in text
    assert "Moves (same rows, new instants): 4" in text
    assert f"revel_recurring_data --series {series.pk} --apply --hash" in text
    assert hours(series) == [18] * 4 + [19] * 4

    out = StringIO()
    call_command("revel_recurring_data", "--apply", stdout=out)

    assert "Moved: 4" in out.getvalue()
    assert hours(series) == [18] * 8
    out = StringIO()
    call_command("revel_recurring_holidays", stdout=out)  # the older name still answers
    assert "holidays" in out.getvalue()


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_the_feeds_show_the_new_times_once_applied(consumer: str, zones: Path) -> None:
    series = vancouver_class()
    clocks_change(zones)
    apply_zone_data(series)
    start, end = window(series)
    expected = shown_instances(series)
    assert wall_hours([instant for instant, _ in expected]) == [18] * 8

    (read,) = expand_many(consumer, [(series_feed(series).body, start, end)])

    assert read == expected


@pytest.mark.parametrize("folded", [True, False], ids=["folded", "pending"])
def test_a_deleted_date_stays_deleted_its_exclusion_following_it(zones: Path, folded: bool) -> None:
    series = vancouver_class()
    rows = occurrences(series)
    gone = rows[5]
    gone.delete()  # a pending exdate, folded into the series' exdates under the lock
    if folded:
        generate_series_events(series.pk)
        assert len(fresh(series).exdates) == 1
    clocks_change(zones)

    [change] = series_changed_by_zone_data()
    assert change.plan.new == ()
    done = apply_zone_data(series)

    assert done is not None
    assert done.applied.created == []
    assert [e.pk for e in occurrences(series)] == [row.pk for row in rows if row.pk != gone.pk]
    assert fresh(series).exdates == [rules.format_instant(gone.starts_at - dt.timedelta(hours=1))]


def test_the_daily_pass_holds_the_series_or_moves_it_first_as_the_setting_says(
    zones: Path, settings: Any
) -> None:
    series = vancouver_class()
    ids = [e.pk for e in occurrences(series)]
    clocks_change(zones)
    week_on = (timezone.now() + dt.timedelta(days=7)).isoformat()

    # The chunk path (the daily pass's own) holds the series: no double near the cursor.
    generate_series_chunk_events([series.pk], now=timezone.now() + dt.timedelta(days=7))
    generate_all_series(now=week_on)

    assert [e.pk for e in occurrences(series)] == ids
    assert hours(series) == [18] * 4 + [19] * 4

    settings.REVEL_RECURRING_ZONE_DATA_AUTO_APPLY = "unbooked"
    generate_all_series(now=week_on)

    assert [e.pk for e in occurrences(series)][:8] == ids
    assert hours(series) == [18] * 9  # moved, then the window reached one more Monday


def test_a_date_booked_beyond_the_window_is_covered_and_moves_with_the_others(
    zones: Path,
) -> None:
    series = vancouver_class()
    ahead = first_monday() + dt.timedelta(weeks=12)  # four weeks past the window
    row = materialize_date(series, ahead).occurrence
    # The release changes the clocks after the window's last date, before that one.
    clocks_change(zones, at=first_monday() + dt.timedelta(weeks=10))

    [change] = series_changed_by_zone_data()
    assert [moved.id for moved in change.moves] == [row.pk]
    with pytest.raises(SeriesNotReadyError):
        materialize_date(series, ahead + dt.timedelta(weeks=1))

    apply_zone_data(series)

    assert wall_hours([Event.objects.get(pk=row.pk).starts_at]) == [18]
    again = materialize_date(series, ahead - dt.timedelta(hours=1))  # 18:00 under UTC-7
    assert (again.occurrence.pk, again.created) == (row.pk, False)


def test_the_command_applies_exactly_the_plan_of_the_hash_it_printed(zones: Path) -> None:
    series = vancouver_class()
    clocks_change(zones)
    [change] = series_changed_by_zone_data()
    Seat.objects.create(event=occurrences(series)[7], label="Row 1", quantity=10, booked=1)
    out = StringIO()

    # A date booked since the plan was printed: its hash no longer matches.
    with pytest.raises(CommandError):
        call_command(
            "revel_recurring_data", "--series", str(series.pk), "--apply",
            "--hash", change.plan.hash, stdout=out,
        )  # fmt: skip

    assert "changed since that plan was made" in out.getvalue()
    assert hours(series) == [18] * 4 + [19] * 4
    [fresh_change] = series_changed_by_zone_data()
    call_command(
        "revel_recurring_data", "--series", str(series.pk), "--apply",
        "--hash", fresh_change.plan.hash, stdout=StringIO(),
    )  # fmt: skip
    assert hours(series) == [18] * 8


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_before_the_fix_the_feeds_show_each_date_once_where_its_row_is(
    consumer: str, zones: Path
) -> None:
    series = vancouver_class()
    clocks_change(zones)
    start, end = window(series)
    expected = shown_instances(series)
    assert wall_hours([instant for instant, _ in expected]) == [18] * 4 + [19] * 4

    (read,) = expand_many(consumer, [(series_feed(series).body, start, end)])

    assert read == expected
