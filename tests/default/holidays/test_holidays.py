"""Holiday rules over two years of AT, DE-BY and US-NY holidays: skip, shift, overrides, plans.

What each test expects is worked out here, independently of the code under
test: the holidays come from the ``holidays`` package itself
(``country_holidays``), the dates of a rule are counted out day by day (a
weekday, a day of the month, the first Monday), and a shifted date is placed
by the rule of docs/decisions/0037-holiday-rules.md written out again below
(:func:`shifted`). Generation runs as the daily pass would, with a long window:
``until`` at most ``REVEL_RECURRING_MAX_WINDOW_WEEKS`` (52) after each ``now``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import holidays
import icalendar
import pytest
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from revel_recurring.exceptions import NotCancelledError
from revel_recurring.holiday_placement import SHIFT_REACH
from revel_recurring.ical import calendar_feed, feed_revision, series_feed
from revel_recurring.ical.responses import revision_response
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.plans import (
    ExcludedBecause,
    apply_recurrence_plan,
    current_drift,
    plan_recurrence_change,
)
from revel_recurring.services.toolbox.locking import lock_series_chunk
from tests.hosts.testapp.models import Event
from tests.support.factories import fresh, make_series, occurrences
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window

pytestmark = pytest.mark.django_db

UTC = dt.UTC
CALLED_OFF = Event.RECURRING_STATUS_CANCELLED
WEEKEND = {5, 6}  # Saturday and Sunday, the weekend of all three calendars
SEARCH_DAYS = 7  # how far a shift looks for a free day (decision 0037)


@dataclass(frozen=True)
class Region:
    code: str
    country: str
    subdivision: str
    zone: str

    @property
    def settings(self) -> dict[str, Any]:
        return {"country": self.country, "subdivision": self.subdivision}

    def holidays(self, years: Iterable[int] = range(2025, 2030)) -> dict[dt.date, str]:
        """The package's own holidays of the region, read directly."""
        found = holidays.country_holidays(
            self.country, subdiv=self.subdivision or None, years=list(years)
        )
        return dict(found.items())


REGIONS = {
    region.code: region
    for region in (
        Region("AT", "AT", "", "Europe/Vienna"),
        Region("DE-BY", "DE", "BY", "Europe/Berlin"),
        Region("US-NY", "US", "NY", "America/New_York"),
    )
}

# The two years compared; the rules start on the first of them (a Thursday).
FIRST_DAY, LAST_DAY = dt.date(2026, 1, 1), dt.date(2027, 12, 31)
WALL_CLOCK = dt.time(18, 0)
NOW = dt.datetime(2025, 12, 31, 12, 0, tzinfo=UTC)
# (now, until) of each run: each until 52 weeks at most after its now, the last
# one past the two years so that a date shifted out of 2027 is there too.
RUNS = (
    (NOW, NOW + dt.timedelta(weeks=52)),
    (NOW + dt.timedelta(weeks=52), NOW + dt.timedelta(weeks=104)),
    (NOW + dt.timedelta(weeks=104), dt.datetime(2028, 1, 20, tzinfo=UTC)),
)


@dataclass(frozen=True)
class Cadence:
    """A rule's fields and, independently of revel_recurring.rules, which days it falls on."""

    fields: dict[str, Any]
    falls_on: Callable[[dt.date], bool]


CADENCES = {
    "mon-thu": Cadence(
        {"frequency": "WEEKLY", "weekdays": [0, 3]}, lambda day: day.weekday() in (0, 3)
    ),
    "mon-wed-fri": Cadence(
        {"frequency": "WEEKLY", "weekdays": [0, 2, 4]}, lambda day: day.weekday() in (0, 2, 4)
    ),
    "daily": Cadence({"frequency": "DAILY"}, lambda day: True),
    "monthly-on-the-1st": Cadence(
        {"frequency": "MONTHLY", "monthly_type": "DAY_OF_MONTH", "day_of_month": 1},
        lambda day: day.day == 1,
    ),
    "monthly-first-monday": Cadence(
        {"frequency": "MONTHLY", "monthly_type": "NTH_WEEKDAY", "nth_weekday": 1, "weekday": 0},
        lambda day: day.weekday() == 0 and day.day <= 7,
    ),
}


def days(first: dt.date, last: dt.date) -> list[dt.date]:
    return [first + dt.timedelta(days=n) for n in range((last - first).days + 1)]


def rule_days(cadence: Cadence, first: dt.date, last: dt.date) -> list[dt.date]:
    """The days of the rule from ``first`` to ``last``, counted out one by one."""
    return [day for day in days(first, last) if cadence.falls_on(day)]


