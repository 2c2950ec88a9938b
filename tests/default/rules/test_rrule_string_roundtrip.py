"""``rrule_string`` is RFC 5545 text that other parsers read back to the same instants.

Two readers are used:

* ``dateutil.rrule.rrulestr``, as is. It resolves ``TZID`` with ``dateutil.tz.gettz``,
  whose zones read a wall-clock time inside a spring-forward gap with the offset
  *after* the transition, i.e. shifted backward (02:30 on the New York gap day
  becomes 01:30 EST), while our policy shifts forward (03:30 EDT) as RFC 5545
  §3.3.5 says. Comparisons with the plain reader therefore leave out occurrences
  whose wall-clock time does not exist; everything else must match exactly. Given
  ``tzids=ZoneInfo``, the same reader matches everywhere, gaps included.
  ``gettz`` zones also read only the explicit transitions of the system's TZif
  file and ignore its POSIX footer rule, so from 2038 (where "fat" TZif files stop
  listing transitions) they freeze the last offset; the plain reader is compared
  before 2038 only.
* ``icalendar``: the text is parsed as a VEVENT; icalendar 6/7 gives ``DTSTART``
  as a datetime with a ``zoneinfo`` zone (``event.start``) and the RRULE as a
  ``vRecur`` (``event.rrules``). icalendar does not expand rules itself (its docs
  point to other projects), so the parsed pair is expanded with dateutil's
  ``rrulestr(vrecur.to_ical(), dtstart=event.start)``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
from dateutil.rrule import rrule, rrulestr
from hypothesis import given
from hypothesis import strategies as st

from revel_recurring import rules
from revel_recurring.models import RecurrenceRule
from revel_recurring.rules import Frequency, MonthlyType, RuleSpec
from tests.default.rules.test_rules_properties import (
    PROPERTY_SETTINGS,
    instants_of,
    rule_specs,
    wall_clock,
)
from tests.support.factories import NEW_YORK, UTC, VIENNA

# dateutil.tz.gettz zones are reliable before this instant only (module docstring).
GETTZ_HORIZON = dt.datetime(2038, 1, 1, tzinfo=UTC)


def read_with_dateutil(text: str, **kwargs: Any) -> rrule:
    parsed = rrulestr(text, **kwargs)
    assert isinstance(parsed, rrule)
    return parsed


def read_with_icalendar(text: str) -> rrule:
    event = icalendar.Event.from_ical(f"BEGIN:VEVENT\r\n{text}\r\nEND:VEVENT\r\n")
    assert isinstance(event, icalendar.Event)
    (recur,) = event.rrules
    return read_with_dateutil(recur.to_ical().decode(), dtstart=event.start)


def between(parsed: rrule, after: dt.datetime, before: dt.datetime) -> list[dt.datetime]:
    return [o.astimezone(UTC) for o in parsed.between(after, before, inc=False)]


def wall_clock_exists(spec: RuleSpec, occurrence: dt.datetime) -> bool:
    """Whether dtstart's wall clock exists on the occurrence's local date."""
    local_day = occurrence.astimezone(spec.zone).date()
    return bool(instants_of(dt.datetime.combine(local_day, wall_clock(spec)), spec.zone))


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        (
            RuleSpec(
                Frequency.DAILY,
                dt.datetime(1997, 9, 2, 9, 0, tzinfo=NEW_YORK),
                "America/New_York",
                count=10,
            ),
            "DTSTART;TZID=America/New_York:19970902T090000\nRRULE:FREQ=DAILY;COUNT=10",
        ),
        (
            RuleSpec(
                Frequency.WEEKLY,
                dt.datetime(1997, 9, 1, 9, 0, tzinfo=NEW_YORK),
                "America/New_York",
                interval=2,
                weekdays=(4, 0, 2),
                until=dt.datetime(1997, 12, 24, tzinfo=UTC),
            ),
            "DTSTART;TZID=America/New_York:19970901T090000\n"
            "RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;BYDAY=MO,WE,FR",
        ),
        (
            RuleSpec(
                Frequency.MONTHLY,
                dt.datetime(1997, 9, 22, 9, 0, tzinfo=NEW_YORK),
                "America/New_York",
                monthly_type=MonthlyType.NTH_WEEKDAY,
                nth_weekday=-2,
                weekday=0,
                count=6,
            ),
            "DTSTART;TZID=America/New_York:19970922T090000\nRRULE:FREQ=MONTHLY;COUNT=6;BYDAY=-2MO",
        ),
        (
            # dtstart given in UTC is written as wall clock in the rule zone; until
            # given in Vienna is written in UTC with Z (RFC 5545 §3.3.10).
            RuleSpec(
                Frequency.MONTHLY,
                dt.datetime(2025, 1, 31, 17, 0, tzinfo=UTC),
                "Europe/Vienna",
                monthly_type=MonthlyType.DAY_OF_MONTH,
                day_of_month=-1,
                until=dt.datetime(2025, 7, 31, 18, 0, tzinfo=VIENNA),
            ),
            "DTSTART;TZID=Europe/Vienna:20250131T180000\n"
            "RRULE:FREQ=MONTHLY;UNTIL=20250731T160000Z;BYMONTHDAY=-1",
        ),
        (
            RuleSpec(
                Frequency.YEARLY,
                dt.datetime(2024, 2, 29, 9, 0, tzinfo=ZoneInfo("Asia/Kolkata")),
                "Asia/Kolkata",
                interval=4,
            ),
            "DTSTART;TZID=Asia/Kolkata:20240229T090000\nRRULE:FREQ=YEARLY;INTERVAL=4",
        ),
    ],
)
def test_rrule_string_text(spec: RuleSpec, text: str) -> None:
    assert rules.to_rrule_string(spec) == text


def test_icalendar_reads_the_parts_back() -> None:
    spec = RuleSpec(
        Frequency.WEEKLY,
        dt.datetime(2025, 3, 17, 10, 0, tzinfo=VIENNA),
        "Europe/Vienna",
        interval=2,
        weekdays=(0, 3),
        until=dt.datetime(2025, 12, 1, 9, 0, tzinfo=UTC),
    )
    event = icalendar.Event.from_ical(f"BEGIN:VEVENT\n{rules.to_rrule_string(spec)}\nEND:VEVENT\n")
    assert isinstance(event, icalendar.Event)
    start = event.start
    assert isinstance(start, dt.datetime)
    assert (start.replace(tzinfo=None), start.tzinfo) == (dt.datetime(2025, 3, 17, 10, 0), VIENNA)
    (recur,) = event.rrules
    assert recur["FREQ"] == ["WEEKLY"]
    assert recur["INTERVAL"] == [2]
    assert recur["BYDAY"] == ["MO", "TH"]
    assert recur["UNTIL"] == [dt.datetime(2025, 12, 1, 9, 0, tzinfo=UTC)]


SAMPLE_RULES: list[dict[str, Any]] = [
    {
        "frequency": "WEEKLY",
        "dtstart": dt.datetime(2025, 1, 6, 10, 0, tzinfo=VIENNA),
        "timezone": "Europe/Vienna",
    },
    {
        "frequency": "WEEKLY",
        "dtstart": dt.datetime(1997, 9, 1, 9, 0, tzinfo=NEW_YORK),
        "timezone": "America/New_York",
        "interval": 2,
        "weekdays": [0, 2, 4],
        "until": dt.datetime(1997, 12, 24, tzinfo=UTC),
    },
    {
        "frequency": "DAILY",
        "dtstart": dt.datetime(2025, 10, 30, 1, 30, tzinfo=NEW_YORK),
        "timezone": "America/New_York",
        "interval": 3,
        "count": 40,
    },
    {
        "frequency": "MONTHLY",
        "dtstart": dt.datetime(2025, 1, 31, 18, 0, tzinfo=VIENNA),
        "timezone": "Europe/Vienna",
        "monthly_type": "NTH_WEEKDAY",
        "nth_weekday": -1,
        "weekday": 4,
    },
    {
        "frequency": "MONTHLY",
        "dtstart": dt.datetime(2025, 1, 31, 12, 0, tzinfo=ZoneInfo("Australia/Lord_Howe")),
        "timezone": "Australia/Lord_Howe",
        "monthly_type": "DAY_OF_MONTH",
        "day_of_month": 31,
        "count": 12,
    },
    {
        "frequency": "MONTHLY",
        "dtstart": dt.datetime(2025, 1, 30, 19, 0, tzinfo=ZoneInfo("Asia/Kolkata")),
        "timezone": "Asia/Kolkata",
        "monthly_type": "NTH_WEEKDAY",
        "nth_weekday": 5,
        "weekday": 3,
    },
    {
        "frequency": "YEARLY",
        "dtstart": dt.datetime(2024, 2, 29, 9, 0, tzinfo=UTC),
        "timezone": "UTC",
        "until": dt.datetime(2040, 3, 1, tzinfo=UTC),
    },
]
WINDOW = (dt.datetime(1997, 1, 1, tzinfo=UTC), dt.datetime(2041, 1, 1, tzinfo=UTC))


@pytest.mark.django_db
@pytest.mark.parametrize("fields", SAMPLE_RULES, ids=lambda f: f"{f['frequency']}-{f['timezone']}")
def test_saved_rule_string_reads_back_to_the_same_instants(fields: dict[str, Any]) -> None:
    rule = RecurrenceRule.objects.create(**fields)
    text = RecurrenceRule.objects.get(pk=rule.pk).rrule_string
    expected = rule.get_occurrences(*WINDOW)
    assert len(expected) >= 5
    plain = between(read_with_dateutil(text), WINDOW[0], GETTZ_HORIZON)
    assert plain == [o for o in expected if o < GETTZ_HORIZON]
    assert between(read_with_dateutil(text, tzids=ZoneInfo), *WINDOW) == expected
    assert between(read_with_icalendar(text), *WINDOW) == expected


GAP_RULE = RuleSpec(
    Frequency.DAILY,
    dt.datetime(2025, 3, 7, 2, 30, tzinfo=NEW_YORK),
    "America/New_York",
    count=5,
)


def test_gap_time_round_trips_exactly_through_icalendar_and_zoneinfo() -> None:
    text = rules.to_rrule_string(GAP_RULE)
    expected = list(rules.iter_occurrences(GAP_RULE))
    assert [o.astimezone(UTC) for o in read_with_icalendar(text)] == expected
    assert [o.astimezone(UTC) for o in read_with_dateutil(text, tzids=ZoneInfo)] == expected


def test_plain_dateutil_agrees_except_on_the_gap_day() -> None:
    expected = list(rules.iter_occurrences(GAP_RULE))
    parsed = list(read_with_dateutil(rules.to_rrule_string(GAP_RULE)))
    # Same wall clocks and the same count: the gap day is still one occurrence.
    assert [p.replace(tzinfo=None) for p in parsed] == [
        dt.datetime(2025, 3, day, 2, 30) for day in range(7, 12)
    ]
    gap_day = expected[2]
    kept = [o for o in expected if o != gap_day]
    assert [p.astimezone(UTC) for p in parsed if p.day != 9] == kept


@PROPERTY_SETTINGS
@given(rule_specs(), st.integers(-10, 1000), st.integers(0, 400))
def test_rrule_string_round_trip_property(spec: RuleSpec, offset: int, length: int) -> None:
    text = rules.to_rrule_string(spec)
    after = spec.dtstart.astimezone(UTC) + dt.timedelta(days=offset)
    before = after + dt.timedelta(days=length)
    expected = rules.occurrences_between(spec, after, before)

    assert between(read_with_icalendar(text), after, before) == expected
    assert between(read_with_dateutil(text, tzids=ZoneInfo), after, before) == expected

    # Plain dateutil: only before 2038 and where the wall-clock time exists (see the
    # module docstring).
    plain = between(read_with_dateutil(text), after, min(before, GETTZ_HORIZON))
    assert [o for o in plain if wall_clock_exists(spec, o)] == [
        o for o in expected if o < GETTZ_HORIZON and wall_clock_exists(spec, o)
    ]


@pytest.mark.django_db
def test_rule_with_sub_second_dtstart_round_trips() -> None:
    # RFC 5545 DATE-TIME has whole seconds: the saved rule starts on the whole second,
    # so its first occurrence is dtstart itself and every reader agrees on it.
    start = dt.datetime(2025, 3, 17, 10, 0, 0, 250_000, tzinfo=VIENNA)
    rule = RecurrenceRule.objects.create(frequency="DAILY", dtstart=start, timezone="Europe/Vienna")
    after, before = start - dt.timedelta(days=1), start + dt.timedelta(days=10)
    expected = rule.get_occurrences(after, before)
    assert expected[0] == rule.dtstart == dt.datetime(2025, 3, 17, 9, 0, tzinfo=UTC)
    assert between(read_with_icalendar(rule.rrule_string), after, before) == expected
    assert between(read_with_dateutil(rule.rrule_string), after, before) == expected
