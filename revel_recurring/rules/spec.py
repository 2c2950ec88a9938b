"""A rule's fields: the frequencies, which fields each reads, and :class:`RuleSpec`."""

from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from ..holiday_rules import HolidayRule


class Frequency(enum.StrEnum):
    """RFC 5545 FREQ values the app supports."""

    DAILY = "DAILY"
    WEEKLY = "WEEKLY"
    MONTHLY = "MONTHLY"
    YEARLY = "YEARLY"


class MonthlyType(enum.StrEnum):
    """How a MONTHLY rule picks its day: a day of the month, or the nth weekday."""

    DAY_OF_MONTH = "DAY_OF_MONTH"
    NTH_WEEKDAY = "NTH_WEEKDAY"


#: The fields of a recurrence rule, as RecurrenceRule, the validators and the
#: services name them: the one list every other module reads.
RULE_FIELDS = (
    "frequency",
    "interval",
    "weekdays",
    "monthly_type",
    "day_of_month",
    "nth_weekday",
    "weekday",
    "dtstart",
    "until",
    "count",
    "timezone",
)

#: The fields only some frequencies read, with the value each has when not set.
UNSET_RULE_VALUES: Mapping[str, Any] = {
    "weekdays": [],
    "monthly_type": "",
    "day_of_month": None,
    "nth_weekday": None,
    "weekday": None,
}
OPTIONAL_RULE_FIELDS = tuple(UNSET_RULE_VALUES)

# Which optional fields each frequency reads; anything else set is an error rather
# than silently ignored, so an organiser never believes a field took effect.
FIELDS_USED_BY: Mapping[Frequency, frozenset[str]] = {
    Frequency.DAILY: frozenset(),
    Frequency.WEEKLY: frozenset({"weekdays"}),
    Frequency.MONTHLY: frozenset({"monthly_type", "day_of_month", "nth_weekday", "weekday"}),
    Frequency.YEARLY: frozenset(),
}


@dataclass(frozen=True)
class RuleSpec:
    """The fields of a recurrence rule, already validated.

    ``dtstart`` and ``until`` are aware datetimes in any zone; ``timezone`` is the
    IANA zone whose wall clock the occurrences keep. dtstart is read to the whole
    second (RFC 5545 DATE-TIME has no fraction and dateutil drops it), which is why
    RecurrenceRule stores it that way.
    """

    frequency: Frequency
    dtstart: dt.datetime
    timezone: str
    interval: int = 1
    weekdays: tuple[int, ...] = field(default_factory=tuple)
    monthly_type: MonthlyType | None = None
    day_of_month: int | None = None
    nth_weekday: int | None = None
    weekday: int | None = None
    until: dt.datetime | None = None
    count: int | None = None
    #: The series' extra dates (RFC 5545 RDATE) as UTC instants: dates of the
    #: series besides the rule's, bounded by neither COUNT nor UNTIL.
    extra_dates: frozenset[dt.datetime] = field(default_factory=frozenset)
    #: The series' holiday calendar and policy (:mod:`revel_recurring.holiday_rules`).
    #: The rule's slots stay what they are; the exclusions reader skips, and
    #: generation moves, the ones a holiday touches.
    holidays: HolidayRule | None = None

    @classmethod
    def from_fields(cls, values: Mapping[str, Any]) -> RuleSpec:
        """The spec of validated rule field values (keys of :data:`RULE_FIELDS`).

        Missing optional keys and their "not set" forms (``None``, ``""``, ``[]``)
        read as unset; the interval defaults to 1.
        """
        monthly_type = values.get("monthly_type") or None
        return cls(
            frequency=Frequency(values["frequency"]),
            dtstart=values["dtstart"],
            timezone=values["timezone"],
            interval=values.get("interval", 1),
            weekdays=tuple(values.get("weekdays") or ()),
            monthly_type=MonthlyType(monthly_type) if monthly_type else None,
            day_of_month=values.get("day_of_month"),
            nth_weekday=values.get("nth_weekday"),
            weekday=values.get("weekday"),
            until=values.get("until"),
            count=values.get("count"),
        )

    @property
    def zone(self) -> ZoneInfo:
        """The rule's IANA zone."""
        return ZoneInfo(self.timezone)

    @property
    def local_dtstart(self) -> dt.datetime:
        """dtstart as a naive wall-clock time in the rule zone."""
        return self.dtstart.astimezone(self.zone).replace(tzinfo=None)