def shifted(
    dates: list[dt.date], closed: Callable[[dt.date], bool]
) -> dict[dt.date, dt.date | None]:
    """Decision 0037's shift, written out again: date -> the day it takes place (None: skipped).

    In date order, a date on a holiday moves to the first of the next seven days
    that is no holiday, holds no date of the series and no date moved there
    before, and, for a date on a working day, is no weekend day.
    """
    taken = set(dates)
    placed: dict[dt.date, dt.date | None] = {}
    for day in dates:
        if not closed(day):
            placed[day] = day
            continue
        placed[day] = None
        for step in range(1, SEARCH_DAYS + 1):
            candidate = day + dt.timedelta(days=step)
            if candidate in taken or closed(candidate):
                continue
            if day.weekday() not in WEEKEND and candidate.weekday() in WEEKEND:
                continue
            placed[day] = candidate
            taken.add(candidate)
            break
    return placed


def expected_days(
    region: Region, cadence: Cadence, policy: str, *, first: dt.date = FIRST_DAY
) -> dict[dt.date, dt.date]:
    """Slot day -> day the date takes place, for the slots of the two years that take place."""
    closed = region.holidays()
    # The rule's days a little past the two years: a date late in 2027 may move
    # into 2028, and the days there are taken by the rule's own dates.
    every = rule_days(cadence, first, LAST_DAY + dt.timedelta(days=30))
    if policy == "skip":
        placed: dict[dt.date, dt.date | None] = {
            day: None if day in closed else day for day in every
        }
    else:
        placed = shifted(every, closed.__contains__)
    return {slot: day for slot, day in placed.items() if slot <= LAST_DAY and day is not None}


def local(instant: dt.datetime, zone: str) -> dt.datetime:
    return instant.astimezone(ZoneInfo(zone))


def holiday_series(
    region: Region,
    cadence: Cadence,
    policy: str,
    *,
    first: dt.date = FIRST_DAY,
    name: str = "Evening class",
    now: dt.datetime = NOW,
    auto_publish: bool = False,
    window_weeks: int = 8,
    generate: bool = False,
) -> EventSeries:
    """A series of ``cadence`` at 18:00 local time from its first day on or after ``first``."""
    day = next(day for day in days(first, first + dt.timedelta(days=40)) if cadence.falls_on(day))
    start = dt.datetime.combine(day, WALL_CLOCK, tzinfo=ZoneInfo(region.zone))
    return create_recurring_series(
        rule_data={**cadence.fields, "dtstart": start, "timezone": region.zone},
        template_data={
            "title": name,
            "venue": "Studio 2",
            "capacity": 20,
            "ends_at": start + dt.timedelta(hours=1),
        },
        name=name,
        auto_publish=auto_publish,
        generation_window_weeks=window_weeks,
        generate=generate,
        holidays={**region.settings, "policy": policy},
        now=now,
    )


def run_daily_pass(
    series: EventSeries, runs: Iterable[tuple[dt.datetime, dt.datetime]] = RUNS
) -> None:
    for now, until in runs:
        generate_series_events(series, until=until, now=now)


def placed_rows(series: EventSeries, zone: str) -> dict[dt.date, dt.datetime]:
    """Slot day -> local start of each live row, asserting one row per slot."""
    rows = [e for e in occurrences(series) if e.state != CALLED_OFF]
    found = {local(e.recurrence_id, zone).date(): local(e.starts_at, zone) for e in rows}
    assert len(found) == len(rows), "two rows stand for one slot"
    return found


def in_two_years(found: dict[dt.date, dt.datetime]) -> dict[dt.date, dt.datetime]:
    return {slot: start for slot, start in found.items() if FIRST_DAY <= slot <= LAST_DAY}


@pytest.mark.parametrize("cadence_name", list(CADENCES))
@pytest.mark.parametrize("region_code", list(REGIONS))
def test_skip_materializes_no_date_on_a_holiday_over_two_years(
    region_code: str, cadence_name: str
) -> None:
    region, cadence = REGIONS[region_code], CADENCES[cadence_name]
    closed = region.holidays()
    series = holiday_series(region, cadence, "skip")

    run_daily_pass(series)

    found = in_two_years(placed_rows(series, region.zone))
    expected = expected_days(region, cadence, "skip")
    assert sorted(found) == sorted(expected)
    assert all(start.date() == slot for slot, start in found.items())
    assert not [start for start in found.values() if start.date() in closed]
    # The rule does meet holidays here: the test is not vacuous.
    assert any(day in closed for day in rule_days(cadence, FIRST_DAY, LAST_DAY))
    assert {start.time() for start in found.values()} == {WALL_CLOCK}
    series.refresh_from_db()
    assert series.holidays_version == holidays.__version__


