"""W003: series whose dates new time-zone data puts at another wall clock (a database check)."""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.db import DatabaseError, router

from ..models import EventSeries
from ..services.zone_data import series_changed_by_zone_data
from .event_model import check_event_model

#: How many series W003 names before it says "and N more".
ZONE_DATA_NAMED = 5


def check_zone_data(
    app_configs: Any = None, databases: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """W003: series whose generated dates the time-zone data loaded now would move.

    A database check, run like W002 (``manage.py check --database default``,
    ``migrate``). It reads the active series with generated dates (one query),
    compares each one's stored fingerprint of its zone's offsets with the data
    this process loads, and plans the moves of the outdated ones in two more
    queries (:func:`~revel_recurring.services.zone_data.series_changed_by_zone_data`,
    no booking hook). Such a series is held (nothing generated) until applied.
    """
    alias = router.db_for_read(EventSeries)
    if not databases or alias not in databases:
        return []
    if any(message.is_serious() for message in check_event_model()):
        return []
    try:
        changed = [
            change for change in series_changed_by_zone_data(bookings=False) if change.changes_dates
        ]
    except DatabaseError:
        # Tables or columns not migrated yet: migrate runs its checks before it migrates.
        return []
    if not changed:
        return []
    dates = sum(len(change.moves) for change in changed)
    zones = sorted({change.zone for change in changed})
    names = [f"{change.series.name} ({change.series.pk})" for change in changed]
    more = len(names) - ZONE_DATA_NAMED
    named = ", ".join(names[:ZONE_DATA_NAMED]) + (f" and {more} more" if more > 0 else "")
    return [
        checks.Warning(
            f"The time-zone data loaded now gives {', '.join(zones)} other UTC offsets than "
            f"when {len(changed)} series placed their dates: {dates} of their dates sit at "
            f"another wall-clock time than their rule's and would move: {named}. "
            "These series generate no new dates until then.",
            hint=(
                "Run manage.py revel_recurring_data to see the moves, then "
                "manage.py revel_recurring_data --apply (the people booked on moved "
                "dates are told)."
            ),
            id="revel_recurring.W003",
        )
    ]
