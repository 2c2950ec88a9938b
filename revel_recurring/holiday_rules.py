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

No ORM here, and no rule maths (:mod:`revel_recurring.holiday_placement`
places the slots of a rule); the holiday names are looked up in the active
language by :meth:`HolidayRule.name_on`.
"""

from __future__ import annotations

import datetime as dt
import enum
import functools
import re
from dataclasses import dataclass, field
from typing import Any

import holidays

__all__ = [
    "HolidayFate",
    "HolidayOutcome",
    "HolidayPolicy",
    "HolidayRule",
    "country_names",
    "data_version",
    "place_name",
    "supported_categories",
    "supported_countries",
]


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


def country_names() -> dict[str, str]:
    """The installed ``holidays`` package's countries by two-letter code: "AT" -> "Austria"."""
    return dict(_country_names())


@functools.cache
def _country_names() -> tuple[tuple[str, str], ...]:
    registry: dict[str, tuple[str, ...]] = getattr(holidays.registry, "COUNTRIES", {})
    # The registry names each country by its class name ("UnitedStates").
    return tuple(
        (entry[1], re.sub(r"(?<=[a-z])(?=[A-Z])", " ", entry[0]))
        for entry in registry.values()
        if len(entry) > 1 and len(entry[1]) == 2
    )


@functools.cache
def _subdivision_name(country: str, subdivision: str) -> str:
    """The first name the package knows for ``subdivision`` of ``country``, else its code."""
    try:
        aliases = holidays.country_holidays(country).subdivisions_aliases
    except (NotImplementedError, AttributeError, KeyError):
        return subdivision
    names = [name for name, code in aliases.items() if code == subdivision]
    return names[0] if names else subdivision


def place_name(country: str, subdivision: str = "") -> str:
    """A holiday calendar's place in words ("Austria", "Bayern, Germany"); a code the
    installed package does not name stays a code."""
    name = country_names().get(country, country)
    if not subdivision:
        return name
    return f"{_subdivision_name(country, subdivision)}, {name}"


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
    then any regional form of it (``en`` -> ``en_US``); else the country's own
    language, named explicitly: given None, the package reads the process's
    ``LANGUAGE``/``LANG`` instead, so a French page showed Austria's holidays in
    English under ``LANG=C.UTF-8`` on Python 3.11 (which reads that as ``en_US``)
    and in German on 3.12 and later. None only for a country without languages.
    """
    entity = getattr(holidays, country, None)
    offered = tuple(getattr(entity, "supported_languages", ()) or ())
    if not offered:
        return None
    own: str | None = getattr(entity, "default_language", None)
    if not language:
        return own
    base, _, region = language.replace("_", "-").partition("-")
    wanted = [f"{base.lower()}_{region.upper()}" if region else "", base.lower()]
    for code in wanted:
        if code and code in offered:
            return code
    for code in offered:
        if code.split("_")[0] == base.lower():
            return str(code)
    return own


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

    @property
    def place_name(self) -> str:
        """Where the calendar's holidays are, in words: "Austria", "Bayern, Germany"."""
        return place_name(self.country, self.subdivision)

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