@pytest.mark.parametrize("cadence_name", list(CADENCES))
@pytest.mark.parametrize("region_code", list(REGIONS))
def test_shift_materializes_each_moved_date_once_on_a_free_day_over_two_years(
    region_code: str, cadence_name: str
) -> None:
    region, cadence = REGIONS[region_code], CADENCES[cadence_name]
    closed = region.holidays()
    series = holiday_series(region, cadence, "shift")

    run_daily_pass(series)

    every = placed_rows(series, region.zone)
    found = in_two_years(every)
    expected = expected_days(region, cadence, "shift")
    assert {slot: start.date() for slot, start in found.items()} == expected
    # Exactly once: no two rows on one local day, over everything generated.
    starts = [start.date() for start in every.values()]
    assert len(starts) == len(set(starts))
    series_days = set(rule_days(cadence, FIRST_DAY, LAST_DAY + dt.timedelta(days=30)))
    moved = {slot: start for slot, start in found.items() if start.date() != slot}
    for slot, start in moved.items():
        assert slot in closed
        assert start.date() not in series_days, f"{slot} moved onto a date of the series"
        assert start.date() not in closed, f"{slot} moved onto a holiday"
        assert 0 < (start.date() - slot).days <= SEARCH_DAYS
        if slot.weekday() not in WEEKEND:
            assert start.weekday() not in WEEKEND, f"working day {slot} moved onto a weekend"
    # Same wall-clock time on both sides of the switches to and from summer time.
    assert {start.time() for start in found.values()} == {WALL_CLOCK}
    assert len({start.utcoffset() for start in found.values()}) == 2
    if cadence_name == "daily":
        # Every day is a date of a daily class: nowhere to go, every holiday is skipped.
        assert moved == {}
        assert set(expected) == set(rule_days(cadence, FIRST_DAY, LAST_DAY)) - set(closed)
    else:
        assert moved, "no date was moved: the test would prove nothing"


@pytest.mark.parametrize("region_code", ["DE-BY", "US-NY"])
def test_a_daily_pass_with_an_eight_week_window_places_what_one_long_run_does(
    region_code: str,
) -> None:
    region, cadence = REGIONS[region_code], CADENCES["mon-wed-fri"]
    long_run = holiday_series(region, cadence, "shift", name="Long")
    daily = holiday_series(region, cadence, "shift", name="Daily")

    generate_series_events(long_run, until=NOW + dt.timedelta(weeks=52), now=NOW)
    # Every third day, then once more so that its last window ends where the long run's does.
    for day in [*range(0, 44 * 7, 3), 44 * 7]:
        generate_series_events(daily, now=NOW + dt.timedelta(days=day))

    assert placed_rows(daily, region.zone) == placed_rows(long_run, region.zone)


def test_shift_rows_keep_their_slot_as_recurrence_id() -> None:
    region = REGIONS["AT"]
    series = holiday_series(region, CADENCES["mon-thu"], "shift")
    run_daily_pass(series, RUNS[:1])
    zone = ZoneInfo(region.zone)
    by_slot = {e.recurrence_id: e for e in occurrences(series)}
    # Easter Monday 2026 (6 April) takes place on Tuesday 7 April; Ascension Day
    # (Thursday 14 May) on Friday 15 May.
    for holiday, day in ((dt.date(2026, 4, 6), 7), (dt.date(2026, 5, 14), 15)):
        slot = dt.datetime.combine(holiday, WALL_CLOCK, tzinfo=zone)
        row = by_slot[slot]
        assert row.starts_at == slot.replace(day=day)
        assert row.ends_at - row.starts_at == dt.timedelta(hours=1)
        assert row.recurrence_id == slot


def vienna(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, WALL_CLOCK, tzinfo=ZoneInfo("Europe/Vienna"))


# Mondays and Thursdays in Vienna, generated on 1 March 2026 for eight weeks (to
# 26 April): Easter Monday (6 April) is in that window, Ascension Day (Thursday
# 14 May), Whit Monday (25 May) and Corpus Christi (Thursday 4 June) come later.
SPRING = dt.datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
EASTER_MONDAY = vienna(dt.date(2026, 4, 6))
LATER_HOLIDAYS = [vienna(dt.date(2026, 5, 14)), vienna(dt.date(2026, 5, 25))]


def vienna_class(policy: str, *, now: dt.datetime = SPRING, **options: Any) -> EventSeries:
    return holiday_series(
        REGIONS["AT"], CADENCES["mon-thu"], policy, first=dt.date(2026, 3, 2), now=now, **options
    )


def weekly_passes(series: EventSeries, weeks: int, *, since: dt.datetime = SPRING) -> None:
    """The daily pass, once a week for ``weeks`` weeks after ``since``."""
    for week in range(1, weeks + 1):
        generate_series_events(series, now=since + dt.timedelta(weeks=week))


def rows_by_slot(series: EventSeries) -> dict[dt.datetime, Event]:
    rows = occurrences(series)
    found = {row.recurrence_id: row for row in rows}
    assert len(found) == len(rows)
    return found


