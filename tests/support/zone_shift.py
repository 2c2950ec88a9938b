"""The time-zone release the zone tests share: Vancouver goes from UTC-8 to UTC-7.

A class at 18:00 every Monday from the coming Monday (by the real clock: the
system check and the command compare from the real ``now``) is generated while
the test zone (tests/support/zone_files.py) keeps UTC-8; :func:`clocks_change`
then writes the release that moves it to UTC-7 from the Wednesday of its fourth
week on. Of eight generated Mondays, the last four then sit at 19:00.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from tests.support.zone_files import write_zone, zone_directory

ZONE = "America/Vancouver"
PST, MST = dt.timedelta(hours=-8), dt.timedelta(hours=-7)


def first_monday() -> dt.datetime:
    """18:00 on the coming Monday at UTC-8 (the test zone's old offset)."""
    fixed = dt.timezone(PST)
    today = timezone.now().astimezone(fixed).date()
    day = today + dt.timedelta(days=(-today.weekday()) % 7 or 7)
    return dt.datetime.combine(day, dt.time(18), tzinfo=fixed)


def change_at() -> dt.datetime:
    """When the release moves the clocks: the Wednesday after the fourth Monday."""
    return (first_monday() + dt.timedelta(days=23)).astimezone(dt.UTC)


@contextmanager
def old_zone_data(directory: Path) -> Iterator[Path]:
    """The test zone at UTC-8 while inside."""
    with zone_directory(directory):
        write_zone(directory, ZONE, PST)
        yield directory


def clocks_change(directory: Path, at: dt.datetime | None = None) -> None:
    """The tz release: UTC-7 from ``at`` (default :func:`change_at`) on, loaded by this
    process."""
    write_zone(directory, ZONE, PST, changes_at=at or change_at(), new_offset=MST)


def wall_hours(starts: list[Any]) -> list[int]:
    """The hour each instant shows in the test zone, as loaded now."""
    zone = ZoneInfo(ZONE)
    return [start.astimezone(zone).hour for start in starts]
