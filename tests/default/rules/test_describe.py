"""describe_rule: the rule as a sentence, on the rule zone's wall clock."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import translation

from revel_recurring.describe import describe_rule, describe_spec
from revel_recurring.models import RecurrenceRule
from revel_recurring.rules import Frequency, MonthlyType, RuleSpec
from tests.support.factories import UTC, VIENNA

# Monday 2027-01-04 18:30 in Vienna.
MONDAY_EVENING = dt.datetime(2027, 1, 4, 18, 30, tzinfo=VIENNA)


def spec(frequency: Frequency, **fields: object) -> RuleSpec:
    values: dict[str, object] = {"dtstart": MONDAY_EVENING, "timezone": "Europe/Vienna"}
    values.update(fields)
    return RuleSpec(frequency=frequency, **values)  # type: ignore[arg-type]


def test_the_example_sentence_from_the_issue() -> None:
    rule = RecurrenceRule(
        frequency="WEEKLY",
        interval=2,
        weekdays=[2, 0],
        dtstart=MONDAY_EVENING,
        timezone="Europe/Vienna",
        until=dt.datetime(2027, 6, 1, 23, 59, tzinfo=VIENNA),
    )
    assert describe_rule(rule) == (
        "Every 2 weeks on Monday and Wednesday at 18:30 (Europe/Vienna), until 1 June 2027"
    )


@pytest.mark.parametrize(
    ("interval", "expected"),
    [
        (1, "Every day at 18:30 (Europe/Vienna)"),
        (3, "Every 3 days at 18:30 (Europe/Vienna)"),
    ],
)
def test_daily_with_and_without_interval(interval: int, expected: str) -> None:
    assert describe_spec(spec(Frequency.DAILY, interval=interval)) == expected


@pytest.mark.parametrize(
    ("weekdays", "expected"),
    [
        ((), "Every week on Monday at 18:30 (Europe/Vienna)"),
        ((4,), "Every week on Friday at 18:30 (Europe/Vienna)"),
        ((0, 2, 4), "Every week on Monday, Wednesday and Friday at 18:30 (Europe/Vienna)"),
        ((6, 5, 6), "Every week on Saturday and Sunday at 18:30 (Europe/Vienna)"),
    ],
)
def test_weekly_names_the_days_in_week_order(weekdays: tuple[int, ...], expected: str) -> None:
    assert describe_spec(spec(Frequency.WEEKLY, weekdays=weekdays)) == expected


@pytest.mark.parametrize(
    ("day", "words"),
    [
        (1, "the 1st"),
        (2, "the 2nd"),
        (3, "the 3rd"),
        (4, "the 4th"),
        (11, "the 11th"),
        (12, "the 12th"),
        (13, "the 13th"),
        (21, "the 21st"),
        (22, "the 22nd"),
        (23, "the 23rd"),
        (30, "the 30th"),
        (31, "the 31st"),
        (-1, "the last day"),
    ],
)
def test_monthly_day_of_month_is_an_ordinal(day: int, words: str) -> None:
    rule = spec(Frequency.MONTHLY, monthly_type=MonthlyType.DAY_OF_MONTH, day_of_month=day)
    assert describe_spec(rule) == f"Every month on {words} at 18:30 (Europe/Vienna)"


@pytest.mark.parametrize(
    ("nth", "words"),
    [
        (1, "first"),
        (2, "second"),
        (3, "third"),
        (4, "fourth"),
        (5, "fifth"),
        (-1, "last"),
        (-2, "second-to-last"),
        (-3, "third-to-last"),
        (-4, "fourth-to-last"),
        (-5, "fifth-to-last"),
    ],
)
def test_monthly_nth_weekday(nth: int, words: str) -> None:
    rule = spec(
        Frequency.MONTHLY,
        interval=3,
        monthly_type=MonthlyType.NTH_WEEKDAY,
        nth_weekday=nth,
        weekday=3,
    )
    assert describe_spec(rule) == f"Every 3 months on the {words} Thursday at 18:30 (Europe/Vienna)"


def test_yearly_names_the_day_and_month_of_the_start() -> None:
    start = dt.datetime(2027, 3, 14, 9, 0, tzinfo=VIENNA)
    assert describe_spec(spec(Frequency.YEARLY, dtstart=start)) == (
        "Every year on 14 March at 09:00 (Europe/Vienna)"
    )
    assert describe_spec(spec(Frequency.YEARLY, dtstart=start, interval=4)) == (
        "Every 4 years on 14 March at 09:00 (Europe/Vienna)"
    )


@pytest.mark.parametrize(
    ("count", "tail"),
    [(1, ", once"), (2, ", 2 times"), (10, ", 10 times")],
)
def test_count_is_spelled_out(count: int, tail: str) -> None:
    assert describe_spec(spec(Frequency.DAILY, count=count)) == (
        f"Every day at 18:30 (Europe/Vienna){tail}"
    )


def test_times_and_dates_are_on_the_rule_zone_wall_clock() -> None:
    # 17:30 UTC is 18:30 in Vienna in winter; until 22:30 UTC on 31 May is 00:30 on
    # 1 June in Vienna (summer time), but before that day's 18:30 occurrence.
    rule = spec(
        Frequency.WEEKLY,
        dtstart=dt.datetime(2027, 1, 4, 17, 30, tzinfo=UTC),
        until=dt.datetime(2027, 5, 31, 22, 30, tzinfo=UTC),
    )
    assert describe_spec(rule) == (
        "Every week on Monday at 18:30 (Europe/Vienna), until 1 June 2027, 00:30"
    )


def test_a_weekly_rule_without_days_uses_the_start_weekday_in_its_own_zone() -> None:
    # Monday 00:30 in Tokyo is still Sunday in UTC.
    start = dt.datetime(2027, 1, 3, 15, 30, tzinfo=UTC)
    rule = spec(Frequency.WEEKLY, dtstart=start, timezone="Asia/Tokyo")
    assert describe_spec(rule) == "Every week on Monday at 00:30 (Asia/Tokyo)"


def test_until_on_the_day_after_the_last_occurrence_time_shows_the_date_only() -> None:
    rule = spec(Frequency.DAILY, until=dt.datetime(2027, 6, 1, 18, 30, tzinfo=VIENNA))
    assert describe_spec(rule).endswith(", until 1 June 2027")


def test_seconds_appear_only_when_the_rule_has_them() -> None:
    rule = spec(Frequency.DAILY, dtstart=MONDAY_EVENING.replace(second=15))
    assert describe_spec(rule) == "Every day at 18:30:15 (Europe/Vienna)"


def test_monthly_without_a_type_falls_back_to_the_start_day() -> None:
    assert (
        describe_spec(spec(Frequency.MONTHLY)) == "Every month on the 4th at 18:30 (Europe/Vienna)"
    )


def test_words_go_through_gettext() -> None:
    # Django ships German weekday and month names; the sentence picks them up.
    rule = spec(
        Frequency.WEEKLY,
        weekdays=(0, 2),
        until=dt.datetime(2027, 6, 1, 23, 0, tzinfo=VIENNA),
    )
    with translation.override("de"):
        text = describe_spec(rule)
    assert "Montag" in text
    assert "Mittwoch" in text
    assert "Juni" in text


def test_extra_dates_and_holidays_are_part_of_the_sentence() -> None:
    from revel_recurring.holiday_rules import HolidayPolicy, HolidayRule

    weekly = spec(Frequency.WEEKLY, weekdays=(0,))
    extra = frozenset({dt.datetime(2027, 1, 9, 17, 30, tzinfo=UTC)})
    shift = HolidayRule(country="DE", subdivision="BY", policy=HolidayPolicy.SHIFT)

    assert describe_spec(RuleSpec(**{**weekly.__dict__, "extra_dates": extra})) == (
        "Every week on Monday at 18:30 (Europe/Vienna), and on 1 more date"
    )
    assert describe_spec(
        RuleSpec(**{**weekly.__dict__, "holidays": HolidayRule(country="AT")})
    ) == ("Every week on Monday at 18:30 (Europe/Vienna), except on holidays (Austria)")
    assert describe_spec(RuleSpec(**{**weekly.__dict__, "holidays": shift})) == (
        "Every week on Monday at 18:30 (Europe/Vienna); "
        "on holidays (Bayern, Germany) the next free day instead"
    )
    keep = HolidayRule(country="AT", policy=HolidayPolicy.KEEP)
    assert describe_spec(RuleSpec(**{**weekly.__dict__, "holidays": keep})) == (
        describe_spec(weekly)
    )