def test_restoring_a_skipped_holiday_makes_it_take_place_and_later_runs_keep_it() -> None:
    series = vienna_class("skip", generate=True)
    assert EASTER_MONDAY not in rows_by_slot(series)

    assert restore_occurrence(series, EASTER_MONDAY, now=SPRING) is None
    generate_series_events(series, now=SPRING)

    row = rows_by_slot(series)[EASTER_MONDAY]
    assert (row.starts_at, row.state) == (EASTER_MONDAY, Event.RECURRING_STATUS_DRAFT)
    assert fresh(series).holidays_kept == ["2026-04-06T16:00:00Z"]
    weekly_passes(series, 14)
    found = rows_by_slot(series)
    assert found[EASTER_MONDAY].pk == row.pk
    assert [slot for slot in LATER_HOLIDAYS if slot in found] == []
    assert vienna(dt.date(2026, 5, 18)) in found  # the pass did reach past them
    # Restored on purpose: a later switch to shift leaves it on the holiday.
    moment = SPRING + dt.timedelta(days=7)
    plan = plan_recurrence_change(series, {"holidays": {"policy": "shift"}}, now=moment)
    assert row.pk in {stay.id for stay in plan.stay}
    assert plan.drift == ()
    apply_recurrence_plan(
        series, plan.hash, {"holidays": {"policy": "shift"}}, cancel_drift="all", now=moment
    )
    assert Event.objects.get(pk=row.pk).starts_at == EASTER_MONDAY


def test_restoring_a_date_no_holiday_skips_is_refused_as_before() -> None:
    series = vienna_class("skip", generate=True)
    with pytest.raises(NotCancelledError):
        restore_occurrence(series, vienna(dt.date(2026, 3, 9)), now=SPRING)
    assert fresh(series).holidays_kept == []


@pytest.mark.parametrize("policy", ["skip", "shift"])
def test_cancelling_a_working_day_removes_it_and_moves_nothing_else(policy: str) -> None:
    series = vienna_class(policy, generate=True)
    before = {slot: row.starts_at for slot, row in rows_by_slot(series).items()}
    thursday = vienna(dt.date(2026, 3, 12))

    cancelled = cancel_occurrence(series, thursday, now=SPRING)

    assert cancelled is not None
    assert cancelled.state == CALLED_OFF
    weekly_passes(series, 2)
    after = rows_by_slot(series)
    assert after[thursday].state == CALLED_OFF
    assert {slot: row.starts_at for slot, row in after.items() if slot in before} == before
    assert current_drift(series, now=SPRING) == ()
    # The day of a cancelled date is still the series' own: a shift never lands on it.
    easter = after.get(EASTER_MONDAY)
    if policy == "shift":
        assert easter is not None
        assert easter.starts_at == vienna(dt.date(2026, 4, 7))
    else:
        assert easter is None


def test_a_shifted_date_is_cancelled_by_its_new_day_and_restored_by_its_slot() -> None:
    series = vienna_class("shift", generate=True)
    tuesday = vienna(dt.date(2026, 4, 7))

    row = cancel_occurrence(series, tuesday, now=SPRING)

    assert row is not None
    assert (row.recurrence_id, row.state) == (EASTER_MONDAY, CALLED_OFF)
    weekly_passes(series, 2)
    assert [e.starts_at for e in occurrences(series) if e.starts_at.date() == tuesday.date()] == [
        tuesday
    ]
    restored = restore_occurrence(series, EASTER_MONDAY, now=SPRING)
    assert restored is not None
    assert (restored.pk, restored.starts_at, restored.state) == (
        row.pk,
        tuesday,
        Event.RECURRING_STATUS_DRAFT,
    )
    # Restoring a shifted date is no "keep it on the holiday".
    assert fresh(series).holidays_kept == []


@pytest.mark.parametrize("policy", ["skip", "shift"])
def test_extra_dates_on_a_holiday_stay_and_a_shift_passes_over_them(policy: str) -> None:
    series = vienna_class(policy)
    labour_day = vienna(dt.date(2026, 5, 1))  # Friday, Staatsfeiertag
    tuesday = vienna(dt.date(2026, 4, 7))  # where Easter Monday would go
    for extra in (labour_day, tuesday):
        add_extra_date(series, extra, now=SPRING)

    generate_series_events(series, until=SPRING + dt.timedelta(weeks=20), now=SPRING)

    found = {slot: row.starts_at for slot, row in rows_by_slot(series).items()}
    assert (found[labour_day], found[tuesday]) == (labour_day, tuesday)
    if policy == "shift":
        assert found[EASTER_MONDAY] == vienna(dt.date(2026, 4, 8))
    else:
        assert EASTER_MONDAY not in found
    other = "shift" if policy == "skip" else "skip"
    plan = plan_recurrence_change(series, {"holidays": {"policy": other}}, now=SPRING)
    assert {labour_day, tuesday} <= {row.start for row in plan.stay}


def starts_of(series: EventSeries, zone: str = "Europe/Vienna") -> dict[dt.date, dt.datetime]:
    return placed_rows(series, zone)


