"""rule_from_ical: the RFC 5545 §3.8.5.3 examples, imported or refused by part."""

from __future__ import annotations

import datetime as dt
import itertools
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError

from revel_recurring import rules
from revel_recurring.ical import rule_from_ical
from revel_recurring.validators import validate_rule

NY = ZoneInfo("America/New_York")
START = "DTSTART;TZID=America/New_York:19970902T090000"


def _days(year: int, month: int, *days: int) -> list[dt.date]:
    return [dt.date(year, month, d) for d in days]


def _range(first: dt.date, last: dt.date) -> list[dt.date]:
    return [first + dt.timedelta(days=n) for n in range((last - first).days + 1)]


def _dates(text: str, limit: int) -> list[dt.date]:
    data = rule_from_ical(text)
    validate_rule(data)
    spec = rules.RuleSpec(
        frequency=rules.Frequency(data["frequency"]),
        dtstart=data["dtstart"],
        timezone=data["timezone"],
        interval=data["interval"],
        weekdays=tuple(data.get("weekdays") or ()),
        monthly_type=rules.MonthlyType(data["monthly_type"]) if data.get("monthly_type") else None,
        day_of_month=data.get("day_of_month"),
        nth_weekday=data.get("nth_weekday"),
        weekday=data.get("weekday"),
        until=data["until"],
        count=data["count"],
    )
    instants = itertools.islice(rules.iter_occurrences(spec), limit)
    local = [instant.astimezone(NY) for instant in instants]
    # Every example keeps 09:00 New York time, on either side of the DST change.
    assert {(t.hour, t.minute) for t in local} == {(9, 0)}
    return [t.date() for t in local]


EXPRESSIBLE = [
    pytest.param(
        f"{START}\nRRULE:FREQ=DAILY;COUNT=10",
        100,
        _range(dt.date(1997, 9, 2), dt.date(1997, 9, 11)),
        id="daily-10",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=DAILY;UNTIL=19971224T000000Z",
        500,
        _range(dt.date(1997, 9, 2), dt.date(1997, 12, 23)),
        id="daily-until",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=DAILY;INTERVAL=2",
        8,
        _days(1997, 9, 2, 4, 6, 8, 10, 12, 14, 16),
        id="every-other-day",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=DAILY;INTERVAL=10;COUNT=5",
        100,
        [*_days(1997, 9, 2, 12, 22), *_days(1997, 10, 2, 12)],
        id="every-10-days",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=WEEKLY;COUNT=10",
        100,
        [*_days(1997, 9, 2, 9, 16, 23, 30), *_days(1997, 10, 7, 14, 21, 28), *_days(1997, 11, 4)],
        id="weekly-10",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=WEEKLY;UNTIL=19971224T000000Z",
        100,
        _range(dt.date(1997, 9, 2), dt.date(1997, 12, 23))[::7],
        id="weekly-until",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=WEEKLY;INTERVAL=2;WKST=SU",
        13,
        [
            *_days(1997, 9, 2, 16, 30),
            *_days(1997, 10, 14, 28),
            *_days(1997, 11, 11, 25),
            *_days(1997, 12, 9, 23),
            *_days(1998, 1, 6, 20),
            *_days(1998, 2, 3, 17),
        ],
        id="every-other-week",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=WEEKLY;UNTIL=19971007T000000Z;WKST=SU;BYDAY=TU,TH",
        100,
        [*_days(1997, 9, 2, 4, 9, 11, 16, 18, 23, 25, 30), *_days(1997, 10, 2)],
        id="tue-thu-five-weeks-until",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=WEEKLY;COUNT=10;WKST=SU;BYDAY=TU,TH",
        100,
        [*_days(1997, 9, 2, 4, 9, 11, 16, 18, 23, 25, 30), *_days(1997, 10, 2)],
        id="tue-thu-five-weeks-count",
    ),
    pytest.param(
        "DTSTART;TZID=America/New_York:19970901T090000\n"
        "RRULE:FREQ=WEEKLY;INTERVAL=2;UNTIL=19971224T000000Z;WKST=SU;BYDAY=MO,WE,FR",
        100,
        [
            *_days(1997, 9, 1, 3, 5, 15, 17, 19, 29),
            *_days(1997, 10, 1, 3, 13, 15, 17, 27, 29, 31),
            *_days(1997, 11, 10, 12, 14, 24, 26, 28),
            *_days(1997, 12, 8, 10, 12, 22),
        ],
        id="every-other-week-mo-we-fr",
    ),
    pytest.param(
        f"{START}\nRRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=8;WKST=SU;BYDAY=TU,TH",
        100,
        [*_days(1997, 9, 2, 4, 16, 18, 30), *_days(1997, 10, 2, 14, 16)],
        id="every-other-week-tu-th-8",
    ),
    pytest.param(
        "DTSTART;TZID=America/New_York:19970905T090000\nRRULE:FREQ=MONTHLY;COUNT=10;BYDAY=1FR",
        100,
        [
            dt.date(1997, 9, 5),
            dt.date(1997, 10, 3),
            dt.date(1997, 11, 7),
            dt.date(1997, 12, 5),
            dt.date(1998, 1, 2),
            dt.date(1998, 2, 6),
            dt.date(1998, 3, 6),
            dt.date(1998, 4, 3),
            dt.date(1998, 5, 1),
            dt.date(1998, 6, 5),
        ],
        id="monthly-first-friday-10",
    ),
    pytest.param(
        "DTSTART;TZID=America/New_York:19970905T090000\n"
        "RRULE:FREQ=MONTHLY;UNTIL=19971224T000000Z;BYDAY=1FR",
        100,
        [dt.date(1997, 9, 5), dt.date(1997, 10, 3), dt.date(1997, 11, 7), dt.date(1997, 12, 5)],
        id="monthly-first-friday-until",
    ),
    pytest.param(
        "DTSTART;TZID=America/New_York:19970922T090000\nRRULE:FREQ=MONTHLY;COUNT=6;BYDAY=-2MO",
        100,
        [
            dt.date(1997, 9, 22),
            dt.date(1997, 10, 20),
            dt.date(1997, 11, 17),
            dt.date(1997, 12, 22),
            dt.date(1998, 1, 19),
            dt.date(1998, 2, 16),
        ],
        id="monthly-second-to-last-monday",
    ),
    pytest.param(
        "DTSTART;TZID=America/New_York:19970805T090000\n"
        "RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO",
        100,
        _days(1997, 8, 5, 10, 19, 24),
        id="wkst-monday",
    ),
]


