"""A rule's dates as UTC instants: all of them in order, those in a window, the next one.

Occurrences are computed on the *wall clock* of the rule's zone with dateutil
working on naive datetimes, then each wall-clock time is turned into an instant
(:func:`~revel_recurring.rules.localize`); every comparison (bounds, UNTIL,
exdates) is then made on UTC instants.
"""

from __future__ import annotations

import datetime as dt
import heapq
from collections.abc import Container, Iterable, Iterator
from dataclasses import replace
from zoneinfo import ZoneInfo

from .clock import localize, to_utc
from .rrule import build_rrule
from .spec import RuleSpec
from .stored import parse_instant


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


def is_occurrence(spec: RuleSpec, instant: dt.datetime) -> bool:
    """Whether ``instant`` is one of the rule's occurrences (compared in UTC)."""
    target = to_utc(instant)
    return target in occurrences_between(spec, target, target, inclusive=True)