def test_switching_skip_to_shift_creates_exactly_the_planned_dates() -> None:
    series = vienna_class("skip", window_weeks=26)
    reference = vienna_class("shift", window_weeks=26, name="Reference")
    for item in (series, reference):
        generate_series_events(item, until=SPRING + dt.timedelta(weeks=40), now=SPRING)
    moment = SPRING + dt.timedelta(days=3)
    changes = {"holidays": {"policy": "shift"}}

    plan = plan_recurrence_change(series, changes, now=moment)
    applied = apply_recurrence_plan(series, plan.hash, changes, cancel_drift="all", now=moment)

    assert plan.drift == ()
    assert applied.cancelled == []
    assert [date.start for date in plan.new] == [row.starts_at for row in applied.created]
    # Easter Monday, Ascension Day, Whit Monday and Corpus Christi, each a day later.
    assert [(date.shifted_from, date.local.date()) for date in plan.new] == [
        (vienna(day), day + dt.timedelta(days=1))
        for day in (
            dt.date(2026, 4, 6),
            dt.date(2026, 5, 14),
            dt.date(2026, 5, 25),
            dt.date(2026, 6, 4),
        )
    ]
    assert [date.holiday for date in plan.new] == [
        "Easter Monday",
        "Ascension Day",
        "Pentecost Monday",
        "Corpus Christi",
    ]
    assert [row.recurrence_id for row in applied.created] == [d.shifted_from for d in plan.new]
    # The daily pass goes on from there: the rows end up as a series that shifted all along.
    for item in (series, reference):
        generate_series_events(item, until=SPRING + dt.timedelta(weeks=52), now=moment)
    assert starts_of(series) == starts_of(reference)


def test_switching_shift_to_skip_cancels_exactly_the_planned_drift() -> None:
    series = vienna_class("shift", window_weeks=26)
    reference = vienna_class("skip", window_weeks=26, name="Reference")
    for item in (series, reference):
        generate_series_events(item, until=SPRING + dt.timedelta(weeks=40), now=SPRING)
    moved = [row for row in occurrences(series) if row.starts_at != row.recurrence_id]
    # Easter Monday, Ascension Day, Whit Monday, Corpus Christi, National Day (26 October).
    assert len(moved) == 5
    moment = SPRING + dt.timedelta(days=3)
    changes = {"holidays": {"policy": "skip"}}

    plan = plan_recurrence_change(series, changes, now=moment)
    applied = apply_recurrence_plan(series, plan.hash, changes, cancel_drift="all", now=moment)

    assert [row.id for row in plan.drift] == [row.pk for row in moved]
    assert applied.cancelled == [row.id for row in plan.drift]
    assert plan.new == ()
    assert applied.created == []
    assert {date.start for date in plan.excluded if date.reason is ExcludedBecause.HOLIDAY} >= {
        row.recurrence_id for row in moved[:4]
    }
    live = {slot: start for slot, start in starts_of(series).items()}
    assert live == starts_of(reference)
    assert current_drift(series, now=moment) == ()


def _in_savepoint(work: Callable[[], Any]) -> Any:
    with transaction.atomic():
        result = work()
        transaction.set_rollback(True)
    return result


PROPERTIES = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@PROPERTIES
@given(
    region_code=st.sampled_from(["AT", "US-NY"]),
    weekdays=st.lists(st.integers(0, 6), unique=True, min_size=1, max_size=6),
    first=st.dates(FIRST_DAY, LAST_DAY),
)
def test_shift_never_doubles_a_day_nor_lands_on_a_holiday(
    region_code: str, weekdays: list[int], first: dt.date
) -> None:
    region = REGIONS[region_code]
    closed = region.holidays()
    cadence = Cadence(
        {"frequency": "WEEKLY", "weekdays": sorted(weekdays)}, lambda day: day.weekday() in weekdays
    )

    def work() -> None:
        now = dt.datetime.combine(first, dt.time(), tzinfo=UTC) - dt.timedelta(days=1)
        until = now + dt.timedelta(weeks=52)
        series = holiday_series(region, cadence, "shift", first=first, now=now)
        generate_series_events(series, until=until, now=now)
        found = placed_rows(series, region.zone)
        starts = sorted(start.date() for start in found.values())
        assert len(starts) == len(set(starts)), "two dates on one day"
        assert not [day for day in starts if day in closed], "a date on a holiday"
        # The slots generation reached; the days of the rule beyond them are taken too.
        slots = rule_days(cadence, first, until.date() - dt.timedelta(days=1))
        taken = set(rule_days(cadence, first, until.date() + SHIFT_REACH)) | set(starts)
        for slot in slots:
            if slot not in closed:
                assert found[slot].date() == slot
            elif slot in found:
                assert 0 < (found[slot].date() - slot).days <= SEARCH_DAYS
            else:
                # Skipped: none of the next seven days was free for it.
                reach = [slot + dt.timedelta(days=n) for n in range(1, SEARCH_DAYS + 1)]
                free = [
                    day
                    for day in reach
                    if day not in taken
                    and day not in closed
                    and not (slot.weekday() not in WEEKEND and day.weekday() in WEEKEND)
                ]
                assert free == [], f"{slot} skipped though {free} were free"

    _in_savepoint(work)