@pytest.mark.parametrize(("text", "limit", "expected"), EXPRESSIBLE)
def test_expressible_rfc_examples_produce_the_listed_dates(
    text: str, limit: int, expected: list[dt.date]
) -> None:
    assert _dates(text, limit) == expected


REFUSED = [
    pytest.param(
        "RRULE:FREQ=YEARLY;UNTIL=20000131T140000Z;BYMONTH=1;BYDAY=SU,MO,TU,WE,TH,FR,SA",
        {"BYDAY", "BYMONTH"},
        id="january-daily-yearly",
    ),
    pytest.param(
        "RRULE:FREQ=DAILY;UNTIL=20000131T140000Z;BYMONTH=1", {"BYMONTH"}, id="january-daily"
    ),
    pytest.param(
        "RRULE:FREQ=MONTHLY;INTERVAL=2;COUNT=10;BYDAY=1SU,-1SU",
        {"BYDAY"},
        id="first-and-last-sunday",
    ),
    pytest.param("RRULE:FREQ=MONTHLY;BYMONTHDAY=-3", {"BYMONTHDAY"}, id="third-to-last-day"),
    pytest.param("RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=2,15", {"BYMONTHDAY"}, id="2nd-and-15th"),
    pytest.param(
        "RRULE:FREQ=MONTHLY;COUNT=10;BYMONTHDAY=1,-1", {"BYMONTHDAY"}, id="first-and-last-day"
    ),
    pytest.param(
        "RRULE:FREQ=MONTHLY;INTERVAL=18;COUNT=10;BYMONTHDAY=10,11,12,13,14,15",
        {"BYMONTHDAY"},
        id="10th-to-15th",
    ),
    pytest.param(
        "RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=TU", {"BYDAY"}, id="every-tuesday-other-month"
    ),
    pytest.param("RRULE:FREQ=YEARLY;COUNT=10;BYMONTH=6,7", {"BYMONTH"}, id="june-and-july"),
    pytest.param(
        "RRULE:FREQ=YEARLY;INTERVAL=2;COUNT=10;BYMONTH=1,2,3", {"BYMONTH"}, id="jan-feb-mar"
    ),
    pytest.param(
        "RRULE:FREQ=YEARLY;INTERVAL=3;COUNT=10;BYYEARDAY=1,100,200", {"BYYEARDAY"}, id="yeardays"
    ),
    pytest.param("RRULE:FREQ=YEARLY;BYDAY=20MO", {"BYDAY"}, id="20th-monday"),
    pytest.param("RRULE:FREQ=YEARLY;BYWEEKNO=20;BYDAY=MO", {"BYWEEKNO", "BYDAY"}, id="week-20"),
    pytest.param(
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=TH", {"BYMONTH", "BYDAY"}, id="thursdays-in-march"
    ),
    pytest.param(
        "RRULE:FREQ=YEARLY;BYDAY=TH;BYMONTH=6,7,8", {"BYMONTH", "BYDAY"}, id="summer-thursdays"
    ),
    pytest.param("RRULE:FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13", {"BYMONTHDAY"}, id="friday-13th"),
    pytest.param(
        "RRULE:FREQ=MONTHLY;BYDAY=SA;BYMONTHDAY=7,8,9,10,11,12,13",
        {"BYMONTHDAY"},
        id="saturday-after-first-sunday",
    ),
    pytest.param(
        "RRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=11;BYDAY=TU;BYMONTHDAY=2,3,4,5,6,7,8",
        {"BYMONTH", "BYMONTHDAY", "BYDAY"},
        id="election-day",
    ),
    pytest.param(
        "RRULE:FREQ=MONTHLY;COUNT=3;BYDAY=TU,WE,TH;BYSETPOS=3",
        {"BYSETPOS", "BYDAY"},
        id="bysetpos-3",
    ),
    pytest.param(
        "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-2",
        {"BYSETPOS", "BYDAY"},
        id="second-to-last-weekday",
    ),
    pytest.param(
        "RRULE:FREQ=HOURLY;INTERVAL=3;UNTIL=19970902T170000Z", {"FREQ"}, id="every-3-hours"
    ),
    pytest.param("RRULE:FREQ=MINUTELY;INTERVAL=15;COUNT=6", {"FREQ"}, id="every-15-minutes"),
    pytest.param("RRULE:FREQ=MINUTELY;INTERVAL=90;COUNT=4", {"FREQ"}, id="every-90-minutes"),
    pytest.param(
        "RRULE:FREQ=DAILY;BYHOUR=9,10,11,12,13,14,15,16;BYMINUTE=0,20,40",
        {"BYHOUR", "BYMINUTE"},
        id="every-20-minutes-daily",
    ),
    pytest.param(
        "RRULE:FREQ=MINUTELY;INTERVAL=20;BYHOUR=9,10,11,12,13,14,15,16",
        {"FREQ", "BYHOUR"},
        id="every-20-minutes-minutely",
    ),
]


