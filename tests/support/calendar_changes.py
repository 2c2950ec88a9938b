"""Five changes to a series one person is booked on, and the messages each brings them.

Shared by the three test hosts: a weekly series (published, under a country's
holidays kept as dates) with the person booked on several dates, including the
one on a holiday, one to be cancelled and two from the split on. In order:

1. ``time``: a plan moves the class an hour later (every date moves; people told);
2. ``cancel``: one booked date is cancelled;
3. ``holidays``: the holiday policy goes from ``keep`` to ``shift`` (a plan): the
   date on the holiday moves to the next day;
4. ``split``: the series is split at a date after the holiday; the booked dates
   from it on continue in the new series, under its UID;
5. ``restore``: the cancelled date takes place again.

After each change every notice of it is sent (``send_operation_notices``) and
the person's new messages are kept with it. Rows are read through
``get_event_model()`` only.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from revel_recurring import rules
from revel_recurring.ical import series_feed
from revel_recurring.models import EventSeries, SeriesOperation, get_event_model
from revel_recurring.notices.delivery import send_operation_notices
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.splits import split_series
from tests.support.inbox import Received, feed_entries, received
from tests.support.itip_consumers import Attached

STEPS = ("time", "cancel", "holidays", "split", "restore")


@dataclass
class Booked:
    """The person's dates, by role: indexes into the series' rows in start order."""

    address: str
    rows: list[Any]
    holiday: Any
    cancelled: Any
    split_at: Any
    after_split: Any

    @property
    def pks(self) -> list[Any]:
        return [row.pk for row in self.rows]


@dataclass
class Changes:
    """What the person held before the first change and what each change sent them."""

    series: EventSeries
    booked: Booked
    seed: list[Attached]
    inbox: dict[str, list[Received]] = field(default_factory=dict)
    continuation: EventSeries | None = None


def occurrences(series: EventSeries) -> list[Any]:
    """The series' rows (template excluded) in start order."""
    model = get_event_model()
    return sorted(
        model._default_manager.filter(series=series, is_template=False),
        key=lambda row: (row.occurrence_start, str(row.pk)),
    )


def holiday_ahead(country: str, zone: ZoneInfo, *, weeks: int = 3) -> dt.date:
    """The first public holiday of ``country`` at least ``weeks`` weeks ahead (real clock) on
    Monday to Thursday with no holiday the day after: ``shift`` moves a date on it one day
    on. A weekly series on its weekday from tomorrow has ``weeks`` dates before it."""
    import holidays

    today = timezone.now().astimezone(zone).date()
    days = holidays.country_holidays(country, years=range(today.year, today.year + 2))
    earliest = today + dt.timedelta(weeks=weeks, days=1)
    for day in sorted(days):
        if day >= earliest and day.weekday() < 4 and day + dt.timedelta(days=1) not in days:
            return day
    raise AssertionError(f"no holiday of {country} on Monday to Thursday within two years")


def first_weekday(weekday: int, zone: ZoneInfo, *, hour: int) -> dt.datetime:
    """The first ``weekday`` after today (real clock) at ``hour`` on ``zone``'s wall clock."""
    today = timezone.now().astimezone(zone).date()
    day = today + dt.timedelta(days=(weekday - today.weekday()) % 7 or 7)
    return dt.datetime.combine(day, dt.time(hour), tzinfo=zone)


def holiday_index(rows: Sequence[Any], holiday: dt.date, zone: Any) -> int:
    """The index of the row on ``holiday`` (its wall-clock date in ``zone``)."""
    (index,) = [
        i for i, row in enumerate(rows) if row.occurrence_start.astimezone(zone).date() == holiday
    ]
    return index


def pick_dates(rows: Sequence[Any], holiday_at: int, address: str) -> Booked:
    """The person's dates: the second and third rows (the third is cancelled), the row on
    the holiday, and the two rows two and three weeks after it (the split falls on the
    first of them)."""
    assert holiday_at > 2, f"the holiday is row {holiday_at}: too early for the scenario"
    assert holiday_at + 3 < len(rows), f"the window ends {len(rows)} rows in"
    chosen = [rows[1], rows[2], rows[holiday_at], rows[holiday_at + 2], rows[holiday_at + 3]]
    return Booked(
        address=address,
        rows=chosen,
        holiday=rows[holiday_at],
        cancelled=rows[2],
        split_at=rows[holiday_at + 2],
        after_split=rows[holiday_at + 3],
    )