def test_a_date_shifted_from_a_slot_just_past_to_a_day_ahead_is_generated() -> None:
    # Easter Monday evening: the Monday class is past, its date on Tuesday is not.
    evening = EASTER_MONDAY + dt.timedelta(hours=2)
    tuesday = vienna(dt.date(2026, 4, 7))
    series = vienna_class("shift", generate=True, now=evening)

    found = rows_by_slot(series)
    assert found[EASTER_MONDAY].starts_at == tuesday
    assert min(row.starts_at for row in found.values()) == tuesday
    assert len(generate_series_events(series, now=evening + dt.timedelta(hours=1))) == 0

    # Switching to shift that evening plans the Tuesday, and applying creates it.
    skipping = vienna_class("skip", generate=True, now=evening, name="Skipping")
    changes = {"holidays": {"policy": "shift"}}
    plan = plan_recurrence_change(skipping, changes, now=evening)
    assert (plan.new[0].start, plan.new[0].shifted_from) == (tuesday, EASTER_MONDAY)
    applied = apply_recurrence_plan(skipping, plan.hash, changes, now=evening)
    assert [row.starts_at for row in applied.created] == [date.start for date in plan.new]
    assert rows_by_slot(skipping)[EASTER_MONDAY].starts_at == tuesday


def _feed_dates(body: bytes) -> tuple[set[dt.datetime], dict[dt.datetime, dt.datetime]]:
    """The EXDATEs of the feed's rule and its overrides (RECURRENCE-ID -> DTSTART)."""
    exdates: set[dt.datetime] = set()
    overrides: dict[dt.datetime, dt.datetime] = {}
    for component in icalendar.Calendar.from_ical(body).walk("VEVENT"):
        if "RRULE" in component:
            lines = component.get("EXDATE", [])
            for line in lines if isinstance(lines, list) else [lines]:
                exdates |= {value.dt for value in line.dts}
        elif "RECURRENCE-ID" in component:
            overrides[component["RECURRENCE-ID"].dt] = component["DTSTART"].dt  # type: ignore[index,assignment]
    return exdates, overrides


def _published(policy: str, name: str) -> EventSeries:
    series = vienna_class(policy, auto_publish=True, name=name)
    generate_series_events(series, until=SPRING + dt.timedelta(weeks=40), now=SPRING)
    return series


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_feeds_of_skip_and_shift_series_expand_to_exactly_their_rows(consumer: str) -> None:
    skipping, shifting = _published("skip", "Skipping"), _published("shift", "Shifting")
    # Per-date overrides in the feed too: one holiday kept, one working day cancelled.
    restore_occurrence(skipping, vienna(dt.date(2026, 5, 25)), now=SPRING)
    generate_series_events(skipping, until=SPRING + dt.timedelta(weeks=40), now=SPRING)
    for series in (skipping, shifting):
        cancel_occurrence(series, vienna(dt.date(2026, 3, 12)), now=SPRING)
    spans = []
    for series in (skipping, shifting):
        start, end = window(series)
        # A date shifted from the last slot before the cursor may lie past it.
        spans.append((start, end + SHIFT_REACH))
    both = (min(s for s, _ in spans), min(e for _, e in spans))
    expected = [shown_instances(skipping), shown_instances(shifting)]
    expected.append(sorted(expected[0] + expected[1]))
    # Five holidays: each moved by one, skipped by the other but Whit Monday (kept).
    assert len(expected[1]) == len(expected[0]) + 4
    skip_body, shift_body = series_feed(skipping).body, series_feed(shifting).body

    read = expand_many(
        consumer,
        [
            (skip_body, *spans[0]),
            (shift_body, *spans[1]),
            (calendar_feed([skipping, shifting], name="Studio 2").body, *both),
        ],
    )

    assert read == expected
    holidays_2026 = [
        vienna(day) for day in (dt.date(2026, 4, 6), dt.date(2026, 5, 14), dt.date(2026, 6, 4))
    ]
    exdates, overrides = _feed_dates(skip_body)
    assert set(holidays_2026) | {vienna(dt.date(2026, 3, 12))} <= exdates
    assert vienna(dt.date(2026, 5, 25)) not in exdates
    assert overrides == {}
    exdates, overrides = _feed_dates(shift_body)
    assert not set(holidays_2026) & exdates
    for slot in holidays_2026:
        assert overrides[slot] == slot + dt.timedelta(days=1)
    assert b"RECURRENCE-ID;TZID=Europe/Vienna:20260406T180000" in shift_body
    assert b"EXDATE;TZID=Europe/Vienna:20260406T180000" in skip_body


# Easter Sunday 2026: a one-week window holds Easter Monday (6 April), where the
# Monday series of tests.support.factories meets Austria's and Bavaria's holiday.
EASTER_SUNDAY = dt.datetime(2026, 4, 5, 0, 0, tzinfo=UTC)
MIXES = (
    {"country": "AT", "policy": "shift"},
    {"country": "AT", "policy": "skip"},
    {"country": "DE", "subdivision": "BY", "policy": "shift"},
    None,
)


