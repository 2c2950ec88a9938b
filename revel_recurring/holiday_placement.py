"""Where each slot of a rule takes place under the rule's holiday rule (pure).

The policy (:mod:`revel_recurring.holiday_rules`) applied to the slots of a
:class:`~revel_recurring.rules.RuleSpec`: which a holiday skips, which it moves
and where to. Decision 0037 says where a shifted date goes.
"""

from __future__ import annotations

import bisect
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

    def fates_between(self, start: dt.datetime, end: dt.datetime) -> list[HolidayFate]:
        """The fate of every slot from ``start`` to ``end`` (inclusive) a holiday touched,
        in slot order: what :meth:`fate` answers for each, from one expansion of the rule.

        For a list of the holidays ahead (months of them): the rule is expanded once
        over the whole range and each block of days placed from that expansion.
        """
        if self.rule is None or end < start:
            return []
        zone = self.spec.zone
        blocks = range(
            start.astimezone(zone).date().toordinal() // _BLOCK_DAYS,
            end.astimezone(zone).date().toordinal() // _BLOCK_DAYS + 1,
        )
        missing = [block for block in blocks if block not in self._fates]
        if missing:
            lower, _upper = self._reach(missing[0])
            _lower, upper = self._reach(missing[-1])
            slots = rules.occurrences_between(self.spec, lower, upper, inclusive=True)
            for block in missing:
                self._fates[block] = self._place_block(block, expanded=slots)
        found = [
            fate
            for block in blocks
            for slot, fate in self._fates[block].items()
            if start <= slot <= end
        ]
        return sorted(found, key=lambda fate: fate.slot)

    def _reach(self, block: int) -> tuple[dt.datetime, dt.datetime]:
        """The instants whose slots placing ``block`` reads: its days, the days before
        that can push a date into it, and the days a date of it can move to."""
        zone = self.spec.zone
        first = dt.date.fromordinal(block * _BLOCK_DAYS)
        after = dt.date.fromordinal((block + 1) * _BLOCK_DAYS)
        lower = rules.localize(dt.datetime.combine(first, dt.time()), zone)
        upper = rules.localize(dt.datetime.combine(after, dt.time()), zone)
        return (
            lower - dt.timedelta(days=_LOOKBACK_DAYS),
            upper + dt.timedelta(days=SHIFT_SEARCH_DAYS + 1),
        )

    def _place_block(
        self, block: int, *, expanded: list[dt.datetime] | None = None
    ) -> dict[dt.datetime, HolidayFate]:
        """The fates of ``block``'s slots; ``expanded``: the rule's slots over a range
        covering the block's reach (sorted), read instead of expanding the rule again."""
        assert self.rule is not None
        spec, rule, zone = self.spec, self.rule, self.spec.zone
        first = dt.date.fromordinal(block * _BLOCK_DAYS)
        last = dt.date.fromordinal((block + 1) * _BLOCK_DAYS - 1)
        lower, upper = self._reach(block)
        if expanded is None:
            slots = rules.occurrences_between(spec, lower, upper, inclusive=True)
        else:
            slots = expanded[
                bisect.bisect_left(expanded, lower) : bisect.bisect_right(expanded, upper)
            ]
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
