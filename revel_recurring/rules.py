"""Pure recurrence maths: rule fields and bounds in, UTC instants out.

No ORM imports live here, so every function can be tested (and fuzzed) without a
database. The DST policy of the whole app is implemented in :func:`localize`.

Occurrences are computed on the *wall clock* of the rule's zone with dateutil
working on naive datetimes, then each wall-clock time is turned into an instant:

* a time inside a spring-forward gap is shifted forward by the gap (RFC 5545
  §3.3.5: 02:30 on the gap day becomes 03:30) and still counts as an instance;
* an ambiguous time on a fall-back day takes the first instant (``fold=0``).

Every comparison (bounds, UNTIL, exdates) is then made on UTC instants.
"""

from __future__ import annotations

import datetime as dt
import enum
import heapq
from collections.abc import Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from dateutil import rrule as du
from dateutil.relativedelta import relativedelta

if TYPE_CHECKING:
    from .holiday_rules import HolidayRule

UTC = dt.UTC

# dateutil's weekday constants indexed by our 0 = Monday .. 6 = Sunday.
_DU_WEEKDAYS = (du.MO, du.TU, du.WE, du.TH, du.FR, du.SA, du.SU)
_ICAL_WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


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


_DU_FREQ = {
    Frequency.DAILY: du.DAILY,
    Frequency.WEEKLY: du.WEEKLY,
    Frequency.MONTHLY: du.MONTHLY,
    Frequency.YEARLY: du.YEARLY,
}


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


def is_aware(value: dt.datetime) -> bool:
    """Whether ``value`` names an instant (has a UTC offset), as Django's ``is_aware`` reads it."""
    return value.tzinfo is not None and value.utcoffset() is not None


def to_utc(value: dt.datetime) -> dt.datetime:
    """Normalise an aware datetime to UTC; naive values are refused."""
    if not is_aware(value):
        raise ValueError(f"expected an aware datetime, got naive {value.isoformat()}")
    return value.astimezone(UTC)


