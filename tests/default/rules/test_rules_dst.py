"""DST policy and calendar edge cases of the rule engine, with hand-written expectations.

The policy (docs/concepts/time.md): occurrences keep their wall-clock time in the
rule zone; a wall-clock time inside a spring-forward gap is shifted forward by the
gap (RFC 5545 §3.3.5) and still counts; an ambiguous fall-back time takes the first
instant. Expected instants are written in UTC with the offset that applies spelled
out in a comment, so nothing here is computed by the code under test.

2025 transitions used: New York Mar 9 and Nov 2; Vienna Mar 30 and Oct 26;
Lord Howe (30-minute DST) Apr 6 (back to +10:30) and Oct 5 (forward to +11).
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

from revel_recurring import rules
from revel_recurring.rules import Frequency, MonthlyType, RuleSpec
from tests.support.factories import NEW_YORK, UTC, VIENNA

LORD_HOWE = ZoneInfo("Australia/Lord_Howe")
KOLKATA = ZoneInfo("Asia/Kolkata")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=UTC)


def spec(frequency: Frequency, dtstart: dt.datetime, **fields: Any) -> RuleSpec:
    zone = fields.pop("timezone", None) or str(dtstart.tzinfo)
    return RuleSpec(frequency=frequency, dtstart=dtstart, timezone=zone, **fields)


def test_weekly_monday_vienna_keeps_ten_oclock_across_spring_switch() -> None:
    rule = spec(Frequency.WEEKLY, dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA), count=4)
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 3, 17, 9, 0),  # CET, UTC+1
        utc(2025, 3, 24, 9, 0),
        utc(2025, 3, 31, 8, 0),  # CEST from Sunday Mar 30, UTC+2
        utc(2025, 4, 7, 8, 0),
    ]


def test_weekly_monday_vienna_keeps_ten_oclock_across_autumn_switch() -> None:
    rule = spec(Frequency.WEEKLY, dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA))
    assert rules.occurrences_between(rule, utc(2025, 10, 12), utc(2025, 11, 4)) == [
        utc(2025, 10, 13, 8, 0),  # CEST
        utc(2025, 10, 20, 8, 0),
        utc(2025, 10, 27, 9, 0),  # CET from Sunday Oct 26
        utc(2025, 11, 3, 9, 0),
    ]


def test_weekly_monday_vienna_utc_hour_is_nine_in_winter_and_eight_in_summer() -> None:
    rule = spec(Frequency.WEEKLY, dt.datetime(2025, 1, 6, 10, 0, tzinfo=VIENNA))
    occurrences = rules.occurrences_between(rule, utc(2025, 1, 1), utc(2026, 1, 1))
    assert len(occurrences) == 52
    for instant in occurrences:
        local = instant.astimezone(VIENNA)
        assert (local.weekday(), local.time()) == (0, dt.time(10, 0))
        summer = utc(2025, 3, 30, 1) <= instant < utc(2025, 10, 26, 1)
        assert instant.hour == (8 if summer else 9), instant


def test_daily_half_past_two_new_york_shifts_to_half_past_three_on_gap_day() -> None:
    rule = spec(Frequency.DAILY, dt.datetime(2025, 3, 7, 2, 30, tzinfo=NEW_YORK), count=5)
    occurrences = list(rules.iter_occurrences(rule))
    assert occurrences == [
        utc(2025, 3, 7, 7, 30),  # 02:30 EST, UTC-5
        utc(2025, 3, 8, 7, 30),
        utc(2025, 3, 9, 7, 30),  # 02:30 does not exist; 03:30 EDT (UTC-4) is the same instant
        utc(2025, 3, 10, 6, 30),  # 02:30 EDT
        utc(2025, 3, 11, 6, 30),
    ]
    gap_day = occurrences[2].astimezone(NEW_YORK)
    assert (gap_day.date(), gap_day.time()) == (dt.date(2025, 3, 9), dt.time(3, 30))


def test_gap_day_occurrence_counts_towards_count() -> None:
    # Weekly on Sunday at 02:30, starting on the gap day itself: still 3 occurrences.
    rule = spec(
        Frequency.WEEKLY,
        dt.datetime(2025, 3, 2, 2, 30, tzinfo=NEW_YORK),
        weekdays=(6,),
        count=3,
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 3, 2, 7, 30),  # EST
        utc(2025, 3, 9, 7, 30),  # gap: 03:30 EDT
        utc(2025, 3, 16, 6, 30),  # EDT
    ]


def test_daily_half_past_two_vienna_shifts_forward_on_gap_day() -> None:
    rule = spec(Frequency.DAILY, dt.datetime(2025, 3, 29, 2, 30, tzinfo=VIENNA), count=3)
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 3, 29, 1, 30),  # CET
        utc(2025, 3, 30, 1, 30),  # gap: 03:30 CEST
        utc(2025, 3, 31, 0, 30),  # CEST
    ]


def test_daily_at_half_past_one_on_new_york_fall_back_day_takes_first_instant() -> None:
    rule = spec(Frequency.DAILY, dt.datetime(2025, 10, 31, 1, 30, tzinfo=NEW_YORK), count=4)
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 10, 31, 5, 30),  # EDT, UTC-4
        utc(2025, 11, 1, 5, 30),
        utc(2025, 11, 2, 5, 30),  # 01:30 happens twice; the first one is EDT
        utc(2025, 11, 3, 6, 30),  # EST, UTC-5
    ]


def test_rule_starting_at_half_past_one_on_fall_back_day_starts_at_first_instant() -> None:
    # The first Sunday of November 2025 is the fall-back day itself.
    rule = spec(
        Frequency.MONTHLY,
        dt.datetime(2025, 11, 2, 1, 30, fold=0, tzinfo=NEW_YORK),
        monthly_type=MonthlyType.NTH_WEEKDAY,
        nth_weekday=1,
        weekday=6,
        count=2,
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 11, 2, 5, 30),  # 01:30 EDT
        utc(2025, 12, 7, 6, 30),  # 01:30 EST
    ]
    assert rules.is_occurrence(rule, utc(2025, 11, 2, 5, 30))
    assert not rules.is_occurrence(rule, utc(2025, 11, 2, 6, 30))  # the second 01:30


def test_vienna_ambiguous_half_past_two_takes_summer_time_instant() -> None:
    rule = spec(Frequency.DAILY, dt.datetime(2025, 10, 25, 2, 30, tzinfo=VIENNA), count=3)
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 10, 25, 0, 30),  # CEST
        utc(2025, 10, 26, 0, 30),  # 02:30 twice; CEST first
        utc(2025, 10, 27, 1, 30),  # CET
    ]


def test_lord_howe_half_hour_gap_shifts_forward_by_thirty_minutes() -> None:
    rule = spec(Frequency.DAILY, dt.datetime(2025, 10, 4, 2, 15, tzinfo=LORD_HOWE), count=3)
    occurrences = list(rules.iter_occurrences(rule))
    assert occurrences == [
        utc(2025, 10, 3, 15, 45),  # 02:15 at +10:30
        utc(2025, 10, 4, 15, 45),  # 02:15 does not exist; 02:45 at +11
        utc(2025, 10, 5, 15, 15),  # 02:15 at +11
    ]
    assert occurrences[1].astimezone(LORD_HOWE).time() == dt.time(2, 45)


def test_lord_howe_half_hour_overlap_takes_first_instant() -> None:
    rule = spec(Frequency.DAILY, dt.datetime(2025, 4, 5, 1, 45, tzinfo=LORD_HOWE), count=3)
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 4, 4, 14, 45),  # 01:45 at +11
        utc(2025, 4, 5, 14, 45),  # 01:45 twice; +11 first
        utc(2025, 4, 6, 15, 15),  # 01:45 at +10:30
    ]


def test_kolkata_half_hour_offset_without_dst_is_constant() -> None:
    rule = spec(Frequency.WEEKLY, dt.datetime(2025, 3, 3, 10, 0, tzinfo=KOLKATA))
    occurrences = rules.occurrences_between(rule, utc(2025, 1, 1), utc(2026, 1, 1))
    assert len(occurrences) == 44  # Mondays from Mar 3 to Dec 29
    assert {(o.weekday(), o.time()) for o in occurrences} == {(0, dt.time(4, 30))}


def test_weekdays_are_read_in_the_rule_zone_not_in_utc() -> None:
    # Monday 05:00 in Kolkata is Sunday 23:30 UTC.
    rule = spec(
        Frequency.WEEKLY,
        utc(2025, 3, 16, 23, 30),
        timezone="Asia/Kolkata",
        weekdays=(0,),
        count=2,
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 3, 16, 23, 30),
        utc(2025, 3, 23, 23, 30),
    ]


def test_empty_weekdays_means_dtstart_weekday_in_rule_zone() -> None:
    rule = spec(Frequency.WEEKLY, utc(2025, 3, 16, 23, 30), timezone="Asia/Kolkata", count=2)
    assert [o.astimezone(KOLKATA).weekday() for o in rules.iter_occurrences(rule)] == [0, 0]


def test_last_friday_monthly() -> None:
    rule = spec(
        Frequency.MONTHLY,
        dt.datetime(2025, 1, 31, 18, 0, tzinfo=VIENNA),
        monthly_type=MonthlyType.NTH_WEEKDAY,
        nth_weekday=-1,
        weekday=4,
        count=12,
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 1, 31, 17),  # CET
        utc(2025, 2, 28, 17),
        utc(2025, 3, 28, 17),
        utc(2025, 4, 25, 16),  # CEST
        utc(2025, 5, 30, 16),
        utc(2025, 6, 27, 16),
        utc(2025, 7, 25, 16),
        utc(2025, 8, 29, 16),
        utc(2025, 9, 26, 16),
        utc(2025, 10, 31, 17),  # CET again
        utc(2025, 11, 28, 17),
        utc(2025, 12, 26, 17),
    ]


def test_day_31_monthly_skips_months_without_a_31st() -> None:
    rule = spec(
        Frequency.MONTHLY,
        utc(2025, 1, 31, 12),
        monthly_type=MonthlyType.DAY_OF_MONTH,
        day_of_month=31,
        until=utc(2025, 12, 31, 12),  # inclusive: Dec 31 is the last occurrence
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 1, 31, 12),
        utc(2025, 3, 31, 12),
        utc(2025, 5, 31, 12),
        utc(2025, 7, 31, 12),
        utc(2025, 8, 31, 12),
        utc(2025, 10, 31, 12),
        utc(2025, 12, 31, 12),
    ]


def test_day_30_monthly_skips_february() -> None:
    rule = spec(
        Frequency.MONTHLY,
        utc(2025, 1, 30, 12),
        monthly_type=MonthlyType.DAY_OF_MONTH,
        day_of_month=30,
        count=3,
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 1, 30, 12),
        utc(2025, 3, 30, 12),
        utc(2025, 4, 30, 12),
    ]


def test_day_minus_one_is_the_last_day_of_every_month() -> None:
    rule = spec(
        Frequency.MONTHLY,
        utc(2024, 1, 31, 12),
        monthly_type=MonthlyType.DAY_OF_MONTH,
        day_of_month=-1,
        count=6,
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2024, 1, 31, 12),
        utc(2024, 2, 29, 12),  # leap year
        utc(2024, 3, 31, 12),
        utc(2024, 4, 30, 12),
        utc(2024, 5, 31, 12),
        utc(2024, 6, 30, 12),
    ]


def test_feb_29_yearly_recurs_in_leap_years_only() -> None:
    rule = spec(Frequency.YEARLY, dt.datetime(2024, 2, 29, 9, 0, tzinfo=VIENNA), count=4)
    assert list(rules.iter_occurrences(rule)) == [
        utc(2024, 2, 29, 8),
        utc(2028, 2, 29, 8),
        utc(2032, 2, 29, 8),
        utc(2036, 2, 29, 8),
    ]


def test_feb_29_yearly_skips_2100_which_is_not_a_leap_year() -> None:
    rule = spec(Frequency.YEARLY, utc(2092, 2, 29, 9), count=3)
    assert list(rules.iter_occurrences(rule)) == [
        utc(2092, 2, 29, 9),
        utc(2096, 2, 29, 9),
        utc(2104, 2, 29, 9),
    ]


def test_fifth_weekday_is_skipped_in_months_without_one() -> None:
    # Thursdays in 2025: only January, May, July and October have five.
    rule = spec(
        Frequency.MONTHLY,
        dt.datetime(2025, 1, 30, 19, 0, tzinfo=KOLKATA),
        monthly_type=MonthlyType.NTH_WEEKDAY,
        nth_weekday=5,
        weekday=3,
        until=utc(2025, 12, 31),
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 1, 30, 13, 30),
        utc(2025, 5, 29, 13, 30),
        utc(2025, 7, 31, 13, 30),
        utc(2025, 10, 30, 13, 30),
    ]


def test_fifth_from_last_weekday_is_skipped_in_months_without_one() -> None:
    rule = spec(
        Frequency.MONTHLY,
        dt.datetime(2025, 1, 2, 19, 0, tzinfo=KOLKATA),
        monthly_type=MonthlyType.NTH_WEEKDAY,
        nth_weekday=-5,
        weekday=3,
        until=utc(2025, 12, 31),
    )
    assert list(rules.iter_occurrences(rule)) == [
        utc(2025, 1, 2, 13, 30),
        utc(2025, 5, 1, 13, 30),
        utc(2025, 7, 3, 13, 30),
        utc(2025, 10, 2, 13, 30),
    ]


def test_until_is_an_inclusive_instant_compared_in_utc() -> None:
    start = dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA)
    on_occurrence = dt.datetime(2025, 3, 31, 4, 0, tzinfo=NEW_YORK)  # = 08:00Z = 10:00 CEST
    included = spec(Frequency.WEEKLY, start, until=on_occurrence)
    assert list(rules.iter_occurrences(included))[-1] == utc(2025, 3, 31, 8, 0)
    excluded = spec(Frequency.WEEKLY, start, until=on_occurrence - dt.timedelta(seconds=1))
    assert list(rules.iter_occurrences(excluded))[-1] == utc(2025, 3, 24, 9, 0)


def test_occurrences_between_is_strict_unless_inclusive() -> None:
    rule = spec(Frequency.WEEKLY, dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA))
    first, last = utc(2025, 3, 17, 9), utc(2025, 3, 31, 8)
    assert rules.occurrences_between(rule, first, last) == [utc(2025, 3, 24, 9)]
    assert rules.occurrences_between(rule, first, last, inclusive=True) == [
        first,
        utc(2025, 3, 24, 9),
        last,
    ]


def test_bounds_in_other_zones_are_compared_as_instants() -> None:
    rule = spec(Frequency.WEEKLY, dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA))
    # 05:00 New York on Mar 24 (EDT) is 09:00Z, exactly the occurrence: excluded.
    after = dt.datetime(2025, 3, 24, 5, 0, tzinfo=NEW_YORK)
    before = dt.datetime(2025, 3, 31, 18, 0, tzinfo=KOLKATA)  # 12:30Z
    assert rules.occurrences_between(rule, after, before) == [utc(2025, 3, 31, 8)]


def test_exdates_in_different_zones_normalise_to_one_utc_instant() -> None:
    stored = rules.normalize_exdates(
        [
            "2025-03-31T10:00:00+02:00",
            utc(2025, 3, 31, 8),
            dt.datetime(2025, 3, 31, 4, 0, tzinfo=NEW_YORK),
            "2025-03-31T08:00:00Z",
        ]
    )
    assert stored == ["2025-03-31T08:00:00Z"]


def test_exdate_given_in_local_time_skips_the_occurrence() -> None:
    rule = spec(Frequency.WEEKLY, dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA))
    skip = rules.exdate_instants(["2025-03-24T10:00:00+01:00"])
    assert rules.first_occurrence_after(rule, utc(2025, 3, 20), skip=skip) == utc(2025, 3, 31, 8)


def test_window_opening_after_the_gap_wall_clock_still_finds_the_shifted_occurrence() -> None:
    # The gap-day occurrence is 03:30 EDT although its rule says 02:30; a window that
    # opens at 03:10 EDT must still contain it (wall clock 02:30 < 03:10, instant later).
    rule = spec(Frequency.DAILY, dt.datetime(2025, 3, 7, 2, 30, tzinfo=NEW_YORK))
    after = dt.datetime(2025, 3, 9, 3, 10, tzinfo=NEW_YORK)  # 07:10Z
    assert rules.occurrences_between(rule, after, utc(2025, 3, 9, 8)) == [utc(2025, 3, 9, 7, 30)]
    assert rules.first_occurrence_after(rule, after) == utc(2025, 3, 9, 7, 30)
