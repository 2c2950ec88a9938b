"""Property-based tests of the rule engine over random valid rules.

The oracles are the rule's own definition, checked with the standard library only
(``calendar``, ``zoneinfo``): the date pattern of each frequency, the DST policy of
docs/concepts/time.md, and the meaning of COUNT and UNTIL. ``rule_specs`` is also used by
test_rrule_string_roundtrip.py.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import itertools
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from revel_recurring import rules
from revel_recurring.rules import Frequency, MonthlyType, RuleSpec
from revel_recurring.validators import validate_rule
from tests.support.factories import UTC

ZONES = ("Europe/Vienna", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC")
MAX_INTERVAL = {Frequency.DAILY: 10, Frequency.WEEKLY: 4, Frequency.MONTHLY: 6, Frequency.YEARLY: 3}
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None)


@st.composite
def rule_specs(draw: st.DrawFn, *, end: str | None = None) -> RuleSpec:
    """A valid rule. ``end`` forces "count", "until" or "none"; by default any of them."""
    zone_name = draw(st.sampled_from(ZONES))
    zone = ZoneInfo(zone_name)
    day = draw(st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2035, 12, 31)))
    # DST transitions of these zones happen between 00:00 and 03:00 local; draw those
    # hours and the quarter hours (Lord Howe's gap is 02:00-02:30) more often.
    hour = draw(st.sampled_from((0, 1, 2, 3)) | st.integers(0, 23))
    minute = draw(st.sampled_from((0, 15, 30, 45)) | st.integers(0, 59))
    second = draw(st.just(0) | st.integers(0, 59))
    # fold=0 is the only reading a rule can have (see validators); a wall clock in a
    # gap becomes the instant after it, whose own wall clock then exists.
    dtstart = dt.datetime.combine(day, dt.time(hour, minute, second)).replace(tzinfo=zone)
    if draw(st.booleans()):
        dtstart = dtstart.astimezone(UTC)  # the zone of dtstart itself must not matter

    frequency = draw(st.sampled_from(Frequency))
    fields: dict[str, Any] = {"interval": draw(st.integers(1, MAX_INTERVAL[frequency]))}
    if frequency is Frequency.WEEKLY:
        weekdays = draw(st.lists(st.integers(0, 6), unique=True, max_size=7))
        fields["weekdays"] = tuple(weekdays)
    elif frequency is Frequency.MONTHLY:
        if draw(st.booleans()):
            fields["monthly_type"] = MonthlyType.DAY_OF_MONTH
            fields["day_of_month"] = draw(
                st.sampled_from((28, 29, 30, 31, -1)) | st.integers(1, 31)
            )
        else:
            fields["monthly_type"] = MonthlyType.NTH_WEEKDAY
            fields["nth_weekday"] = draw(st.sampled_from((1, 2, 3, 4, 5, -1, -2, -3, -4, -5)))
            fields["weekday"] = draw(st.integers(0, 6))

    end = end or draw(st.sampled_from(("count", "until", "none")))
    if end == "count":
        fields["count"] = draw(st.integers(1, 6 if frequency is Frequency.YEARLY else 30))
    elif end == "until":
        length = dt.timedelta(days=draw(st.integers(0, 1500)), minutes=draw(st.integers(1, 1440)))
        fields["until"] = dtstart + length
    return RuleSpec(frequency=frequency, dtstart=dtstart, timezone=zone_name, **fields)


def spec_fields(spec: RuleSpec) -> dict[str, Any]:
    values = dataclasses.asdict(spec)
    values["weekdays"] = list(spec.weekdays)
    return values


def wall_clock(spec: RuleSpec) -> dt.time:
    return spec.dtstart.astimezone(spec.zone).time()


def matches_pattern(spec: RuleSpec, day: dt.date) -> bool:
    """Whether the rule recurs on ``day`` (a local date in the rule zone)."""
    start = spec.dtstart.astimezone(spec.zone).date()
    if day < start:
        return False
    if spec.frequency is Frequency.DAILY:
        return (day - start).days % spec.interval == 0
    if spec.frequency is Frequency.WEEKLY:
        weekdays = spec.weekdays or (start.weekday(),)
        start_monday = start - dt.timedelta(days=start.weekday())
        weeks = (day - start_monday).days // 7
        return day.weekday() in weekdays and weeks % spec.interval == 0
    if spec.frequency is Frequency.YEARLY:
        same_day = (day.month, day.day) == (start.month, start.day)
        return same_day and (day.year - start.year) % spec.interval == 0
    months = (day.year - start.year) * 12 + day.month - start.month
    if months % spec.interval:
        return False
    last_day = calendar.monthrange(day.year, day.month)[1]
    if spec.monthly_type is MonthlyType.DAY_OF_MONTH:
        return day.day == (last_day if spec.day_of_month == -1 else spec.day_of_month)
    assert spec.nth_weekday is not None
    if day.weekday() != spec.weekday:
        return False
    if spec.nth_weekday > 0:
        return (day.day - 1) // 7 + 1 == spec.nth_weekday
    return (last_day - day.day) // 7 + 1 == -spec.nth_weekday


def instants_of(naive: dt.datetime, zone: ZoneInfo) -> list[dt.datetime]:
    """The real instants whose wall clock in ``zone`` is ``naive``: 0 (gap), 1 or 2."""
    found = []
    for fold in (0, 1):
        instant = naive.replace(tzinfo=zone, fold=fold).astimezone(UTC)
        if instant.astimezone(zone).replace(tzinfo=None) == naive and instant not in found:
            found.append(instant)
    return sorted(found)


def assert_dst_policy(spec: RuleSpec, occurrence: dt.datetime) -> None:
    """Wall clock kept; a gap shifts forward by the gap; an overlap takes the first instant."""
    zone = spec.zone
    local = occurrence.astimezone(zone).replace(tzinfo=None)
    intended = dt.datetime.combine(local.date(), wall_clock(spec))
    candidates = instants_of(intended, zone)
    if candidates:
        assert occurrence == candidates[0], (occurrence, intended)
        return
    # A gap: the offset jumps forward at the transition, by this much.
    offset_before = intended.replace(tzinfo=zone, fold=0).utcoffset()
    offset_after = intended.replace(tzinfo=zone, fold=1).utcoffset()
    assert offset_before is not None
    assert offset_after is not None
    gap = offset_after - offset_before
    assert gap > dt.timedelta(0)
    assert local == intended + gap, (occurrence, intended, gap)


def policy_instant(spec: RuleSpec, day: dt.date) -> dt.datetime:
    """The instant the DST policy gives dtstart's wall clock on ``day``."""
    intended = dt.datetime.combine(day, wall_clock(spec))
    candidates = instants_of(intended, spec.zone)
    if candidates:
        return candidates[0]
    # In a gap: the wall clock shifted forward by the gap is the instant reached by
    # reading the wall clock with the offset in force before the transition.
    before = intended.replace(tzinfo=spec.zone, fold=0).utcoffset()
    assert before is not None
    return (intended - before).replace(tzinfo=UTC)


