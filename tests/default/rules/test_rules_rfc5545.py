"""The examples of RFC 5545 §3.8.5.3 that a RecurrenceRule can express.

Expected dates are transcribed by hand from the RFC (all examples use
``DTSTART;TZID=America/New_York`` at 09:00). The RFC labels each group EDT or EST,
so 09:00 EDT is written as 13:00Z and 09:00 EST as 14:00Z: the UTC instants below
encode the RFC's own offset labels, not a zone database lookup.

The RFC writes ``WKST=SU`` on several weekly examples; the app always uses the RFC
default ``WKST=MO``. For the examples kept here that changes nothing (interval 1,
no BYDAY, or BYDAY days that fall in the same Sunday- and Monday-started week);
the one example where WKST matters is tested in its ``WKST=MO`` form.

RFC examples that the fields cannot express, and why:

* every day in January for 3 years: needs BYMONTH (and YEARLY with a BYDAY list);
* every other month on the first and last Sunday: two BYDAY entries in one rule;
* monthly on the third-to-last day: BYMONTHDAY=-3 (only -1 is offered);
* monthly on the 2nd and 15th, on the first and last day, every 18 months on the
  10th to 15th, and the "invalid date (February 30) is ignored" example: several
  BYMONTHDAY values in one rule (the single-day analogue, day 31, is in
  test_rules_dst.py);
* every Tuesday, every other month: BYDAY without an ordinal in a MONTHLY rule;
* yearly in June and July, every other year in January to March, every Thursday
  in March, every Thursday in June to August: BYMONTH;
* every third year on days 1, 100 and 200: BYYEARDAY;
* every 20th Monday of the year: an ordinal BYDAY in a YEARLY rule;
* Monday of week number 20: BYWEEKNO;
* every Friday the 13th, the first Saturday after the first Sunday, US election
  day: BYDAY combined with BYMONTHDAY (and BYMONTH);
* the third Tuesday/Wednesday/Thursday, the second-to-last weekday: BYSETPOS;
* every 3 hours, every 15 minutes, every hour and a half, every 20 minutes:
  HOURLY/MINUTELY frequencies and BYHOUR/BYMINUTE;
* the ``WKST=SU`` variant of the TU,SU every-other-week example: no WKST field.

No RFC example is a plain YEARLY rule; yearly recurrence (Feb 29) is covered in
test_rules_dst.py.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from revel_recurring import rules
from revel_recurring.models import RecurrenceRule
from revel_recurring.rules import Frequency, MonthlyType, RuleSpec
from tests.support.factories import UTC

NEW_YORK = "America/New_York"
UNTIL_DEC_24 = dt.datetime(1997, 12, 24, 0, 0, tzinfo=UTC)  # UNTIL=19971224T000000Z


def edt(year: int, month: int, *days: int) -> list[dt.datetime]:
    """09:00 EDT (UTC-4) on each day."""
    return [dt.datetime(year, month, day, 13, 0, tzinfo=UTC) for day in days]


def est(year: int, month: int, *days: int) -> list[dt.datetime]:
    """09:00 EST (UTC-5) on each day."""
    return [dt.datetime(year, month, day, 14, 0, tzinfo=UTC) for day in days]


@dataclass(frozen=True)
class RfcExample:
    name: str
    frequency: Frequency
    start: tuple[int, int, int]
    expected: list[dt.datetime]
    fields: dict[str, Any] = field(default_factory=dict)
    # For the RFC's "forever" examples: the exclusive end of the window compared.
    window_end: dt.datetime | None = None

    @property
    def dtstart(self) -> dt.datetime:
        return dt.datetime(*self.start, 9, 0, tzinfo=ZoneInfo(NEW_YORK))

    def spec(self) -> RuleSpec:
        return RuleSpec(
            frequency=self.frequency, dtstart=self.dtstart, timezone=NEW_YORK, **self.fields
        )


EXAMPLES = [
    RfcExample(
        "daily for 10 occurrences",
        Frequency.DAILY,
        (1997, 9, 2),
        edt(1997, 9, *range(2, 12)),
        {"count": 10},
    ),
    RfcExample(
        "daily until December 24, 1997",
        Frequency.DAILY,
        (1997, 9, 2),
        edt(1997, 9, *range(2, 31))
        + edt(1997, 10, *range(1, 26))
        + est(1997, 10, *range(26, 32))
        + est(1997, 11, *range(1, 31))
        + est(1997, 12, *range(1, 24)),
        {"until": UNTIL_DEC_24},
    ),
    RfcExample(
        "every other day, forever (window to December 4)",
        Frequency.DAILY,
        (1997, 9, 2),
        edt(1997, 9, *range(2, 31, 2))
        + edt(1997, 10, *range(2, 25, 2))
        + est(1997, 10, 26, 28, 30)
        + est(1997, 11, *range(1, 30, 2))
        + est(1997, 12, 1, 3),
        {"interval": 2},
        window_end=dt.datetime(1997, 12, 4, tzinfo=UTC),
    ),
    RfcExample(
        "every 10 days, 5 occurrences",
        Frequency.DAILY,
        (1997, 9, 2),
        edt(1997, 9, 2, 12, 22) + edt(1997, 10, 2, 12),
        {"interval": 10, "count": 5},
    ),
    RfcExample(
        "weekly for 10 occurrences",
        Frequency.WEEKLY,
        (1997, 9, 2),
        # Local 09:00 is kept across the Oct 26 switch: the UTC hour moves 13 -> 14.
        edt(1997, 9, 2, 9, 16, 23, 30)
        + edt(1997, 10, 7, 14, 21)
        + est(1997, 10, 28)
        + est(1997, 11, 4),
        {"count": 10},
    ),
    RfcExample(
        "weekly until December 24, 1997",
        Frequency.WEEKLY,
        (1997, 9, 2),
        edt(1997, 9, 2, 9, 16, 23, 30)
        + edt(1997, 10, 7, 14, 21)
        + est(1997, 10, 28)
        + est(1997, 11, 4, 11, 18, 25)
        + est(1997, 12, 2, 9, 16, 23),
        {"until": UNTIL_DEC_24},
    ),
    RfcExample(
        "every other week, forever (window to February 18, 1998)",
        Frequency.WEEKLY,
        (1997, 9, 2),
        edt(1997, 9, 2, 16, 30)
        + edt(1997, 10, 14)
        + est(1997, 10, 28)
        + est(1997, 11, 11, 25)
        + est(1997, 12, 9, 23)
        + est(1998, 1, 6, 20)
        + est(1998, 2, 3, 17),
        {"interval": 2},
        window_end=dt.datetime(1998, 2, 18, tzinfo=UTC),
    ),
    RfcExample(
        "weekly on Tuesday and Thursday for five weeks (UNTIL form)",
        Frequency.WEEKLY,
        (1997, 9, 2),
        edt(1997, 9, 2, 4, 9, 11, 16, 18, 23, 25, 30) + edt(1997, 10, 2),
        {"weekdays": (1, 3), "until": dt.datetime(1997, 10, 7, 0, 0, tzinfo=UTC)},
    ),
    RfcExample(
        "weekly on Tuesday and Thursday for five weeks (COUNT form)",
        Frequency.WEEKLY,
        (1997, 9, 2),
        edt(1997, 9, 2, 4, 9, 11, 16, 18, 23, 25, 30) + edt(1997, 10, 2),
        {"weekdays": (1, 3), "count": 10},
    ),
    RfcExample(
        "every other week on Monday, Wednesday and Friday until December 24, 1997",
        Frequency.WEEKLY,
        (1997, 9, 1),
        edt(1997, 9, 1, 3, 5, 15, 17, 19, 29)
        + edt(1997, 10, 1, 3, 13, 15, 17)
        + est(1997, 10, 27, 29, 31)
        + est(1997, 11, 10, 12, 14, 24, 26, 28)
        + est(1997, 12, 8, 10, 12, 22),
        {"interval": 2, "weekdays": (0, 2, 4), "until": UNTIL_DEC_24},
    ),
    RfcExample(
        "every other week on Tuesday and Thursday, for 8 occurrences",
        Frequency.WEEKLY,
        (1997, 9, 2),
        edt(1997, 9, 2, 4, 16, 18, 30) + edt(1997, 10, 2, 14, 16),
        {"interval": 2, "weekdays": (1, 3), "count": 8},
    ),
    RfcExample(
        "every other week on Tuesday and Sunday, 4 occurrences, WKST=MO",
        Frequency.WEEKLY,
        (1997, 8, 5),
        edt(1997, 8, 5, 10, 19, 24),
        {"interval": 2, "weekdays": (1, 6), "count": 4},
    ),
    RfcExample(
        "monthly on the first Friday for 10 occurrences",
        Frequency.MONTHLY,
        (1997, 9, 5),
        edt(1997, 9, 5)
        + edt(1997, 10, 3)
        + est(1997, 11, 7)
        + est(1997, 12, 5)
        + est(1998, 1, 2)
        + est(1998, 2, 6)
        + est(1998, 3, 6)
        + est(1998, 4, 3)
        + edt(1998, 5, 1)
        + edt(1998, 6, 5),
        {"monthly_type": MonthlyType.NTH_WEEKDAY, "nth_weekday": 1, "weekday": 4, "count": 10},
    ),
    RfcExample(
        "monthly on the first Friday until December 24, 1997",
        Frequency.MONTHLY,
        (1997, 9, 5),
        edt(1997, 9, 5) + edt(1997, 10, 3) + est(1997, 11, 7) + est(1997, 12, 5),
        {
            "monthly_type": MonthlyType.NTH_WEEKDAY,
            "nth_weekday": 1,
            "weekday": 4,
            "until": UNTIL_DEC_24,
        },
    ),
    RfcExample(
        "monthly on the second-to-last Monday for 6 months",
        Frequency.MONTHLY,
        (1997, 9, 22),
        edt(1997, 9, 22)
        + edt(1997, 10, 20)
        + est(1997, 11, 17)
        + est(1997, 12, 22)
        + est(1998, 1, 19)
        + est(1998, 2, 16),
        {"monthly_type": MonthlyType.NTH_WEEKDAY, "nth_weekday": -2, "weekday": 0, "count": 6},
    ),
]


def _expand(example: RfcExample) -> list[dt.datetime]:
    spec = example.spec()
    if example.window_end is None:
        return list(rules.iter_occurrences(spec))
    # A second before dtstart, so the strict lower bound still admits dtstart itself.
    return rules.occurrences_between(
        spec, example.dtstart - dt.timedelta(seconds=1), example.window_end
    )


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_rfc5545_example_gives_the_rfc_dates(example: RfcExample) -> None:
    assert _expand(example) == example.expected


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_rfc5545_example_local_time_stays_nine_oclock(example: RfcExample) -> None:
    zone = ZoneInfo(NEW_YORK)
    assert {o.astimezone(zone).time() for o in _expand(example)} == {dt.time(9, 0)}


@pytest.mark.parametrize(
    "example", [e for e in EXAMPLES if e.window_end is None], ids=lambda e: e.name
)
def test_rfc5545_bounded_example_has_nothing_after_its_last_date(example: RfcExample) -> None:
    last = example.expected[-1]
    far = last + dt.timedelta(days=3 * 366)
    assert rules.occurrences_between(example.spec(), last, far) == []
    assert rules.first_occurrence_after(example.spec(), last) is None


@pytest.mark.django_db
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_rfc5545_example_through_saved_recurrence_rule(example: RfcExample) -> None:
    values = dict(example.fields)
    if "weekdays" in values:
        values["weekdays"] = list(values["weekdays"])
    rule = RecurrenceRule.objects.create(
        frequency=example.frequency, dtstart=example.dtstart, timezone=NEW_YORK, **values
    )
    rule.refresh_from_db()  # dtstart comes back from the database in UTC
    end = example.window_end or example.expected[-1] + dt.timedelta(days=400)
    assert rule.get_occurrences(example.dtstart - dt.timedelta(seconds=1), end) == (
        example.expected
    )
