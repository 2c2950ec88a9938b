"""Skipping ahead in a long-running rule gives exactly the occurrences of a full walk."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from revel_recurring import rules
from revel_recurring.rules import Frequency, MonthlyType, RuleSpec
from tests.default.rules.test_rules_properties import rule_specs
from tests.support.factories import UTC


@settings(max_examples=200, deadline=None)
@given(rule_specs(end="none"), st.integers(0, 3000), st.integers(0, 400))
def test_skipping_ahead_matches_a_full_walk(spec: RuleSpec, offset: int, length: int) -> None:
    lower = spec.dtstart.astimezone(UTC) + dt.timedelta(days=offset, hours=offset % 24)
    upper = lower + dt.timedelta(days=length)
    walked = [
        instant
        for instant in itertools.takewhile(lambda i: i < upper, rules.iter_occurrences(spec))
        if instant > lower
    ]
    assert rules.occurrences_between(spec, lower, upper) == walked


def test_feb_29_yearly_still_needs_a_leap_year_after_skipping() -> None:
    spec = RuleSpec(
        frequency=Frequency.YEARLY,
        dtstart=dt.datetime(2000, 2, 29, 9, tzinfo=UTC),
        timezone="UTC",
    )
    # From mid-2092 the skipped-to start is Feb 2091, which has no 29th.
    found = rules.occurrences_between(
        spec, dt.datetime(2092, 6, 1, tzinfo=UTC), dt.datetime(2110, 1, 1, tzinfo=UTC)
    )
    assert [i.year for i in found] == [2096, 2104, 2108]  # 2100 is not a leap year


def test_day_31_monthly_keeps_its_day_after_skipping() -> None:
    spec = RuleSpec(
        frequency=Frequency.MONTHLY,
        dtstart=dt.datetime(2001, 1, 31, 18, tzinfo=UTC),
        timezone="Europe/Vienna",
        interval=2,
        monthly_type=MonthlyType.DAY_OF_MONTH,
        day_of_month=31,
    )
    found = rules.occurrences_between(
        spec, dt.datetime(2030, 1, 1, tzinfo=UTC), dt.datetime(2031, 1, 1, tzinfo=UTC)
    )
    # Every other month from January: Jan, Mar, May, Jul, Sep, Nov; Sep and Nov
    # have no 31st and are skipped, not moved.
    assert [(i.month, i.astimezone(spec.zone).day) for i in found] == [
        (1, 31),
        (3, 31),
        (5, 31),
        (7, 31),
    ]


def test_cost_does_not_grow_with_the_age_of_a_daily_series() -> None:
    young = RuleSpec(
        frequency=Frequency.DAILY, dtstart=dt.datetime(2026, 1, 1, 9, tzinfo=UTC), timezone="UTC"
    )
    old = dataclasses.replace(young, dtstart=dt.datetime(1976, 1, 1, 9, tzinfo=UTC))
    window = (dt.datetime(2026, 3, 1, tzinfo=UTC), dt.datetime(2026, 5, 1, tzinfo=UTC))

    def steps(spec: RuleSpec) -> int:
        # dateutil's own iteration count is what grows; count the wall-clock
        # times it yields from the start it was given.
        rule = rules.build_rrule(spec, skip_to=window[0].replace(tzinfo=None))
        return sum(
            1 for _ in itertools.takewhile(lambda w: w < window[1].replace(tzinfo=None), rule)
        )

    assert steps(old) < 100  # fifty years of days are not walked
    assert rules.occurrences_between(old, *window) == rules.occurrences_between(young, *window)
