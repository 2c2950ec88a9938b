"""One series feed pinned byte for byte, on whichever test host runs it.

The consumer tests (tests/support/feed_consumers.py) check that a feed expands to the
right dates; this pins the text itself, so that a change of the export's code
that should change nothing (a refactoring) is seen to change nothing. The series
has every kind of line a feed writes for a series: a master VEVENT with its
RRULE across a DST switch, an EXDATE (a cancelled date), RDATEs (extra dates; a
cancelled one left out), an override (a moved date, a renamed one), VEVENTs of
their own (the rows a cadence change left off the rule with no date of the new rule in
their week to move to) and the host's own length
(an end or a duration). Every step runs at a fixed moment, so the stamps and
SEQUENCE are the same at every run.

What the host chooses (the keys in the UIDs, the package version in PRODID) is
replaced by a placeholder before comparing; where the keys are drawn at random
(UUIDs), the VEVENTs after the master, which follow the keys, are sorted.
``REVEL_PIN_FEEDS=1`` writes the expected text instead of comparing: only when
the feed is meant to change.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import models

BERLIN = ZoneInfo("Europe/Berlin")
# A Monday, four weeks before Berlin's switch to summer time on 30 March 2031.
PIN_START = dt.datetime(2031, 3, 3, 18, 30, tzinfo=BERLIN)
PIN_CREATED = dt.datetime(2031, 2, 20, 9, 0, tzinfo=dt.UTC)


def _at(hours: int) -> Any:
    """A clock stopped ``hours`` after the series was created."""
    return time_machine.travel(PIN_CREATED + dt.timedelta(hours=hours), tick=False)


def pinned_series_text(template_data: Mapping[str, Any]) -> str:
    """The feed of a Monday/Wednesday series edited every way a feed shows, placeholders in.

    ``template_data`` is the host's template (title and its own length fields).
    """
    from revel_recurring import __version__
    from revel_recurring.ical import series_feed
    from revel_recurring.models import get_event_model
    from revel_recurring.services.cancellation import cancel_occurrence
    from revel_recurring.services.extra_dates import add_extra_date
    from revel_recurring.services.lifecycle import (
        create_recurring_series,
        update_series_recurrence,
    )

    model = get_event_model()
    manager = model._default_manager
    start, end = model.RECURRING_START_FIELD, model.RECURRING_END_FIELD
    rule = {"frequency": "WEEKLY", "weekdays": [0, 2], "dtstart": PIN_START}
    with _at(0):
        series = create_recurring_series(
            rule_data={**rule, "timezone": "Europe/Berlin"},
            template_data=template_data,
            name="Pinned class",
            auto_publish=True,
            generation_window_weeks=6,
        )
    cancelled_extra = dt.datetime(2031, 3, 22, 10, 0, tzinfo=BERLIN)
    with _at(1):  # three extra dates: Saturday mornings and a Friday in summer time
        add_extra_date(series, dt.datetime(2031, 3, 8, 11, 0, tzinfo=BERLIN))
        add_extra_date(series, cancelled_extra)
        add_extra_date(series, dt.datetime(2031, 4, 4, 17, 0, tzinfo=BERLIN))
    with _at(2):  # the second Wednesday cancelled (an EXDATE), and an extra date (left out)
        cancel_occurrence(series, PIN_START + dt.timedelta(days=9))
        cancel_occurrence(series, cancelled_extra)
    rows: list[Any] = list(manager.filter(series=series, is_template=False).order_by(start))
    # 0 Mon 3 March, 1 Wed 5, 2 Sat 8 (extra), 3 Mon 10, 4 Wed 12 (cancelled), 5 Mon 17, ...
    moved, renamed = rows[5], rows[6]
    with _at(3):  # moved two hours later: an override
        setattr(moved, start, getattr(moved, start) + dt.timedelta(hours=2))
        if end:
            setattr(moved, end, getattr(moved, end) + dt.timedelta(hours=2))
        moved.save()
    with _at(4):  # renamed: an override at its own slot
        renamed.title = "Pinned class (guest teacher)"
        renamed.save()
    with _at(5):  # Mondays only: the Wednesdays stay, off the rule, with nowhere to move
        # (their week's Monday is taken); Wednesdays to Thursdays would move them.
        update_series_recurrence(series, rule_changes={"weekdays": [0]})
    series.refresh_from_db()
    with _at(6):
        body = series_feed(series, now=PIN_CREATED + dt.timedelta(hours=6)).body.decode()
    rows = list(manager.filter(series=series, is_template=False).order_by(start))
    body = body.replace(f"revel-recurring-series-{series.pk}@", "revel-recurring-series-SERIES@")
    for number, row in enumerate(rows):
        body = body.replace(f"revel-recurring-event-{row.pk}@", f"revel-recurring-event-{number}@")
    body = body.replace(f"revel-recurring {__version__}//", "revel-recurring VERSION//")
    if isinstance(model._meta.pk, models.UUIDField):
        # The VEVENTs after the master follow the rows' keys, which are drawn at random.
        head, master, *others = body.split("BEGIN:VEVENT\r\n")
        last, tail = others[-1].split("END:VCALENDAR\r\n")
        others = sorted([*others[:-1], last])
        body = "BEGIN:VEVENT\r\n".join([head, master, *others]) + "END:VCALENDAR\r\n" + tail
    return body


def assert_pinned(text: str, expected: Path) -> None:
    """``text`` equals the file ``expected`` byte for byte (or is written there, see above)."""
    if os.environ.get("REVEL_PIN_FEEDS") == "1":
        expected.write_bytes(text.encode())
    pinned = expected.read_bytes().decode()
    if text != pinned:
        lines = difflib.unified_diff(
            pinned.splitlines(), text.splitlines(), str(expected), "built", lineterm=""
        )
        pytest.fail("The feed is not the pinned text:\n" + "\n".join(lines))
