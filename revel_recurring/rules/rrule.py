"""The rule in dateutil's terms (:func:`build_rrule`) and as RFC 5545 text."""

from __future__ import annotations

import datetime as dt

from dateutil import rrule as du
from dateutil.relativedelta import relativedelta

from .clock import to_utc
from .spec import Frequency, MonthlyType, RuleSpec

# dateutil's weekday constants indexed by our 0 = Monday .. 6 = Sunday.
_DU_WEEKDAYS = (du.MO, du.TU, du.WE, du.TH, du.FR, du.SA, du.SU)
_ICAL_WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")

_DU_FREQ = {
    Frequency.DAILY: du.DAILY,
    Frequency.WEEKLY: du.WEEKLY,
    Frequency.MONTHLY: du.MONTHLY,
    Frequency.YEARLY: du.YEARLY,
}


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