def until_or_far(spec: RuleSpec, days: int) -> dt.datetime:
    return spec.dtstart.astimezone(UTC) + dt.timedelta(days=days)


windows = st.tuples(st.integers(-400, 1500), st.integers(0, 800), st.integers(0, 1439))


@PROPERTY_SETTINGS
@given(rule_specs())
def test_generated_rules_are_valid_unless_they_have_no_occurrence(spec: RuleSpec) -> None:
    # The strategy draws every field combination the validators accept one by one;
    # the validators also refuse a rule that, as a whole, never occurs.
    pattern = dataclasses.replace(spec, until=None, count=None)
    first = rules.first_occurrence_after(pattern, spec.dtstart, inclusive=True)
    occurs = first is not None and (spec.until is None or first <= rules.to_utc(spec.until))
    if occurs:
        validate_rule(spec_fields(spec))
        return
    with pytest.raises(ValidationError) as raised:
        validate_rule(spec_fields(spec))
    assert set(raised.value.message_dict) == ({"interval"} if first is None else {"until"})


@PROPERTY_SETTINGS
@given(rule_specs(), windows)
def test_occurrences_are_strictly_increasing_and_strictly_inside_the_bounds(
    spec: RuleSpec, window: tuple[int, int, int]
) -> None:
    offset, length, minutes = window
    after = until_or_far(spec, offset) + dt.timedelta(minutes=minutes)
    before = after + dt.timedelta(days=length, minutes=minutes)
    result = rules.occurrences_between(spec, after, before)
    assert all(after < o < before for o in result)
    assert all(a < b for a, b in itertools.pairwise(result))
    assert all(o.tzinfo is UTC for o in result)


