"""Holidays ahead of the real clock, for tests of the API and the admin (which read it); any host.

The pages and the API read the real clock, so a test that needs a holiday among
a series' next dates looks one up in the installed ``holidays`` package rather
than naming a date that will be past next year.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import holidays
from django.utils import timezone

#: A weekly date on the holiday is the series' second one: its first is a week before.
LEAD_DAYS = 8
#: A window that reaches the holiday: public holidays are never half a year apart.
WINDOW_WEEKS = 26


def next_holiday(country: str, zone: ZoneInfo, *, subdivision: str = "") -> dt.date:
    """The first holiday of the calendar at least :data:`LEAD_DAYS` days ahead in ``zone``
    that falls on Monday to Thursday with no holiday the day after: a weekly date on it
    is skipped by ``skip`` and moved to the next day by ``shift``. A window of
    :data:`WINDOW_WEEKS` reaches it."""
    today = timezone.now().astimezone(zone).date()
    days = holidays.country_holidays(
        country, subdiv=subdivision or None, years=range(today.year, today.year + 3)
    )
    earliest = today + dt.timedelta(days=LEAD_DAYS)
    for day in sorted(days):
        if day >= earliest and day.weekday() < 4 and day + dt.timedelta(days=1) not in days:
            assert day < today + dt.timedelta(weeks=WINDOW_WEEKS - 1), (country, day)
            return day
    raise AssertionError(f"no holiday of {country} on a weekday in the next three years")


def at(day: dt.date, zone: ZoneInfo, hour: int = 10, minute: int = 0) -> dt.datetime:
    """``day`` at ``hour:minute`` on the wall clock of ``zone``."""
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=zone)


def holiday_name(country: str, day: dt.date, language: str, *, subdivision: str = "") -> str:
    """The package's name of the holiday on ``day`` in ``language`` (``de``, ``en_US``)."""
    names = holidays.country_holidays(country, subdiv=subdivision or None, language=language)
    return str(names[day])


def utc(moment: dt.datetime) -> str:
    """An instant as the API and the stored columns write it: UTC, whole seconds, ``Z``."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
