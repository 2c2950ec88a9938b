"""What a date a holiday moved says about it, wherever it is shown to the people coming.

Under the ``shift`` policy a date on a holiday takes place on the next free day
(decision 0037): a Thursday class on a Friday. The feed writes why first in the
override's ``DESCRIPTION`` (decision 0040), and a host's page listing the dates
shows the same sentence beside the date: "Moved from Thu 6 May 2027 because of
Ascension Day." Only a date a holiday moved gets a note; one the organiser moved
again afterwards still came from that holiday and keeps it. The sentence is in
the active language, the holiday's name in it where the ``holidays`` package has
that language.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext

from .holiday_placement import HolidayPlacer
from .holiday_rules import HolidayOutcome
from .instants import describe_day
from .models import EventSeries, RecurrenceRule

__all__ = ["holiday_move_note", "holiday_move_notes", "moved_by_holiday"]


def holiday_move_note(slot: dt.datetime, holiday: str, zone: str | None) -> str:
    """The sentence of a date a holiday moved off ``slot`` (its day on ``zone``'s calendar)."""
    return gettext("Moved from %(date)s because of %(holiday)s.") % {
        "date": describe_day(slot, zone),
        "holiday": holiday,
    }


def moved_by_holiday(occurrence: Any, placer: HolidayPlacer | None) -> bool:
    """Whether ``occurrence`` (a row of the series ``placer`` places) is off its slot and a
    holiday moved its slot."""
    slot = occurrence.recurrence_id
    if placer is None or slot is None or occurrence.occurrence_start == slot:
        return False
    fate = placer.fate(slot)
    return fate is not None and fate.outcome is HolidayOutcome.SHIFTED


def holiday_move_notes(
    series: EventSeries, occurrences: Iterable[Any], *, rule: RecurrenceRule | None = None
) -> dict[Any, str]:
    """The note of each of ``occurrences`` (rows of ``series``) a holiday moved, by primary key.

    ``rule`` is the series' rule (read from ``series`` when None: load it with the
    series). No query: the rows need their slot (``recurrence_id``) and their start
    loaded; the rule is placed by blocks of weeks, however many rows.
    """
    if rule is None:
        rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    holiday_rule = series.holiday_rule
    if rule is None or holiday_rule is None:
        return {}
    placer = HolidayPlacer(series.dates_spec(rule))
    notes = {}
    for occurrence in occurrences:
        if moved_by_holiday(occurrence, placer):
            fate = placer.fate(occurrence.recurrence_id)
            assert fate is not None
            name = holiday_rule.name_on(fate.day) or ""
            notes[occurrence.pk] = holiday_move_note(fate.slot, name, rule.timezone)
    return notes