def live_starts(pks: Sequence[Any]) -> list[dt.datetime]:
    """The start (UTC) of each of ``pks`` that takes place, read from the database, sorted."""
    model = get_event_model()
    cancelled = model.RECURRING_STATUS_CANCELLED
    return sorted(
        row.occurrence_start.astimezone(dt.UTC)
        for row in model._default_manager.filter(pk__in=list(pks))
        if not model.is_status(row.occurrence_status, cancelled)
    )


def feed_identities(series: Sequence[EventSeries], pks: Sequence[Any]) -> dict[Any, dt.datetime]:
    """(UID, RECURRENCE-ID) -> start of every live row of ``pks``, as the feeds of ``series``
    export them (each row read in its own series' feed)."""
    model = get_event_model()
    by_series: dict[int, list[dt.datetime]] = {}
    for start in live_starts(pks):
        (row,) = [
            one
            for one in model._default_manager.filter(pk__in=list(pks))
            if one.occurrence_start.astimezone(dt.UTC) == start
        ]
        by_series.setdefault(row.series_id, []).append(start)
    found: dict[Any, dt.datetime] = {}
    for one in series:
        starts = by_series.pop(one.pk, [])
        if starts:
            for entry in feed_entries(series_feed(one).body, starts):
                found[entry.identity] = entry.start
    assert not by_series, f"rows of series {sorted(by_series)} not looked up"
    return found


def _send_all(address: str, seen: int) -> list[Received]:
    for operation in SeriesOperation.objects.order_by("created_at"):
        send_operation_notices(operation.pk)
    return received(address)[seen:]


def run_changes(
    series: EventSeries,
    booked: Booked,
    *,
    later: dt.timedelta = dt.timedelta(hours=1),
    after_each: Callable[[str, Changes], None] | None = None,
    now: dt.datetime | None = None,
) -> Changes:
    """Apply the five changes (module docstring); the messages of each kept by its name.

    Every change runs at the same ``now`` (default: the clock on entry), as if all
    five came within one second: the SEQUENCE a message carries must then grow by
    the count stored per identity, not by the clock.
    """
    moment = now or timezone.now()
    seed = feed_entries(series_feed(series).body, live_starts(booked.pks))
    changes = Changes(series=series, booked=booked, seed=seed)
    seen = len(received(booked.address))

    def step(name: str) -> None:
        nonlocal seen
        messages = _send_all(booked.address, seen)
        seen += len(messages)
        changes.inbox[name] = messages
        if after_each is not None:
            after_each(name, changes)

    rule = series.recurrence_rule
    assert rule is not None
    moved: Mapping[str, Any] = {"dtstart": rule.dtstart + later}
    plan = plan_recurrence_change(series, moved, now=moment)
    apply_recurrence_plan(
        series, plan.hash, moved, cancel_drift="unbooked", notify="all", now=moment
    )
    step("time")

    cancelled = _fresh(booked.cancelled)
    cancel_occurrence(
        series, cancelled.recurrence_id, include_booked=True, notify="all", now=moment
    )
    step("cancel")

    shift: Mapping[str, Any] = {"holidays": {"policy": "shift"}}
    plan = plan_recurrence_change(series, shift, now=moment)
    apply_recurrence_plan(
        series, plan.hash, shift, cancel_drift="unbooked", notify="all", now=moment
    )
    step("holidays")

    at = rules.to_utc(_fresh(booked.split_at).recurrence_id)
    changes.continuation = split_series(series, at=at, notify="all", now=moment).continuation
    step("split")

    restore_occurrence(series, cancelled.recurrence_id, notify="all", now=moment)
    step("restore")
    return changes


def _fresh(row: Any) -> Any:
    return get_event_model()._default_manager.get(pk=row.pk)
