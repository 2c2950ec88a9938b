"""The holidays ahead of a series: one expansion of the rule places the months ahead
exactly as the per-slot placement that generation reads does."""

from __future__ import annotations

import dataclasses
import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from revel_recurring import rules
from revel_recurring.holiday_placement import HolidayPlacer
from revel_recurring.holiday_rules import HolidayPolicy, HolidayRule
from tests.support.factories import make_rule

BERLIN = ZoneInfo("Europe/Berlin")
START = dt.datetime(2027, 3, 1, tzinfo=BERLIN)
END = dt.datetime(2029, 3, 1, tzinfo=BERLIN)


def spec(frequency: str, policy: HolidayPolicy, **fields: object) -> rules.RuleSpec:
    rule = make_rule(
        save=False,
        frequency=frequency,
        dtstart=dt.datetime(2027, 1, 4, 18, 30, tzinfo=BERLIN),
        timezone="Europe/Berlin",
        **fields,
    )
    calendar = HolidayRule(country="DE", subdivision="BY", policy=policy)
    return dataclasses.replace(rule.to_spec(), holidays=calendar)


@pytest.mark.parametrize("policy", list(HolidayPolicy))
@pytest.mark.parametrize(
    ("frequency", "fields"),
    [("DAILY", {}), ("WEEKLY", {"weekdays": [0, 3]}), ("WEEKLY", {"weekdays": [4, 5, 6]})],
)
def test_one_expansion_places_every_slot_as_the_per_slot_placement_does(
    frequency: str, fields: dict[str, object], policy: HolidayPolicy
) -> None:
    dates = spec(frequency, policy, **fields)
    slots = rules.occurrences_between(dates, START, END, inclusive=True)
    per_slot = HolidayPlacer(dates)

    found = HolidayPlacer(dates).fates_between(START, END)

    expected = [fate for slot in slots if (fate := per_slot.fate(slot)) is not None]
    assert found == expected
    assert found, "two years of Bavarian holidays touch the rule"


def test_the_range_is_inclusive_and_an_extra_date_on_a_holiday_is_never_listed() -> None:
    ascension = dt.datetime(2027, 5, 6, 18, 30, tzinfo=BERLIN)
    weekly = spec("WEEKLY", HolidayPolicy.SKIP, weekdays=[3])
    extra = rules.with_extra_dates(weekly, [dt.datetime(2027, 5, 17, 18, 30, tzinfo=BERLIN)])

    only = HolidayPlacer(extra).fates_between(ascension, ascension)
    may = HolidayPlacer(extra).fates_between(START, dt.datetime(2027, 6, 1, tzinfo=BERLIN))

    assert [fate.slot for fate in only] == [ascension]
    # Whit Monday (17 May) holds an extra date: the organiser chose it, no holiday moves it.
    assert [fate.day for fate in may] == [dt.date(2027, 5, 6), dt.date(2027, 5, 27)]
    assert HolidayPlacer(extra).fates_between(END, START) == []
