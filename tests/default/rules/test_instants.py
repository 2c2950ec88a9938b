"""The one parser of typed instants and the one formatter of a local time with its zone."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.utils import translation

from revel_recurring import describe
from revel_recurring.instants import InvalidInstantError, describe_instant, parse_aware_instant

UTC = dt.UTC
VIENNA = ZoneInfo("Europe/Vienna")
NEW_YORK = ZoneInfo("America/New_York")
INSTANT = dt.datetime(2027, 6, 1, 16, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "2027-06-01T16:30:00Z",
        "2027-06-01T16:30:00z",
        "2027-06-01t16:30:00z",
        "2027-06-01T18:30:00+02:00",
        "2027-06-01T12:30:00-04:00",
        "2027-06-01 18:30+02:00",
        "  2027-06-01T16:30Z\n",
    ],
)
def test_z_and_offsets_name_the_same_utc_instant(text: str) -> None:
    parsed = parse_aware_instant(text)

    assert parsed == INSTANT
    assert parsed.utcoffset() == dt.timedelta(0)


def test_an_aware_datetime_passes_in_utc() -> None:
    assert parse_aware_instant(INSTANT.astimezone(VIENNA)) == INSTANT


@pytest.mark.parametrize(
    ("value", "example"),
    [
        ("2027-06-01T18:30:00", "2027-06-01T18:30:00Z or 2027-06-01T18:30:00+01:00"),
        ("2027-06-01T18:30", "2027-06-01T18:30:00Z or 2027-06-01T18:30:00+01:00"),
        ("2027-06-01", "2027-06-01T00:00:00Z or 2027-06-01T00:00:00+01:00"),
        (dt.datetime(2027, 6, 1, 18, 30), "2027-06-01T18:30:00Z"),
    ],
)
def test_a_naive_value_is_refused_naming_the_missing_offset(
    value: str | dt.datetime, example: str
) -> None:
    with pytest.raises(InvalidInstantError) as caught:
        parse_aware_instant(value)

    assert caught.value.code == "naive"
    assert caught.value.message.startswith("The date and time has no UTC offset; add one")
    assert example in caught.value.message


@pytest.mark.parametrize(
    "value",
    ["next tuesday", "", "2027-13-45T00:00Z", "2027-02-30T10:00Z", "18:30Z", 1_800_000, None],
)
def test_garbage_is_not_a_date_and_time(value: object) -> None:
    with pytest.raises(InvalidInstantError) as caught:
        parse_aware_instant(value)

    assert caught.value.code == "invalid"
    assert caught.value.message.startswith("Not a date and time; give one in ISO 8601")


@pytest.mark.parametrize(
    "text", ["1899-12-31T23:00:00Z", "3000-01-01T00:00:00Z", "0999-01-01T00:00Z"]
)
def test_years_outside_1900_to_2999_are_out_of_range(text: str) -> None:
    with pytest.raises(InvalidInstantError) as caught:
        parse_aware_instant(text)

    assert caught.value.code == "range"
    assert "from 1900 up to (not including) 3000" in caught.value.message


def test_the_range_is_the_year_as_written() -> None:
    # 1899 in UTC, but written in 1900: the schema's pattern reads the text.
    assert parse_aware_instant("1900-01-01T00:30:00+01:00") == dt.datetime(
        1899, 12, 31, 23, 30, tzinfo=UTC
    )


def test_the_error_is_a_value_error() -> None:
    # Callers that caught the old parsers' ValueError keep catching it.
    with pytest.raises(ValueError, match="no UTC offset"):
        parse_aware_instant("2027-06-01T18:30")


def test_the_zone_is_named_after_the_wall_clock() -> None:
    assert describe_instant(INSTANT, "Europe/Vienna") == "Tue 1 Jun 2027 18:30 (Europe/Vienna)"
    assert describe_instant(INSTANT, "Asia/Kolkata") == "Tue 1 Jun 2027 22:00 (Asia/Kolkata)"


def test_without_a_zone_the_instant_is_shown_in_utc() -> None:
    assert describe_instant(INSTANT.astimezone(VIENNA), None) == "Tue 1 Jun 2027 16:30 (UTC)"


def test_both_sides_of_a_dst_switch_keep_the_wall_clock() -> None:
    # Vienna's clocks go forward on 28 March 2027: 18:30 is 17:30Z before, 16:30Z after.
    winter = dt.datetime(2027, 3, 23, 17, 30, tzinfo=UTC)
    summer = dt.datetime(2027, 3, 30, 16, 30, tzinfo=UTC)
    autumn = dt.datetime(2027, 11, 2, 17, 30, tzinfo=UTC)

    assert describe_instant(winter, "Europe/Vienna") == "Tue 23 Mar 2027 18:30 (Europe/Vienna)"
    assert describe_instant(summer, "Europe/Vienna") == "Tue 30 Mar 2027 18:30 (Europe/Vienna)"
    assert describe_instant(autumn, "Europe/Vienna") == "Tue 2 Nov 2027 18:30 (Europe/Vienna)"


def test_a_wall_clock_that_happens_twice_carries_its_offset() -> None:
    # 7 November 2027, New York: 01:30 EDT (05:30Z), then 01:30 EST (06:30Z).
    first = dt.datetime(2027, 11, 7, 5, 30, tzinfo=UTC)
    second = first + dt.timedelta(hours=1)

    assert (
        describe_instant(first, "America/New_York")
        == "Sun 7 Nov 2027 01:30 (America/New_York, UTC-04:00)"
    )
    assert (
        describe_instant(second, "America/New_York")
        == "Sun 7 Nov 2027 01:30 (America/New_York, UTC-05:00)"
    )
    # The hour after is not ambiguous.
    assert (
        describe_instant(second + dt.timedelta(hours=1), "America/New_York")
        == "Sun 7 Nov 2027 02:30 (America/New_York)"
    )


def test_seconds_are_shown_only_when_there_are_some() -> None:
    one_before = INSTANT - dt.timedelta(microseconds=1)

    assert (
        describe_instant(one_before, "Europe/Vienna") == "Tue 1 Jun 2027 18:29:59 (Europe/Vienna)"
    )
    assert describe_instant(INSTANT + dt.timedelta(seconds=5), "UTC").endswith("16:30:05 (UTC)")


def test_day_and_month_names_and_their_order_follow_the_active_language() -> None:
    with translation.override("de"):
        text = describe_instant(INSTANT, "Europe/Vienna")

    assert text == "Di, 1. Jun 2027, 18:30 (Europe/Vienna)"


def test_the_formatter_keeps_its_old_import_path() -> None:
    assert describe.describe_instant is describe_instant
