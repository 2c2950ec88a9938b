"""Public holidays of a series: which dates of its rule a holiday skips or moves (pure).

A series may name a holiday calendar of the ``holidays`` package (a country, an
optional subdivision and categories) and a policy for the dates of its rule
that fall on one of its holidays, judged by the date's local day in the rule's
zone:

* ``keep``: nothing changes (the holiday's name is still shown beside the date);
* ``skip``: the date does not take place (an exclusion, :mod:`revel_recurring.exclusions`);
* ``shift``: the date takes place on the next free day at the same wall-clock
  time. A day is free when it is no holiday, holds no other date of the series
  (rule or extra date, cancelled or not) and no other shifted date, and, for a
  date that falls on a working day, is no weekend day of the calendar: a Monday
  class on Easter Monday moves to Tuesday, a Friday class on a Friday holiday to
  the next Monday. A date on a weekend day may move to the next weekend day or
  working day alike. When no day of the following seven is free (a daily
  class), the date is skipped.

The slot (the rule's own instant) stays the identity of a shifted date: its row
holds it as ``recurrence_id`` and the new day as its start. Extra dates are never
moved or skipped by a holiday (the organiser chose them), nor are the slots an
organiser kept on purpose (``HolidayRule.kept``, "restore" of a holiday date).

No ORM here; the holiday names are looked up in the active language by
:meth:`HolidayRule.name_on`.
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import holidays

if TYPE_CHECKING:
    from .rules import RuleSpec

__all__ = [
    "SHIFT_REACH",
    "SHIFT_SEARCH_DAYS",
    "HolidayFate",
    "HolidayOutcome",
    "HolidayPlacer",
    "HolidayPolicy",
    "HolidayRule",
    "data_version",
    "supported_categories",
    "supported_countries",
]

#: How many days after a holiday ``shift`` looks for a free day before it skips the date.
SHIFT_SEARCH_DAYS = 7
#: How far a shifted date can lie from its slot: readers that match starts to
#: slots read the rule this much earlier.
SHIFT_REACH = dt.timedelta(days=SHIFT_SEARCH_DAYS + 1)
# The shift of a slot depends only on the slots of the days before it: each block
# of days is placed with this many days of the rule before it read as well.
_LOOKBACK_DAYS = 3 * SHIFT_SEARCH_DAYS
_BLOCK_DAYS = 56


class HolidayPolicy(enum.StrEnum):
    """What becomes of a date of the rule that falls on a holiday."""

    KEEP = "keep"
    SKIP = "skip"
    SHIFT = "shift"


class HolidayOutcome(enum.StrEnum):
    """What became of one date of the rule on a holiday."""

    #: Policy ``keep``: the date takes place as the rule says.
    KEPT = "kept"
    #: Kept on purpose by an organiser, whatever the policy.
    RESTORED = "restored"
    #: Policy ``skip``, or ``shift`` with no free day in reach.
    SKIPPED = "skipped"
    #: Policy ``shift``: the date takes place on ``HolidayFate.start``.
    SHIFTED = "shifted"


def data_version() -> str:
    """The installed ``holidays`` package's version: stored with each generation that used it."""
    return str(getattr(holidays, "__version__", ""))


@functools.cache
def supported_countries() -> dict[str, tuple[str, ...]]:
    """Country code -> subdivision codes, as the installed ``holidays`` package offers them."""
    return {
        code: tuple(subdivisions)
        for code, subdivisions in holidays.list_supported_countries().items()
    }


def supported_categories(country: str) -> tuple[str, ...]:
    """The holiday categories the package offers for ``country`` (``public`` always among them)."""
    entity = getattr(holidays, country, None)
    return tuple(sorted(getattr(entity, "supported_categories", None) or ("public",)))


@functools.lru_cache(maxsize=256)
def _calendar(
    country: str, subdivision: str, categories: tuple[str, ...], language: str | None
) -> Any:
    return holidays.country_holidays(
        country,
        subdiv=subdivision or None,
        categories=categories or None,
        language=language,
    )


def _package_language(country: str, language: str | None) -> str | None:
    """The package's spelling of ``language`` (a Django code such as ``de`` or ``en-us``) or None.

    Exact codes first (``en_US``), then the base language (``de`` for ``de-at``),
    then any regional form of it (``en`` -> ``en_US``); None leaves the
    package's default, the country's own language.
    """
    if not language:
        return None
    entity = getattr(holidays, country, None)
    offered = tuple(getattr(entity, "supported_languages", ()) or ())
    if not offered:
        return None
    base, _, region = language.replace("_", "-").partition("-")
    wanted = [f"{base.lower()}_{region.upper()}" if region else "", base.lower()]
    for code in wanted:
        if code and code in offered:
            return code
    for code in offered:
        if code.split("_")[0] == base.lower():
            return str(code)
    return None


@dataclass(frozen=True)
class HolidayRule:
    """A series' holiday calendar and policy, validated.

    ``kept`` holds the slots (UTC instants) an organiser kept despite a holiday.
    """

    country: str
    subdivision: str = ""
    categories: tuple[str, ...] = ()
    policy: HolidayPolicy = HolidayPolicy.SKIP
    kept: frozenset[dt.datetime] = field(default_factory=frozenset)

    @property
    def calendar_name(self) -> str:
        """``AT``, ``DE-BY``: the country and subdivision as one code."""
        return f"{self.country}-{self.subdivision}" if self.subdivision else self.country

    def _days(self, language: str | None = None) -> Any:
        return _calendar(
            self.country,
            self.subdivision,
            self.categories,
            _package_language(self.country, language),
        )

    def is_holiday(self, day: dt.date) -> bool:
        """Whether ``day`` is a holiday of the calendar."""
        return day in self._days()

    @property
    def weekend(self) -> frozenset[int]:
        """The calendar's weekend days (0 = Monday), Saturday and Sunday when it names none."""
        days = getattr(self._days(), "weekend", None)
        return frozenset(days) if days else frozenset({5, 6})

    def name_on(self, day: dt.date, language: str | None = None) -> str | None:
        """The holiday's name on ``day`` in ``language`` (default: Django's active one), or None.

        Several holidays on one day are joined as the package joins them.
        """
        if language is None:
            from django.utils import translation

            language = translation.get_language()
        name = self._days(language).get(day)
        return None if name is None else str(name)


@dataclass(frozen=True)
class HolidayFate:
    """What a holiday did to one slot: where the date now takes place, and why.

    ``day`` is the holiday (the slot's local day in the rule zone); ``start`` is the
    slot itself unless the date was shifted; ``no_free_day`` says a ``shift`` found
    no free day in reach and skipped the date instead.
    """

    slot: dt.datetime
    start: dt.datetime
    day: dt.date
    outcome: HolidayOutcome
    no_free_day: bool = False

    @property
    def takes_place(self) -> bool:
        """Whether the date takes place (kept, restored or shifted)."""
        return self.outcome is not HolidayOutcome.SKIPPED


class HolidayPlacer:
    """Where each slot of a rule takes place under the rule's holiday rule.

    Built for one :class:`~revel_recurring.rules.RuleSpec` (``spec.holidays`` set
    or not). Answers per slot and caches by blocks of days, so asking about the
    slots of a window expands the rule once per block, whatever the window.
    """

    def __init__(self, spec: RuleSpec) -> None:
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
        from . import rules

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
        from . import rules

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
