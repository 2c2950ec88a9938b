"""What an extra date may be, and a whole new set of them planned and stored.

The checks every writer of extra dates shares (an aware instant to the whole
second, not in the past, not before the rule's first date, not a date of the
series already nor its fold twin, at most ``EXTRA_DATES_MAX``), and the step a
change plan takes: :func:`plan_extra_dates` works a new set out without writing,
:func:`write_extra_dates` stores it under the plan's lock. The verbs that add and
remove one date are :mod:`revel_recurring.services.extra_dates`, which re-exports
these public names.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ... import rules
from ...instants import describe_instant
from ...models import EventSeries, RecurrenceRule
from ...validators import EXTRA_DATES_MAX
from .exdates import absorb_pending_exdates, drop_exdates

#: The key of the extra dates in a change plan's ``changes``, and of its errors.
EXTRA_DATES_KEY = "extra_dates"


def extra_date_instant(value: object, *, key: str = "instant") -> dt.datetime:
    if not isinstance(value, dt.datetime) or not rules.is_aware(value):
        raise ValidationError(
            {
                key: [
                    gettext(
                        "Give the extra date as an aware date and time (with a UTC "
                        "offset), got %(value)s."
                    )
                    % {"value": repr(value)}
                ]
            }
        )
    # RFC 5545 DATE-TIME has no fraction of a second, and neither do the rule's dates.
    return rules.to_utc(value).replace(microsecond=0)


def extra_date_refusal(
    instant: dt.datetime,
    rule: RecurrenceRule,
    *,
    now: dt.datetime,
    current: Collection[dt.datetime],
    beside: Collection[dt.datetime] | None = None,
) -> str:
    """Why ``instant`` cannot become an extra date under ``rule``; empty when it can.

    ``beside`` are the extra dates it would join (``current`` by default): its fold
    twin among them, or among the rule's dates, is a refusal.
    """
    shown = describe_instant(instant, rule.timezone)
    if instant < now:
        return gettext("%(date)s is in the past; add a date still to come.") % {"date": shown}
    if instant < rules.to_utc(rule.dtstart):
        return gettext("%(date)s is before the series' first date; add a later date.") % {
            "date": shown
        }
    if instant in current:
        return gettext("%(date)s is an extra date of this series already.") % {"date": shown}
    spec = rule.to_spec()
    if rules.is_occurrence(spec, instant):
        return gettext("%(date)s is a date of the series' rule already.") % {"date": shown}
    twin = rules.fold_twin(instant, spec.zone)
    others = current if beside is None else beside
    if twin is not None and (twin in others or rules.is_occurrence(spec, twin)):
        return fold_twin_refusal(instant, twin, rule.timezone)
    return ""


def over_limit_refusal(count: int) -> str:
    """Why a series cannot hold ``count`` extra dates; empty when it can."""
    if count <= EXTRA_DATES_MAX:
        return ""
    return gettext(
        "A series holds at most %(limit)d extra dates; this would give it %(count)d. "
        "Remove some first, or split the series."
    ) % {"limit": EXTRA_DATES_MAX, "count": count}


def given_twice_refusal(instant: dt.datetime, zone: str | None) -> str:
    return gettext("%(date)s is given twice; give each extra date once.") % {
        "date": describe_instant(instant, zone)
    }


def fold_twin_refusal(instant: dt.datetime, twin: dt.datetime, zone: str) -> str:
    """Why ``instant`` cannot be a date beside ``twin``, its fold twin (same wall-clock time).

    A calendar app reads a date on the wall clock of the rule's zone, where the
    two are one time: subscribers would see one date where the series holds two
    (docs/decisions, extra dates in a DST fold).
    """
    return gettext(
        "%(date)s shows the same time on the clock as %(twin)s, a date of this series "
        "already (the clocks go back that night, so the hour happens twice); pick "
        "another time."
    ) % {"date": describe_instant(instant, zone), "twin": describe_instant(twin, zone)}


def read_extra_dates(values: object) -> tuple[dt.datetime, ...]:
    """A change plan's ``extra_dates`` as UTC instants to the whole second, in the order given.

    Checks the shape only (a list of aware datetimes): a ``ValidationError`` keyed
    ``extra_dates`` otherwise. What the dates may be is :func:`plan_extra_dates`'
    question, which knows the series.
    """
    if isinstance(values, str | bytes | dict) or not isinstance(values, Iterable):
        raise ValidationError(
            {
                EXTRA_DATES_KEY: [
                    gettext("Give the extra dates as a list of aware date-times, got %(values)s.")
                    % {"values": repr(values)}
                ]
            }
        )
    return tuple(extra_date_instant(value, key=EXTRA_DATES_KEY) for value in values)


@dataclass(frozen=True)
class ExtraDatesChange:
    """A series' extra dates replaced by a whole new set, worked out without writing.

    :func:`plan_extra_dates` builds it; a change plan shows its outcome and
    :func:`write_extra_dates` stores it under the series lock.
    """

    #: The new ``extra_dates`` column, in its stored form.
    stored: list[str]
    added: frozenset[dt.datetime]
    removed: frozenset[dt.datetime]
    #: Excluded slots the change frees: an added date no occurrence holds (an
    #: exclusion left from an earlier life of that instant, as ``add_extra_date``
    #: drops it), and a removed date still to come that no occurrence holds and
    #: the rule does not have (nothing is left for it to exclude).
    lifted: frozenset[dt.datetime]

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)


def plan_extra_dates(
    series: EventSeries,
    rule: RecurrenceRule,
    wanted: Iterable[dt.datetime],
    *,
    held: Collection[dt.datetime],
    excluded: Collection[dt.datetime],
    now: dt.datetime,
) -> ExtraDatesChange:
    """``wanted`` as the whole new set of ``series``' extra dates under ``rule``; no query.

    ``rule`` is the rule the series will have (a change plan's new rule),
    ``held`` the slots its occurrences hold from ``now`` on (cancelled ones
    included), ``excluded`` its excluded slots (exdates and pending ones).
    ``wanted`` are instants as :func:`read_extra_dates` returns them. A date given
    twice, more than ``EXTRA_DATES_MAX`` dates, and a date that is not an extra
    date yet but is in the past, before the rule's dtstart, a date of the rule or
    the fold twin of another date (the same wall-clock time on a fall-back night),
    are refused with a ``ValidationError`` keyed ``extra_dates`` naming each.
    Dates kept from the current set are not
    checked again; removing one is never refused here: an occurrence that holds it
    becomes drift, for the plan to show and the caller to keep or cancel.
    """
    given = Counter(wanted)
    target = frozenset(given)
    current = series.extra_date_instants
    problems: list[str] = []
    for instant in sorted(target):
        if given[instant] > 1:
            problems.append(given_twice_refusal(instant, rule.timezone))
        elif instant not in current:
            # Of two new fold twins, the later is refused: the first keeps its place.
            # Only the date's fold twin matters to extra_date_refusal: look it up, not every date.
            twin = rules.fold_twin(instant, rule.to_spec().zone)
            beside = (
                {twin}
                if twin is not None and twin in target and (twin in current or twin < instant)
                else set()
            )
            problem = extra_date_refusal(instant, rule, now=now, current=(), beside=beside)
            if problem:
                problems.append(problem)
    over = over_limit_refusal(len(target))
    if over:
        problems.append(over)
    if problems:
        raise ValidationError({EXTRA_DATES_KEY: problems})
    added, removed = target - current, current - target
    own = rule.to_spec()
    lifted = {instant for instant in added if instant not in held} | {
        instant
        for instant in removed
        if instant >= now and instant not in held and not rules.is_occurrence(own, instant)
    }
    return ExtraDatesChange(
        stored=rules.normalize_exdates(target),
        added=added,
        removed=removed,
        lifted=frozenset(lifted) & frozenset(excluded),
    )


def write_extra_dates(locked: EventSeries, change: ExtraDatesChange) -> bool:
    """Store ``change`` on the locked series (not saved); whether anything changed.

    The caller holds the series lock, saves ``extra_dates`` and ``exdates``, and
    then resets the cursor and the next due moment (``change_schedule`` does).
    The pending exdates are folded in first, so a lifted slot goes from both.
    """
    if not change.changed:
        return False
    locked.extra_dates = change.stored
    if change.lifted:
        absorb_pending_exdates(locked)
        drop_exdates(locked, change.lifted)
    return True


__all__ = [
    "EXTRA_DATES_KEY",
    "ExtraDatesChange",
    "extra_date_instant",
    "extra_date_refusal",
    "fold_twin_refusal",
    "given_twice_refusal",
    "over_limit_refusal",
    "plan_extra_dates",
    "read_extra_dates",
    "write_extra_dates",
]