@pytest.mark.parametrize(("rule", "parts"), REFUSED)
def test_inexpressible_rfc_examples_are_refused_naming_the_part(rule: str, parts: set[str]) -> None:
    with pytest.raises(ValidationError) as caught:
        rule_from_ical(f"{START}\n{rule}")

    assert set(caught.value.message_dict) == parts
    for part, messages in caught.value.message_dict.items():
        assert all(part in message for message in messages), messages


def test_week_start_that_changes_the_dates_is_refused() -> None:
    text = (
        "DTSTART;TZID=America/New_York:19970805T090000\n"
        "RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU"
    )

    with pytest.raises(ValidationError) as caught:
        rule_from_ical(text)

    assert list(caught.value.message_dict) == ["WKST"]


def test_whole_vevent_with_utc_start_imports() -> None:
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\n"
        "UID:1@x\r\nSUMMARY:Standup\r\nDTSTART:20270104T083000Z\r\n"
        "RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20270131\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )

    data = rule_from_ical(text)

    assert data["frequency"] == "WEEKLY"
    assert data["weekdays"] == [0, 1, 2, 3, 4]
    assert data["timezone"] == "UTC"
    assert data["until"] == dt.datetime(2027, 1, 31, 23, 59, 59, tzinfo=ZoneInfo("UTC"))


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("RRULE:FREQ=DAILY", "DTSTART"),
        ("DTSTART:20270104T083000\nRRULE:FREQ=DAILY", "DTSTART"),
        ("DTSTART;VALUE=DATE:20270104\nRRULE:FREQ=DAILY", "DTSTART"),
        ("DTSTART:20270104T083000Z", "RRULE"),
        ("DTSTART:20270104T083000Z\nRRULE:FREQ=DAILY\nRDATE:20270201T083000", "RDATE"),
        ("DTSTART:20270104T083000Z\nRRULE:FREQ=DAILY\nRDATE;VALUE=DATE:20270201", "RDATE"),
        ("DTSTART:20270104T083000Z\nRRULE:FREQ=DAILY\nEXDATE:20270105T083000Z", "EXDATE"),
        ("DTSTART:20270104T083000Z\nRRULE:FREQ=DAILY;X-NAME=1", "X-NAME"),
        ("DTSTART:20270104T083000Z\nRRULE:FREQ=FORTNIGHTLY", "RRULE"),
        ("DTSTART:20270104T083000Z\nRRULE:FREQ=HOURLY", "FREQ"),
        ("", "RRULE"),
    ],
)
def test_what_a_series_cannot_hold_is_refused_by_part(text: str, part: str) -> None:
    with pytest.raises(ValidationError) as caught:
        rule_from_ical(text)

    assert part in caught.value.message_dict