def _chunk_of(count: int, prefix: str, *, with_holidays: bool = True) -> list[EventSeries]:
    """``count`` Monday series, holiday calendars mixed in (every fourth has none)."""
    found = []
    for number in range(count):
        series = make_series(name=f"{prefix} {number}", seats=0, window_weeks=1)
        mix = MIXES[number % len(MIXES)] if with_holidays else None
        if mix is not None:
            EventSeries.objects.filter(pk=series.pk).update(
                holiday_country=mix["country"],
                holiday_subdivision=mix.get("subdivision", ""),
                holiday_policy=mix["policy"],
            )
        found.append(series)
    return found


def _package_statements(series: list[EventSeries]) -> int:
    """The statements of one chunk run but the ones that are per series by design.

    Left out: the test host's ``clone_related`` (it keeps the default
    ``clone_related_many``, one call per series), and the series locks, which are
    one statement on PostgreSQL but taken one by one where the backend has no
    ``FOR UPDATE OF ... SKIP LOCKED`` (counted here by taking them on their own).
    """
    ids = [item.pk for item in series]
    with transaction.atomic(), CaptureQueriesContext(connection) as locks:
        lock_series_chunk(ids)
    with CaptureQueriesContext(connection) as queries:
        result = generate_series_chunk_events(ids, now=EASTER_SUNDAY)
    assert (result.chunked, result.failures) == (len(ids), {})
    host = [q for q in queries.captured_queries if "testapp_seat" in q["sql"]]
    return len(queries.captured_queries) - len(host) - len(locks.captured_queries)


def test_chunk_statements_with_holiday_series_are_as_many_for_3_as_for_30_series() -> None:
    few, many = _chunk_of(3, "few"), _chunk_of(30, "many")
    plain_few, plain_many = (_chunk_of(n, f"plain {n}", with_holidays=False) for n in (3, 30))

    counts = [_package_statements(chunk) for chunk in (few, many, plain_few, plain_many)]

    # As many for 3 as for 30, and no more than for series without holidays.
    assert len(set(counts)) == 1, counts
    tuesday = dt.datetime(2026, 4, 7, 10, 0, tzinfo=ZoneInfo("Europe/Vienna"))
    monday = tuesday - dt.timedelta(days=1)
    for number, series in enumerate(many):
        mix = MIXES[number % len(MIXES)]
        expected = {
            None: [(monday, monday)],
            "shift": [(monday, tuesday)],
            "skip": [],
        }[None if mix is None else mix["policy"]]
        assert [(e.recurrence_id, e.starts_at) for e in occurrences(series)] == expected
        assert fresh(series).holidays_version == (holidays.__version__ if mix else "")


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")
def test_chunk_queries_with_holiday_series_do_not_grow_on_postgresql() -> None:
    few, many = _chunk_of(3, "few"), _chunk_of(30, "many")
    totals = []
    for chunk in (few, many):
        with CaptureQueriesContext(connection) as queries:
            generate_series_chunk_events([s.pk for s in chunk], now=EASTER_SUNDAY)
        totals.append(len([q for q in queries.captured_queries if "testapp_seat" not in q["sql"]]))
    # SAVEPOINT, the SKIP LOCKED lock, rules, templates with their taken slots and
    # pending exdates, one INSERT, the cursor UPDATE, the history's summary of the
    # chunk (its record and its series: two INSERTs), RELEASE.
    assert totals == [9, 9]


def test_a_chunk_places_holiday_dates_as_the_per_series_path_does() -> None:
    chunked, one_by_one = _chunk_of(8, "chunked"), _chunk_of(8, "single")
    for now in (SPRING, SPRING + dt.timedelta(weeks=5)):
        generate_series_chunk_events([s.pk for s in chunked], now=now)
        for series in one_by_one:
            generate_series_events(series, now=now)

    def placed(series: EventSeries) -> list[tuple[dt.datetime, dt.datetime]]:
        return [(e.recurrence_id, e.starts_at) for e in occurrences(series)]

    assert [placed(s) for s in chunked] == [placed(s) for s in one_by_one]
    assert any(start != slot for slot, start in placed(chunked[0]))


def _restored(series: EventSeries) -> None:
    # Whit Monday: the cursor steps back to just before it until a run creates it.
    restore_occurrence(series, vienna(dt.date(2026, 5, 25)), now=SPRING)


