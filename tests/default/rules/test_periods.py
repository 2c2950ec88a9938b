"""The period of a rule an instant falls in: FREQ x INTERVAL counted from DTSTART."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from revel_recurring import rules

VIENNA = ZoneInfo("Europe/Vienna")
# A Thursday evening.
START = dt.datetime(2026, 1, 8, 18, 30, tzinfo=VIENNA)


def spec(frequency: str, interval: int = 1) -> rules.RuleSpec:
    return rules.RuleSpec.from_fields(
        {
            "frequency": frequency,
            "dtstart": START,
            "timezone": "Europe/Vienna",
            "interval": interval,
        }
    )


def at(day: str, time: str = "18:30") -> dt.datetime:
    return dt.datetime.fromisoformat(f"{day}T{time}").replace(tzinfo=VIENNA)


def test_a_weekly_period_is_the_week_from_monday() -> None:
    weekly = spec("WEEKLY")
    # Mon 5 Jan .. Sun 11 Jan hold DTSTART's Thursday: period 0.
    assert {rules.period_of(weekly, at(f"2026-01-{day:02d}")) for day in range(5, 12)} == {0}
    assert rules.period_of(weekly, at("2026-01-12")) == 1
    assert rules.period_of(weekly, at("2026-01-04")) == -1
    # On the zone's wall clock: late Sunday evening in Vienna is still Sunday.
    assert rules.period_of(weekly, at("2026-01-11", "23:30")) == 0


def test_an_interval_joins_weeks_counted_from_dtstarts_week() -> None:
    fortnightly = spec("WEEKLY", 2)
    assert rules.period_of(fortnightly, at("2026-01-05")) == 0
    assert rules.period_of(fortnightly, at("2026-01-18")) == 0
    assert rules.period_of(fortnightly, at("2026-01-19")) == 1


@pytest.mark.parametrize(
    ("frequency", "same", "next_one"),
    [
        ("DAILY", "2026-01-08", "2026-01-09"),
        ("MONTHLY", "2026-01-31", "2026-02-01"),
        ("YEARLY", "2026-12-31", "2027-01-01"),
    ],
)
def test_days_months_and_years_are_periods_of_their_own(
    frequency: str, same: str, next_one: str
) -> None:
    one = spec(frequency)
    assert rules.period_of(one, at(same, "23:00")) == 0
    assert rules.period_of(one, at(next_one, "00:30")) == 1


def test_the_span_to_search_is_capped_at_a_year() -> None:
    assert rules.period_span(spec("WEEKLY", 2)) == dt.timedelta(days=14)
    assert rules.period_span(spec("YEARLY", 400)) <= rules.SPAN_CAP + dt.timedelta(days=366)
