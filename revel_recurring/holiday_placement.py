"""Where each slot of a rule takes place under the rule's holiday rule (pure).

The policy (:mod:`revel_recurring.holiday_rules`) applied to the slots of a
:class:`~revel_recurring.rules.RuleSpec`: which a holiday skips, which it moves
and where to. Decision 0037 says where a shifted date goes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from . import rules
from .holiday_rules import HolidayFate, HolidayOutcome, HolidayPolicy, HolidayRule

__all__ = ["SHIFT_REACH", "SHIFT_SEARCH_DAYS", "HolidayPlacer"]

#: How many days after a holiday ``shift`` looks for a free day before it skips the date.
SHIFT_SEARCH_DAYS = 7
#: How far a shifted date can lie from its slot: readers that match starts to
#: slots read the rule this much earlier.
SHIFT_REACH = dt.timedelta(days=SHIFT_SEARCH_DAYS + 1)
# The shift of a slot depends only on the slots of the days before it: each block
# of days is placed with this many days of the rule before it read as well.
_LOOKBACK_DAYS = 3 * SHIFT_SEARCH_DAYS
_BLOCK_DAYS = 56


class HolidayPlacer:
    """Where each slot of a rule takes place under the rule's holiday rule.

    Built for one :class:`~revel_recurring.rules.RuleSpec` (``spec.holidays`` set
    or not). Answers per slot and caches by blocks of days, so asking about the
    slots of a window expands the rule once per block, whatever the window.
    """

    def __init__(self, spec: rules.RuleSpec) -> None:
        self.spec = spec
        self.rule: HolidayRule | None = spec.holidays
        self._fates: dict[int, dict[dt.datetime, HolidayFate]] = {}

    def fate(self, slot: dt.datetime) -> HolidayFate | None:
        """What a holiday did to ``slot`` (a UTC instant of the rule), None when nothing."""
        if self.rule is None or slot in self.spec.extra_dates:
            return None
        day = slot.astimezone(self.spec.zone).date()
        if not self.rule.is_holiday(day):
            return None
        block = day.toordinal() // _BLOCK_DAYS
        fates = self._fates.get(block)
        if fates is None:
            fates = self._fates[block] = self._place_block(block)
        return fates.get(slot)

    def start_of(self, slot: dt.datetime) -> dt.datetime:
        """Where the date of ``slot`` takes place (the slot itself unless shifted)."""
        found = self.fate(slot)
        return slot if found is None else found.start

    def is_skipped(self, slot: dt.datetime) -> bool:
        """Whether a holiday skips ``slot``."""
        found = self.fate(slot)
        return found is not None and not found.takes_place

    def fates(self, slots: Iterable[dt.datetime]) -> dict[dt.datetime, HolidayFate]:
        """The fate of each of ``slots`` a holiday touched."""
        found: dict[dt.datetime, HolidayFate] = {}
        for slot in slots:
            fate = self.fate(slot)
            if fate is not None:
                found[slot] = fate
        return found

    def _place_block(self, block: int) -> dict[dt.datetime, HolidayFate]:
        assert self.rule is not None
        spec, rule, zone = self.spec, self.rule, self.spec.zone
        first = dt.date.fromordinal(block * _BLOCK_DAYS)
        last = dt.date.fromordinal((block + 1) * _BLOCK_DAYS - 1)
        lower = rules.localize(dt.datetime.combine(first, dt.time()), zone)
        upper = rules.localize(dt.datetime.combine(last + dt.timedelta(days=1), dt.time()), zone)
        slots = rules.occurrences_between(
            spec,
            lower - dt.timedelta(days=_LOOKBACK_DAYS),
            upper + dt.timedelta(days=SHIFT_SEARCH_DAYS + 1),
            inclusive=True,
        )
        taken_days = {slot.astimezone(zone).date() for slot in slots}
        weekend = rule.weekend
        fates: dict[dt.datetime, HolidayFate] = {}
        for slot in slots:
            local = slot.astimezone(zone)
            day = local.date()
            if slot in spec.extra_dates or not rule.is_holiday(day):
                continue
            if slot in rule.kept:
                fate = HolidayFate(slot, slot, day, HolidayOutcome.RESTORED)
            elif rule.policy is HolidayPolicy.KEEP:
                fate = HolidayFate(slot, slot, day, HolidayOutcome.KEPT)
            elif rule.policy is HolidayPolicy.SKIP:
                fate = HolidayFate(slot, slot, day, HolidayOutcome.SKIPPED)
            else:
                fate = self._shift(slot, day, local.time(), taken_days, weekend)
                if fate.outcome is HolidayOutcome.SHIFTED:
                    taken_days.add(fate.start.astimezone(zone).date())
            if first <= day <= last:
                fates[slot] = fate
        return fates

    def _shift(
        self,
        slot: dt.datetime,
        day: dt.date,
        wall_clock: dt.time,
        taken_days: set[dt.date],
        weekend: frozenset[int],
    ) -> HolidayFate:
        assert self.rule is not None
        on_working_day = day.weekday() not in weekend
        for step in range(1, SHIFT_SEARCH_DAYS + 1):
            candidate = day + dt.timedelta(days=step)
            if candidate in taken_days or self.rule.is_holiday(candidate):
                continue
            if on_working_day and candidate.weekday() in weekend:
                continue
            start = rules.localize(dt.datetime.combine(candidate, wall_clock), self.spec.zone)
            return HolidayFate(slot, start, day, HolidayOutcome.SHIFTED)
        return HolidayFate(slot, slot, day, HolidayOutcome.SKIPPED, no_free_day=True)