def _switched(series: EventSeries) -> None:
    # Applying a plan resets the cursor to the window's end (eight weeks), short of the rows.
    changes = {"holidays": {"policy": "shift"}}
    plan = plan_recurrence_change(series, changes, now=SPRING)
    apply_recurrence_plan(series, plan.hash, changes, now=SPRING)


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("step_back", [_restored, _switched], ids=["restore", "plan"])
def test_a_feed_shows_every_row_when_the_cursor_stepped_back_behind_them(
    consumer: str, step_back: Callable[[EventSeries], None]
) -> None:
    series = _published("skip", "Skipping")
    step_back(series)
    series.refresh_from_db()
    shown = shown_instances(series)
    assert series.last_generated_until < max(instant for instant, _ in shown)
    start, _ = window(series)
    end = max(instant for instant, _ in shown) + SHIFT_REACH

    assert expand_many(consumer, [(series_feed(series).body, start, end)]) == [shown]


# Tuesdays in Vienna through Advent 2026: Mariä Empfängnis (Tuesday 8 December) is
# a holiday in Austria, so "shift" moves that class to Wednesday 9 December.
ADVENT = dt.datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
IMMACULATE_CONCEPTION = vienna(dt.date(2026, 12, 8))
TUESDAYS = Cadence({"frequency": "WEEKLY", "weekdays": [1]}, lambda day: day.weekday() == 1)


def _advent_class() -> EventSeries:
    series = holiday_series(
        REGIONS["AT"], TUESDAYS, "shift", first=dt.date(2026, 11, 3), now=ADVENT, auto_publish=True
    )
    generate_series_events(series, until=dt.datetime(2026, 12, 31, tzinfo=UTC), now=ADVENT)
    return series


def _override_of(body: bytes, slot: dt.datetime) -> icalendar.Component:
    found = [
        component
        for component in icalendar.Calendar.from_ical(body).walk("VEVENT")
        if "RECURRENCE-ID" in component and component["RECURRENCE-ID"].dt == slot
    ]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize(
    ("language", "note"),
    [
        ("de", "Wegen Mariä Empfängnis vom Di, 8. Dez 2026 verschoben."),
        ("en", "Moved from Tue 8 Dec 2026 because of Immaculate Conception."),
        # The package names Austria's holidays in German, English, Thai and Ukrainian
        # only: the sentence is French, the holiday's name Austria's own (German),
        # whatever the process's LANG says.
        ("fr", "Reportée du mar 8 déc 2026 (jour férié\u00a0: Mariä Empfängnis)."),
    ],
)
def test_a_date_a_holiday_moved_names_the_holiday_in_the_feeds_language(
    language: str, note: str
) -> None:
    series = _advent_class()

    with translation.override(language):
        body = series_feed(series).body

    moved = _override_of(body, IMMACULATE_CONCEPTION)
    assert moved["DTSTART"].dt == vienna(dt.date(2026, 12, 9))
    assert str(moved["SUMMARY"]) == "Evening class"
    assert str(moved["DESCRIPTION"]) == note
    # The dates no holiday touched carry no note: the master's description is the event's.
    assert "DESCRIPTION" not in _master_of(body)


def _master_of(body: bytes) -> icalendar.Component:
    (master,) = [c for c in icalendar.Calendar.from_ical(body).walk("VEVENT") if "RRULE" in c]
    return master


def test_the_note_comes_before_the_events_own_description() -> None:
    series = _advent_class()
    series.description = "Bring a mat."
    series.save(update_fields=["description"])

    with translation.override("de"):
        body = series_feed(series).body

    assert str(_override_of(body, IMMACULATE_CONCEPTION)["DESCRIPTION"]) == (
        "Wegen Mariä Empfängnis vom Di, 8. Dez 2026 verschoben.\n\nBring a mat."
    )
    assert str(_master_of(body)["DESCRIPTION"]) == "Bring a mat."


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_a_german_feed_with_a_moved_date_expands_to_exactly_its_rows(consumer: str) -> None:
    series = _advent_class()
    start, end = window(series)
    with translation.override("de"):
        body = series_feed(series).body

    shown = shown_instances(series)
    assert vienna(dt.date(2026, 12, 9)) in [instant for instant, _ in shown]
    assert expand_many(consumer, [(body, start, end + SHIFT_REACH)]) == [shown]


@override_settings(
    CACHES={
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "feeds": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "holiday-notes",
        },
    },
    REVEL_RECURRING_FEED_CACHE="feeds",
)
def test_a_cached_german_feed_is_not_served_to_an_english_request(rf: Any) -> None:
    series = _advent_class()
    listed = EventSeries.objects.filter(pk=series.pk)

    def answer(language: str) -> tuple[bytes, str]:
        with translation.override(language):
            response = revision_response(
                rf.get("/feed.ics"),
                feed_revision(listed, name=series.name),
                lambda: calendar_feed(listed, name=series.name),
                filename="feed.ics",
            )
        return response.content, response["ETag"]

    german, german_etag = answer("de")
    english, english_etag = answer("en")

    assert german_etag != english_etag
    assert str(_override_of(german, IMMACULATE_CONCEPTION)["DESCRIPTION"]).startswith("Wegen ")
    assert str(_override_of(english, IMMACULATE_CONCEPTION)["DESCRIPTION"]).startswith("Moved ")
    assert answer("de")[0] == german