@PROPERTY_SETTINGS
@given(rule_specs(), windows)
def test_window_equals_the_full_iteration_cut_to_the_window(
    spec: RuleSpec, window: tuple[int, int, int]
) -> None:
    # occurrences_between skips ahead on the wall clock; it must not lose or add any.
    offset, length, minutes = window
    after = until_or_far(spec, offset) + dt.timedelta(minutes=minutes)
    before = after + dt.timedelta(days=length)
    full = itertools.takewhile(lambda o: o < before, rules.iter_occurrences(spec))
    assert rules.occurrences_between(spec, after, before) == [o for o in full if o > after]


@PROPERTY_SETTINGS
@given(rule_specs(), st.integers(0, 40))
def test_window_bounds_equal_to_occurrences_are_excluded(spec: RuleSpec, skip: int) -> None:
    occurrences = list(itertools.islice(rules.iter_occurrences(spec), skip, skip + 6))
    assume(len(occurrences) >= 2)
    first, last = occurrences[0], occurrences[-1]
    assert rules.occurrences_between(spec, first, last) == occurrences[1:-1]
    assert rules.occurrences_between(spec, first, last, inclusive=True) == occurrences


@PROPERTY_SETTINGS
@given(rule_specs(), st.integers(-30, 1500))
def test_occurrences_follow_the_date_pattern_and_dst_policy(spec: RuleSpec, offset: int) -> None:
    after = until_or_far(spec, offset)
    for occurrence in rules.occurrences_between(spec, after, after + dt.timedelta(days=800)):
        assert matches_pattern(spec, occurrence.astimezone(spec.zone).date()), occurrence
        assert_dst_policy(spec, occurrence)


@PROPERTY_SETTINGS
@given(rule_specs())
def test_occurrences_equal_an_independent_expansion(spec: RuleSpec) -> None:
    # Every day of the pattern, placed on the wall clock by the DST policy, then cut
    # by COUNT and UNTIL: nothing missed, nothing extra, over 400 days.
    start = spec.dtstart.astimezone(spec.zone).date()
    end = start + dt.timedelta(days=400)
    days = (start + dt.timedelta(days=n) for n in range((end - start).days))
    expected = [policy_instant(spec, day) for day in days if matches_pattern(spec, day)]
    if spec.count is not None:
        expected = expected[: spec.count]
    if spec.until is not None:
        expected = [o for o in expected if o <= rules.to_utc(spec.until)]
    actual = itertools.takewhile(
        lambda o: o.astimezone(spec.zone).date() < end, rules.iter_occurrences(spec)
    )
    assert list(actual) == expected


@PROPERTY_SETTINGS
@given(rule_specs())
def test_dtstart_is_the_first_occurrence_exactly_when_it_matches_the_pattern(
    spec: RuleSpec,
) -> None:
    first = next(iter(rules.iter_occurrences(spec)), None)
    dtstart = rules.to_utc(spec.dtstart)
    if matches_pattern(spec, spec.dtstart.astimezone(spec.zone).date()):
        assert first == dtstart
    else:
        assert first is None or first > dtstart


@PROPERTY_SETTINGS
@given(rule_specs(end="count"))
def test_count_gives_exactly_count_occurrences(spec: RuleSpec) -> None:
    assert spec.count is not None
    occurrences = list(rules.iter_occurrences(spec))
    assert len(occurrences) == spec.count
    before_start = rules.to_utc(spec.dtstart) - dt.timedelta(days=1)
    far = occurrences[-1] + dt.timedelta(days=3660)
    assert rules.occurrences_between(spec, before_start, far) == occurrences
    assert rules.first_occurrence_after(spec, occurrences[-1]) is None


