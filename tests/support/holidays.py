"""A newer release of the ``holidays`` package, simulated for the holiday-data tests.

Shared by the three hosts' suites (it imports no host model). Series are
generated with the real calendar first; then :func:`newer_holiday_data` makes
``holiday_rules._calendar`` (an ``lru_cache``'d factory) answer calendars with
days added or removed, as a package update would, and :func:`generated_with`
stores an older release on the series, as the earlier generation would have.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from unittest import mock

from django.utils import timezone

from revel_recurring import holiday_rules
from revel_recurring.models import EventSeries

#: What the simulated release calls the day it adds.
TEST_DAY = "Test Day"
#: A release older than any installed one.
OLD_RELEASE = "0.1"
#: The calendar and policy of the tests' classes: Austrian public holidays skipped.
AUSTRIA_SKIP = {"country": "AT", "subdivision": "", "categories": [], "policy": "skip"}


def coming_monday(zone: dt.tzinfo, hour: int = 10) -> dt.datetime:
    """``hour`` o'clock on the coming Monday in ``zone``, by the real clock (for the
    system check and the command, which compare from the real ``now``)."""
    today = timezone.now().astimezone(zone).date()
    day = today + dt.timedelta(days=(-today.weekday()) % 7 or 7)
    return dt.datetime.combine(day, dt.time(hour), tzinfo=zone)


@contextlib.contextmanager
def newer_holiday_data(
    added: Mapping[dt.date, str] | Iterable[dt.date] = (),
    *,
    removed: Iterable[dt.date] = (),
) -> Iterator[None]:
    """Within the block, the holiday calendars know ``added`` (day -> name, or days
    named :data:`TEST_DAY`) and no longer know ``removed``."""
    days = dict(added) if isinstance(added, Mapping) else dict.fromkeys(added, TEST_DAY)
    gone = tuple(removed)
    real = holiday_rules._calendar

    def calendar(*args: Any) -> Any:
        # The real factory's calendar, changed in place: the cache is cleared on
        # the way in and out, so no other test ever sees it.
        found = real(*args)
        for day, name in days.items():
            if found.get(day) != name:
                found[day] = name
        for day in gone:
            if day in found:
                found.pop(day)
        return found

    real.cache_clear()
    try:
        with mock.patch.object(holiday_rules, "_calendar", calendar):
            yield
    finally:
        real.cache_clear()


def generated_with(series: EventSeries, release: str = OLD_RELEASE) -> None:
    """Record that ``series``' dates were placed with the ``holidays`` ``release``."""
    EventSeries.objects.filter(pk=series.pk).update(holidays_version=release)
    series.holidays_version = release