def localize(wall_clock: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    """Turn a naive wall-clock time in ``zone`` into a UTC instant (the DST policy).

    ``fold=0`` gives both halves of the policy at once (PEP 495): for an ambiguous
    time it selects the first instant, and for a time in a gap it applies the
    offset in force *before* the transition, which lands on the wall-clock time
    shifted forward by the gap.
    """
    return wall_clock.replace(tzinfo=zone, fold=0).astimezone(UTC)


def _aligned_start(spec: RuleSpec, target: dt.datetime) -> dt.datetime:
    """dtstart moved forward by whole periods of the rule, to at least a period before
    ``target`` (naive, rule zone); the occurrences from ``target`` on are unchanged.

    dateutil walks a rule from dtstart, so without this every call on a series
    that has run for years would step through all its past occurrences. Whole
    periods keep the phase of the interval (which weeks, months or years are
    "on"); the time of day and the weekday of a WEEKLY rule come with them, and
    the day and month of a YEARLY rule are passed explicitly by build_rrule.
    Months and years are added with relativedelta, which may pull the day back
    (31 -> 30): an earlier start is still a correct one. Not used with COUNT,
    which counts from the real dtstart.
    """
    start = spec.local_dtstart
    if spec.count is not None or target <= start:
        return start
    frequency, step = Frequency(spec.frequency), spec.interval
    if frequency in (Frequency.DAILY, Frequency.WEEKLY):
        days = step * (7 if frequency is Frequency.WEEKLY else 1)
        periods = (target - start).days // days - 1
        return start + dt.timedelta(days=days * periods) if periods > 0 else start
    if frequency is Frequency.MONTHLY:
        months = (target.year - start.year) * 12 + target.month - start.month
        periods = months // step - 1
        return start + relativedelta(months=step * periods) if periods > 0 else start
    periods = (target.year - start.year) // step - 1
    return start + relativedelta(years=step * periods) if periods > 0 else start


def build_rrule(spec: RuleSpec, *, skip_to: dt.datetime | None = None) -> du.rrule:
    """A dateutil rule producing naive wall-clock times in the rule zone.

    UNTIL is deliberately left out: it is an instant, and comparing it against wall
    clock would be off by the zone offset. :func:`iter_occurrences` applies it in UTC.
    ``skip_to`` (naive, rule zone) lets the rule start later without changing any
    occurrence from that moment on (see :func:`_aligned_start`).
    """
    kwargs: dict[str, object] = {
        "freq": _DU_FREQ[Frequency(spec.frequency)],
        "dtstart": spec.local_dtstart if skip_to is None else _aligned_start(spec, skip_to),
        "interval": spec.interval,
        "count": spec.count,
        "wkst": du.MO,
    }
    frequency = Frequency(spec.frequency)
    if frequency is Frequency.YEARLY:
        # What dateutil would derive from dtstart, fixed here so that a start moved
        # by _aligned_start (Feb 29 -> Feb 28) cannot change the pattern.
        kwargs["bymonth"] = spec.local_dtstart.month
        kwargs["bymonthday"] = spec.local_dtstart.day
    if frequency is Frequency.WEEKLY and not spec.weekdays:
        kwargs["byweekday"] = _DU_WEEKDAYS[spec.local_dtstart.weekday()]
    if frequency is Frequency.WEEKLY and spec.weekdays:
        kwargs["byweekday"] = [_DU_WEEKDAYS[d] for d in sorted(set(spec.weekdays))]
    elif frequency is Frequency.MONTHLY:
        if spec.monthly_type == MonthlyType.DAY_OF_MONTH:
            kwargs["bymonthday"] = spec.day_of_month
        elif spec.monthly_type == MonthlyType.NTH_WEEKDAY:
            assert spec.weekday is not None
            assert spec.nth_weekday is not None
            kwargs["byweekday"] = _DU_WEEKDAYS[spec.weekday](spec.nth_weekday)
    return du.rrule(**kwargs)  # type: ignore[arg-type]


def iter_occurrences(
    spec: RuleSpec, *, start_wall_clock: dt.datetime | None = None
) -> Iterator[dt.datetime]:
    """Yield every date as a UTC instant, in order: the rule's and the extra dates.

    The rule's own dates honour UNTIL and COUNT; the extra dates
    (``spec.extra_dates``) are merged in as they are, each instant once.
    ``start_wall_clock`` (naive, rule zone) skips ahead: without COUNT the rule
    starts a whole number of periods later (cost independent of the series' age);
    with COUNT dateutil has to walk from dtstart to count.
    """
    own = _iter_rule_dates(spec, start_wall_clock)
    if not spec.extra_dates:
        yield from own
        return
    floor = localize(start_wall_clock, spec.zone) if start_wall_clock is not None else None
    extra = sorted(i for i in spec.extra_dates if floor is None or i >= floor)
    previous: dt.datetime | None = None
    for instant in heapq.merge(own, extra):
        # An extra date the rule has too (after a cadence change) is one date.
        if previous is not None and instant <= previous:
            continue
        previous = instant
        yield instant


def rule_only(spec: RuleSpec) -> RuleSpec:
    """``spec`` without its extra dates: the dates of the rule alone."""
    return replace(spec, extra_dates=frozenset()) if spec.extra_dates else spec


def with_extra_dates(spec: RuleSpec, values: Iterable[str | dt.datetime]) -> RuleSpec:
    """``spec`` with the extra dates ``values`` (stored strings or aware datetimes)."""
    if not values and not spec.extra_dates:
        return spec
    return replace(spec, extra_dates=frozenset(parse_instant(v) for v in values))


def _iter_rule_dates(spec: RuleSpec, start_wall_clock: dt.datetime | None) -> Iterator[dt.datetime]:
    rule = build_rrule(spec, skip_to=start_wall_clock)
    zone = spec.zone
    until = to_utc(spec.until) if spec.until is not None else None
    source: Iterable[dt.datetime] = (
        rule.xafter(start_wall_clock, inc=True) if start_wall_clock is not None else rule
    )
    previous: dt.datetime | None = None
    for wall_clock in source:
        instant = localize(wall_clock, zone)
        if until is not None and instant > until:
            return
        # Two wall-clock times can collapse onto one instant only if a zone's gap
        # were longer than the rule's step; never yield the same instant twice.
        if previous is not None and instant <= previous:
            continue
        previous = instant
        yield instant


def _wall_clock_floor(instant: dt.datetime, zone: ZoneInfo) -> dt.datetime:
    # A day of margin covers any UTC offset change between the bound and the
    # occurrences near it; exact filtering happens afterwards in UTC.
    return instant.astimezone(zone).replace(tzinfo=None) - dt.timedelta(days=1)


def occurrences_between(
    spec: RuleSpec,
    after: dt.datetime,
    before: dt.datetime,
    *,
    inclusive: bool = False,
) -> list[dt.datetime]:
    """Occurrences strictly between two aware bounds (or inclusive), as UTC instants."""
    lower, upper = to_utc(after), to_utc(before)
    if upper < lower:
        return []
    result: list[dt.datetime] = []
    for instant in iter_occurrences(spec, start_wall_clock=_wall_clock_floor(lower, spec.zone)):
        if instant > upper or (instant == upper and not inclusive):
            break
        if instant > lower or (instant == lower and inclusive):
            result.append(instant)
    return result


def first_occurrence_after(
    spec: RuleSpec,
    after: dt.datetime,
    *,
    inclusive: bool = False,
    skip: Container[dt.datetime] = frozenset(),
) -> dt.datetime | None:
    """The first occurrence after ``after`` that is not in ``skip``, or None."""
    lower = to_utc(after)
    for instant in iter_occurrences(spec, start_wall_clock=_wall_clock_floor(lower, spec.zone)):
        if instant < lower or (instant == lower and not inclusive):
            continue
        if instant in skip:
            continue
        return instant
    return None


def window_and_next(
    spec: RuleSpec,
    lower: dt.datetime,
    upper: dt.datetime,
    *,
    after: dt.datetime,
    skip: Container[dt.datetime] = frozenset(),
) -> tuple[list[dt.datetime], dt.datetime | None]:
    """The occurrences from ``lower`` to ``upper`` (both inclusive) and the next one due.

    The answers of ``occurrences_between(spec, lower, upper, inclusive=True)`` and
    ``first_occurrence_after(spec, after, skip=skip)`` from one walk of the rule:
    generation asks both of every series, and the walk usually ends one step
    past ``upper``.
    """
    lower, upper, after = to_utc(lower), to_utc(upper), to_utc(after)
    start = _wall_clock_floor(min(lower, after), spec.zone)
    slots: list[dt.datetime] = []
    following: dt.datetime | None = None
    for instant in iter_occurrences(spec, start_wall_clock=start):
        if lower <= instant <= upper:
            slots.append(instant)
        if following is None and instant > after and instant not in skip:
            following = instant
        if following is not None and instant >= upper:
            break
    return slots, following


def fold_twin(instant: dt.datetime, zone: ZoneInfo) -> dt.datetime | None:
    """The other instant with ``instant``'s wall-clock time in ``zone``, in UTC; None if none.

    On a fall-back night the hour the clocks go back happens twice: 02:30 in
    Vienna on 31 October 2027 is 00:30 UTC (``fold=0``) and, an hour later,
    01:30 UTC (``fold=1``). Every other wall-clock time names one instant only.
    """
    local = instant.astimezone(zone)
    twin = local.replace(fold=1 - local.fold).astimezone(UTC)
    return None if twin == to_utc(instant) else twin


def is_occurrence(spec: RuleSpec, instant: dt.datetime) -> bool:
    """Whether ``instant`` is one of the rule's occurrences (compared in UTC)."""
    target = to_utc(instant)
    return target in occurrences_between(spec, target, target, inclusive=True)


def _ical_stamp(value: dt.datetime) -> str:
    # Not strftime: glibc's %Y does not pad years before 1000 to four digits.
    return (
        f"{value.year:04d}{value.month:02d}{value.day:02d}"
        f"T{value.hour:02d}{value.minute:02d}{value.second:02d}"
    )


def to_rrule_string(spec: RuleSpec) -> str:
    """RFC 5545 text: ``DTSTART;TZID=<zone>:<local>`` and ``RRULE:...``.

    UNTIL is written in UTC with ``Z``, as §3.3.10 requires when DTSTART carries a
    TZID.
    """
    frequency = Frequency(spec.frequency)
    parts = [f"FREQ={frequency.value}"]
    if spec.interval != 1:
        parts.append(f"INTERVAL={spec.interval}")
    if spec.count is not None:
        parts.append(f"COUNT={spec.count}")
    if spec.until is not None:
        parts.append(f"UNTIL={_ical_stamp(to_utc(spec.until))}Z")
    if frequency is Frequency.WEEKLY and spec.weekdays:
        parts.append("BYDAY=" + ",".join(_ICAL_WEEKDAYS[d] for d in sorted(set(spec.weekdays))))
    elif frequency is Frequency.MONTHLY:
        if spec.monthly_type == MonthlyType.DAY_OF_MONTH:
            parts.append(f"BYMONTHDAY={spec.day_of_month}")
        elif spec.monthly_type == MonthlyType.NTH_WEEKDAY:
            assert spec.weekday is not None
            parts.append(f"BYDAY={spec.nth_weekday}{_ICAL_WEEKDAYS[spec.weekday]}")
    return (
        f"DTSTART;TZID={spec.timezone}:{_ical_stamp(spec.local_dtstart)}\nRRULE:{';'.join(parts)}"
    )


def format_instant(value: dt.datetime) -> str:
    """The storage form of an exdate: ISO 8601 in UTC with a ``Z``."""
    return to_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_instant(value: str | dt.datetime) -> dt.datetime:
    """Parse a stored exdate (or an aware datetime) into a UTC instant."""
    if isinstance(value, dt.datetime):
        return to_utc(value)
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    return to_utc(dt.datetime.fromisoformat(text))


def normalize_exdates(values: Iterable[str | dt.datetime]) -> list[str]:
    """Deduplicated, sorted storage strings; the same instant in two zones is kept once."""
    return sorted({format_instant(parse_instant(v)) for v in values})


def split_stored(values: Iterable[str], at: dt.datetime) -> tuple[list[str], list[str]]:
    """Stored instants (exdates, extra dates) cut at ``at``: (before it, at or after it)."""
    instant = to_utc(at)
    before: list[str] = []
    later: list[str] = []
    for value in values:
        (later if parse_instant(value) >= instant else before).append(value)
    return before, later


def exdate_instants(values: Iterable[str | dt.datetime]) -> frozenset[dt.datetime]:
    """Stored exdates (strings or datetimes) as a set of UTC instants."""
    return frozenset(parse_instant(v) for v in values)
