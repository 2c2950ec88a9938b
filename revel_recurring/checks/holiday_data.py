"""W002: series whose dates the installed ``holidays`` release would change (a database check)."""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.db import DatabaseError, router

from ..models import EventSeries
from ..services.holiday_data import series_changed_by_holiday_data
from .event_model import check_event_model

#: How many series W002 names before it says "and N more".
HOLIDAY_DATA_NAMED = 5


def check_holiday_data(
    app_configs: Any = None, databases: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """W002: series whose generated dates the installed ``holidays`` release would change.

    A database check: it runs when Django asks for those (``manage.py check
    --database default``, and ``migrate``, a deploy's step after upgrading
    packages), not at every command. Its first query reads the active series
    generated with another ``holidays`` release (none: nothing more is read);
    their dates are then compared in two more queries for all of them
    (:func:`~revel_recurring.services.holiday_data.series_changed_by_holiday_data`,
    no booking hook). Series whose dates do not change are not warned about.
    Before the tables exist (``migrate`` checks first) it says nothing.
    """
    alias = router.db_for_read(EventSeries)
    if not databases or alias not in databases:
        return []
    if any(message.is_serious() for message in check_event_model()):
        return []
    try:
        changed = [
            change
            for change in series_changed_by_holiday_data(bookings=False)
            if change.changes_dates
        ]
    except DatabaseError:
        # Tables or columns not migrated yet: migrate runs its checks before it migrates.
        return []
    if not changed:
        return []
    dates = sum(len(change.drift) + len(change.appearing) for change in changed)
    versions = sorted({change.stored_version or "an unknown release" for change in changed})
    names = [f"{change.series.name} ({change.series.pk})" for change in changed]
    more = len(names) - HOLIDAY_DATA_NAMED
    named = ", ".join(names[:HOLIDAY_DATA_NAMED]) + (f" and {more} more" if more > 0 else "")
    return [
        checks.Warning(
            f"{len(changed)} series were generated with holidays {', '.join(versions)}; "
            f"under the installed {changed[0].installed_version}, {dates} of their dates "
            f"would change (a holiday now skips or moves them, or no longer does): {named}.",
            hint=(
                "Run manage.py revel_recurring_holidays to see the dates, then "
                "manage.py revel_recurring_holidays --apply to apply the difference "
                "(booked dates are kept and named)."
            ),
            id="revel_recurring.W002",
        )
    ]