@PROPERTY_SETTINGS
@given(rule_specs(end="count"), st.integers(0, 29))
def test_count_window_cut_keeps_counting_from_dtstart(spec: RuleSpec, index: int) -> None:
    # A window that starts late must not restart COUNT at the window.
    occurrences = list(rules.iter_occurrences(spec))
    assume(index < len(occurrences))
    far = occurrences[-1] + dt.timedelta(days=3660)
    assert rules.occurrences_between(spec, occurrences[index], far) == occurrences[index + 1 :]


@PROPERTY_SETTINGS
@given(rule_specs(end="until"))
def test_until_is_honoured(spec: RuleSpec) -> None:
    assert spec.until is not None
    until = rules.to_utc(spec.until)
    unbounded = dataclasses.replace(spec, until=None)
    expected = list(itertools.takewhile(lambda o: o <= until, rules.iter_occurrences(unbounded)))
    assert list(rules.iter_occurrences(spec)) == expected


@PROPERTY_SETTINGS
@given(rule_specs(end="none"), st.integers(1, 20))
def test_until_on_an_occurrence_includes_it(spec: RuleSpec, index: int) -> None:
    occurrences = list(itertools.islice(rules.iter_occurrences(spec), index + 1))
    assume(len(occurrences) == index + 1)
    bounded = dataclasses.replace(spec, until=occurrences[-1])
    assert list(rules.iter_occurrences(bounded)) == occurrences
    just_before = dataclasses.replace(spec, until=occurrences[-1] - dt.timedelta(seconds=1))
    assert list(rules.iter_occurrences(just_before)) == occurrences[:-1]


@PROPERTY_SETTINGS
@given(rule_specs(), st.integers(-30, 1500), st.integers(0, 1439))
def test_first_occurrence_after_and_is_occurrence_agree_with_the_window(
    spec: RuleSpec, offset: int, minutes: int
) -> None:
    after = until_or_far(spec, offset) + dt.timedelta(minutes=minutes)
    # 30 years covers the longest gap between two occurrences (Feb 29 every 3 years).
    upcoming = rules.occurrences_between(spec, after, after + dt.timedelta(days=30 * 366))
    first = rules.first_occurrence_after(spec, after)
    assert first == (upcoming[0] if upcoming else None)
    for occurrence in upcoming[:5]:
        assert rules.is_occurrence(spec, occurrence)
        # Occurrences are at least a day apart, so a minute later is never one.
        assert not rules.is_occurrence(spec, occurrence + dt.timedelta(minutes=1))
    if len(upcoming) >= 2:
        skip = frozenset(upcoming[:1])
        assert rules.first_occurrence_after(spec, after, skip=skip) == upcoming[1]


@PROPERTY_SETTINGS
@given(
    rule_specs(),
    windows,
    st.integers(-60, 30),
    st.sets(st.integers(0, 12), max_size=6),
    st.sets(st.integers(-40, 80), max_size=3),
)
def test_one_walk_gives_the_window_and_the_next_slot_as_the_two_searches_do(
    spec: RuleSpec,
    window: tuple[int, int, int],
    beyond: int,
    skipped: set[int],
    extra_days: set[int],
) -> None:
    # Generation's single walk (window_and_next) against the two searches it
    # replaced, with extra dates on top and some of the slots after the cursor skipped
    # (generation's cursor is at or past the window's end; any other order answers too).
    offset, length, minutes = window
    lower = until_or_far(spec, offset) + dt.timedelta(minutes=minutes)
    upper = lower + dt.timedelta(days=length)
    after = upper + dt.timedelta(days=beyond, minutes=minutes)
    spec = dataclasses.replace(
        spec, extra_dates=frozenset(lower + dt.timedelta(days=d, hours=5) for d in extra_days)
    )
    later = list(
        itertools.islice(
            (o for o in rules.iter_occurrences(spec) if o > after), max(skipped, default=0) + 1
        )
    )
    skip = frozenset(later[i] for i in skipped if i < len(later))
    assert rules.window_and_next(spec, lower, upper, after=after, skip=skip) == (
        rules.occurrences_between(spec, lower, upper, inclusive=True),
        rules.first_occurrence_after(spec, after, skip=skip),
    )
