"""Every rule of ``validate_rule`` and friends, each asserting the field key it reports.

The key matters: the admin and the API show the message next to that field, so a
person knows what to change.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given, settings
from hypothesis import strategies as st

from revel_recurring.models import EventSeries
from revel_recurring.validators import (
    validate_dtstart_zone,
    validate_generation_window_weeks,
    validate_rule,
    validate_timezone,
)
from tests.support.factories import VIENNA

START = dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA)


def rule(**overrides: Any) -> dict[str, Any]:
    """The fields of a valid weekly rule, with ``overrides`` applied."""
    data: dict[str, Any] = {
        "frequency": "WEEKLY",
        "interval": 1,
        "weekdays": [],
        "monthly_type": "",
        "day_of_month": None,
        "nth_weekday": None,
        "weekday": None,
        "dtstart": START,
        "until": None,
        "count": None,
        "timezone": "Europe/Vienna",
    }
    data.update(overrides)
    return data


def monthly(**overrides: Any) -> dict[str, Any]:
    return rule(frequency="MONTHLY", **overrides)


def error_keys(data: dict[str, Any]) -> set[str]:
    with pytest.raises(ValidationError) as excinfo:
        validate_rule(data)
    return set(excinfo.value.message_dict)


@pytest.mark.parametrize(
    "data",
    [
        rule(),
        rule(weekdays=[0, 2, 4], count=10),
        rule(interval=3, until=START + dt.timedelta(days=90)),
        rule(frequency="DAILY"),
        rule(frequency="YEARLY"),
        monthly(monthly_type="DAY_OF_MONTH", day_of_month=31),
        monthly(monthly_type="DAY_OF_MONTH", day_of_month=-1),
        monthly(monthly_type="NTH_WEEKDAY", nth_weekday=-5, weekday=6),
        monthly(monthly_type="NTH_WEEKDAY", nth_weekday=5, weekday=0),
        rule(timezone="UTC"),
        rule(timezone="Australia/Lord_Howe"),
        # dtstart in another zone than the rule's is fine: only the instant matters.
        rule(dtstart=dt.datetime(2025, 3, 17, 9, 0, tzinfo=dt.UTC)),
    ],
)
def test_valid_rules_pass(data: dict[str, Any]) -> None:
    validate_rule(data)


def test_missing_optional_keys_count_as_unset() -> None:
    validate_rule({"frequency": "DAILY", "dtstart": START, "timezone": "Europe/Vienna"})


@pytest.mark.parametrize("value", ["weekly", "HOURLY", "", None, 1])
def test_unknown_frequency_is_keyed_frequency(value: object) -> None:
    assert error_keys(rule(frequency=value)) == {"frequency"}


@pytest.mark.parametrize("value", [0, -1, None, 1.5, "2", True])
def test_interval_below_one_or_not_an_int_is_keyed_interval(value: object) -> None:
    assert error_keys(rule(interval=value)) == {"interval"}


@pytest.mark.parametrize(
    "value",
    [[7], [-1], ["1"], [True], [False], [0, True], [1.0], "0,1", 3, [[1]], {"0": 1}, [1, 1]],
)
def test_weekdays_not_a_list_of_distinct_ints_zero_to_six_is_keyed_weekdays(
    value: object,
) -> None:
    assert error_keys(rule(weekdays=value)) == {"weekdays"}


def test_weekdays_message_names_the_bad_value() -> None:
    with pytest.raises(ValidationError) as excinfo:
        validate_rule(rule(weekdays=[0, 7]))
    assert excinfo.value.message_dict["weekdays"] == [
        "Each weekday must be 0 (Monday) to 6 (Sunday), got 7."
    ]


def test_weekdays_as_tuple_is_accepted() -> None:
    validate_rule(rule(weekdays=(0, 6)))


def test_monthly_without_monthly_type_is_keyed_monthly_type() -> None:
    assert error_keys(monthly(day_of_month=3)) == {"monthly_type"}


def test_unknown_monthly_type_is_keyed_monthly_type() -> None:
    assert error_keys(monthly(monthly_type="LAST_DAY", day_of_month=3)) == {"monthly_type"}


def test_day_of_month_missing_for_day_of_month_type_is_keyed_day_of_month() -> None:
    assert error_keys(monthly(monthly_type="DAY_OF_MONTH")) == {"day_of_month"}


@pytest.mark.parametrize("value", [0, 32, -2, -31, True, "5", 1.0])
def test_day_of_month_out_of_range_is_keyed_day_of_month(value: object) -> None:
    assert error_keys(monthly(monthly_type="DAY_OF_MONTH", day_of_month=value)) == {"day_of_month"}


@pytest.mark.parametrize("value", [0, 6, -6, True, "1"])
def test_nth_weekday_out_of_range_is_keyed_nth_weekday(value: object) -> None:
    data = monthly(monthly_type="NTH_WEEKDAY", nth_weekday=value, weekday=4)
    assert error_keys(data) == {"nth_weekday"}


def test_nth_weekday_missing_is_keyed_nth_weekday() -> None:
    assert error_keys(monthly(monthly_type="NTH_WEEKDAY", weekday=4)) == {"nth_weekday"}


@pytest.mark.parametrize("value", [7, -1, True, "4"])
def test_weekday_out_of_range_is_keyed_weekday(value: object) -> None:
    data = monthly(monthly_type="NTH_WEEKDAY", nth_weekday=1, weekday=value)
    assert error_keys(data) == {"weekday"}


def test_weekday_missing_for_nth_weekday_type_is_keyed_weekday() -> None:
    assert error_keys(monthly(monthly_type="NTH_WEEKDAY", nth_weekday=1)) == {"weekday"}


@pytest.mark.parametrize(
    ("data", "key"),
    [
        (monthly(monthly_type="DAY_OF_MONTH", day_of_month=3, nth_weekday=1), "nth_weekday"),
        (monthly(monthly_type="DAY_OF_MONTH", day_of_month=3, weekday=1), "weekday"),
        (
            monthly(monthly_type="NTH_WEEKDAY", nth_weekday=1, weekday=1, day_of_month=3),
            "day_of_month",
        ),
        (monthly(monthly_type="DAY_OF_MONTH", day_of_month=3, weekdays=[1]), "weekdays"),
    ],
)
def test_monthly_field_of_the_other_type_is_rejected_under_its_key(
    data: dict[str, Any], key: str
) -> None:
    assert error_keys(data) == {key}


@pytest.mark.parametrize(
    ("frequency", "field", "value"),
    [
        ("DAILY", "weekdays", [1]),
        ("DAILY", "monthly_type", "DAY_OF_MONTH"),
        ("DAILY", "day_of_month", 3),
        ("YEARLY", "weekdays", [1]),
        ("YEARLY", "nth_weekday", 1),
        ("YEARLY", "weekday", 2),
        ("WEEKLY", "day_of_month", 3),
        ("WEEKLY", "monthly_type", "NTH_WEEKDAY"),
        ("WEEKLY", "nth_weekday", -1),
        ("WEEKLY", "weekday", 0),
    ],
)
def test_field_the_frequency_does_not_use_is_rejected(
    frequency: str, field: str, value: object
) -> None:
    assert error_keys(rule(frequency=frequency, **{field: value})) == {field}


@pytest.mark.parametrize(
    "delta", [dt.timedelta(0), dt.timedelta(seconds=-1), dt.timedelta(days=-7)]
)
def test_until_not_after_dtstart_is_keyed_until(delta: dt.timedelta) -> None:
    assert error_keys(rule(until=START + delta)) == {"until"}


def test_until_equal_to_dtstart_in_another_zone_is_still_not_after_it() -> None:
    same_instant = START.astimezone(ZoneInfo("America/New_York"))
    assert error_keys(rule(until=same_instant)) == {"until"}


def test_a_first_occurrence_after_until_is_named_on_the_rules_clock() -> None:
    # Monday 17 March 2025 10:00 Vienna; weekly on Wednesday until Tuesday.
    data = rule(weekdays=[2], until=START + dt.timedelta(days=1))

    with pytest.raises(ValidationError) as excinfo:
        validate_rule(data)

    assert excinfo.value.message_dict == {
        "until": [
            "The first date of this rule is Wed 19 Mar 2025 10:00 (Europe/Vienna), after the "
            "end; the series would have no date at all. Move the end later."
        ]
    }


def test_until_and_count_together_is_keyed_until() -> None:
    assert error_keys(rule(until=START + dt.timedelta(days=7), count=3)) == {"until"}


@pytest.mark.parametrize("value", [0, -3, True, "3", 2.0])
def test_count_below_one_or_not_an_int_is_keyed_count(value: object) -> None:
    assert error_keys(rule(count=value)) == {"count"}


@pytest.mark.parametrize(
    "value", ["Mars/Olympus_Mons", "CEST", "europe/vienna", "", "   ", None, 3]
)
def test_unknown_timezone_is_keyed_timezone(value: object) -> None:
    assert error_keys(rule(timezone=value)) == {"timezone"}


@pytest.mark.parametrize(
    "value",
    [
        "../etc/passwd",
        "/etc/passwd",
        "Europe/../../etc/passwd",
        "Europe/../Europe/Vienna",
        "..",
        "Europe\\Vienna",
        "Europe/Vienna\x00",
        ".",
        "Europe",
        "zone.tab",
        "tzdata.zi",
        "__init__.py",
        "a" * 300,
    ],
)
def test_path_like_timezone_is_a_clean_validation_error(value: str) -> None:
    assert error_keys(rule(timezone=value)) == {"timezone"}
    with pytest.raises(ValidationError):
        validate_timezone(value)


@pytest.mark.parametrize("value", [" Europe/Vienna", "Europe/Vienna ", "Europe/Vienna\n"])
def test_timezone_with_surrounding_whitespace_is_rejected(value: str) -> None:
    # Regression: it used to pass validation, be stored verbatim and then make
    # ZoneInfo() raise a raw ZoneInfoNotFoundError from RecurrenceRule.save().
    assert error_keys(rule(timezone=value)) == {"timezone"}


def test_validate_timezone_returns_the_name() -> None:
    assert validate_timezone("Asia/Kolkata") == "Asia/Kolkata"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"[A-Za-z_./\\-]{0,30}", fullmatch=True))
def test_validate_timezone_raises_only_validation_error(value: str) -> None:
    try:
        name = validate_timezone(value)
    except ValidationError:
        return
    ZoneInfo(name)  # anything accepted must really load


def test_naive_dtstart_is_keyed_dtstart() -> None:
    assert error_keys(rule(dtstart=dt.datetime(2025, 3, 17, 10, 0))) == {"dtstart"}


@pytest.mark.parametrize("value", [None, dt.date(2025, 3, 17), "2025-03-17T10:00:00+01:00"])
def test_missing_or_non_datetime_dtstart_is_keyed_dtstart(value: object) -> None:
    assert error_keys(rule(dtstart=value)) == {"dtstart"}


def test_naive_until_is_keyed_until() -> None:
    assert error_keys(rule(until=dt.datetime(2025, 6, 1, 10, 0))) == {"until"}


def test_dtstart_on_second_instance_of_ambiguous_time_is_keyed_dtstart() -> None:
    # 01:30 EST on 2 Nov 2025 (06:30Z) is the second 01:30 in New York; the rule would
    # recur at the first one (05:30Z), so its first occurrence would precede dtstart.
    second = dt.datetime(2025, 11, 2, 1, 30, fold=1, tzinfo=ZoneInfo("America/New_York"))
    with pytest.raises(ValidationError) as excinfo:
        validate_rule(rule(frequency="DAILY", dtstart=second, timezone="America/New_York"))
    assert set(excinfo.value.message_dict) == {"dtstart"}
    assert "05:30 UTC" in excinfo.value.message_dict["dtstart"][0]


def test_dtstart_on_first_instance_of_ambiguous_time_is_valid() -> None:
    first = dt.datetime(2025, 11, 2, 1, 30, fold=0, tzinfo=ZoneInfo("America/New_York"))
    validate_rule(rule(frequency="DAILY", dtstart=first, timezone="America/New_York"))


def test_ambiguity_is_judged_in_the_rule_zone_not_the_dtstart_zone() -> None:
    # 06:30Z is an ordinary time in Vienna, so the same instant is fine there.
    instant = dt.datetime(2025, 11, 2, 6, 30, tzinfo=dt.UTC)
    validate_rule(rule(frequency="DAILY", dtstart=instant, timezone="Europe/Vienna"))
    assert error_keys(rule(frequency="DAILY", dtstart=instant, timezone="America/New_York")) == {
        "dtstart"
    }


def test_several_problems_are_reported_together() -> None:
    data = rule(interval=0, weekdays=[9], count=0, timezone="Nowhere/Land")
    assert error_keys(data) == {"interval", "weekdays", "count", "timezone"}


@pytest.mark.parametrize("value", [1, 8, 52])
def test_generation_window_weeks_in_range_passes(value: int) -> None:
    validate_generation_window_weeks(value)


@pytest.mark.parametrize("value", [0, 53, -1, True, "8", None, 8.0])
def test_generation_window_weeks_out_of_range_raises(value: object) -> None:
    with pytest.raises(ValidationError):
        validate_generation_window_weeks(value)


def test_dtstart_written_as_a_gap_wall_clock_is_valid() -> None:
    # 02:30 does not exist on 9 Mar 2025 in New York; the aware value still names one
    # instant (07:30Z = 03:30 EDT), and the rule then recurs at 03:30.
    in_gap = dt.datetime(2025, 3, 9, 2, 30, tzinfo=ZoneInfo("America/New_York"))
    validate_rule(rule(frequency="DAILY", dtstart=in_gap, timezone="America/New_York"))


def test_a_pattern_that_never_occurs_is_keyed_interval() -> None:
    # Every 12 months from April: always April, which has no 31st.
    april = dt.datetime(2025, 4, 1, 10, tzinfo=VIENNA)
    data = monthly(monthly_type="DAY_OF_MONTH", day_of_month=31, interval=12, dtstart=april)
    assert error_keys(data) == {"interval"}
    validate_rule({**data, "interval": 1})  # monthly on the 31st does occur


def test_until_before_the_first_occurrence_is_keyed_until() -> None:
    tuesday = dt.datetime(2025, 3, 18, 10, tzinfo=VIENNA)
    data = rule(weekdays=[0], dtstart=tuesday, until=tuesday + dt.timedelta(days=1))
    assert error_keys(data) == {"until"}
    validate_rule({**data, "until": tuesday + dt.timedelta(days=6)})  # reaches Monday


def test_dtstart_in_another_named_zone_than_the_rule_is_refused() -> None:
    london = dt.datetime(2030, 3, 4, 18, 0, tzinfo=ZoneInfo("Europe/London"))

    with pytest.raises(ValidationError) as caught:
        validate_dtstart_zone(london, "Europe/Vienna")

    assert list(caught.value.message_dict) == ["dtstart"]
    assert "18:00 in Europe/London" in caught.value.message_dict["dtstart"][0]
    assert "19:00" in caught.value.message_dict["dtstart"][0]


@pytest.mark.parametrize(
    "tzinfo",
    [dt.UTC, ZoneInfo("UTC"), dt.timezone(dt.timedelta(hours=1)), ZoneInfo("Europe/Berlin")],
)
def test_dtstart_as_an_instant_or_the_same_wall_clock_is_accepted(tzinfo: dt.tzinfo) -> None:
    start = dt.datetime(2030, 3, 4, 17, 0, tzinfo=tzinfo)

    validate_dtstart_zone(start, "Europe/Vienna")


@pytest.mark.parametrize("value", [0, 53])
def test_full_clean_reports_a_window_out_of_range_once(value: int) -> None:
    series = EventSeries(name="Yoga", generation_window_weeks=value)

    with pytest.raises(ValidationError) as excinfo:
        series.full_clean(exclude=["recurrence_rule", "slug"])

    assert list(excinfo.value.message_dict) == ["generation_window_weeks"]
    assert len(excinfo.value.message_dict["generation_window_weeks"]) == 1
