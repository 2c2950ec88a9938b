"""Weekly lessons on the next Bavarian holiday, for the studio host's holiday tests."""

from __future__ import annotations

import datetime as dt
from typing import Any

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.hosts.studio.models import School
from tests.studio.conftest import BERLIN
from tests.support.holiday_dates import WINDOW_WEEKS, at, next_holiday


def bavarian_holiday() -> dt.date:
    return next_holiday("DE", BERLIN, subdivision="BY")


def lessons_on(holiday: dt.date, school: School, **holidays: Any) -> EventSeries:
    """Weekly lessons at 18:30 Berlin from a week before ``holiday``, window generated."""
    start = at(holiday - dt.timedelta(weeks=1), BERLIN, 18, 30)
    return create_recurring_series(
        name="Salsa",
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": "Europe/Berlin"},
        template_data={
            "school": school,
            "title": "Salsa",
            "room": "Hall 1",
            "finishes": start + dt.timedelta(hours=1),
        },
        auto_publish=True,
        generation_window_weeks=WINDOW_WEEKS,
        holidays=holidays or None,
    )
