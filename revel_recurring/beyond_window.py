"""The rule's dates beyond the generation window: what a person planning ahead may see and book.

The rolling window materializes a few weeks; the rule goes on. :func:`dates_beyond_window`
answers the dates after the series' cursor that have no row yet and are not
excluded, each where it takes place (a holiday may move it), capped by
``REVEL_RECURRING_BEYOND_WINDOW_DATES``. A read, at most three queries; the
write that turns one of them into a row is
:func:`revel_recurring.services.beyond_window.materialize_date`
(docs/decisions/0063-dates-beyond-the-window.md).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from . import rules
from .conf import recurring_settings
from .exclusions import excluded_between
from .holiday_placement import SHIFT_REACH
from .models import EventSeries, RecurrenceRule, get_event_model
from .slots import holiday_of


@dataclass(frozen=True)
class BeyondDate:
    """A date of the rule past the cursor without a row: its slot, start, end and holiday.

    ``slot`` is the rule's instant (UTC, the ``recurrence_id`` its row will get);
    ``start`` is where it takes place (the slot, or the day a holiday moved it
    to); ``end`` is ``start`` plus the template's length (None when the host
    cannot say); ``holiday`` names a holiday on the slot's day ("" for none).
    """

    slot: dt.datetime
    start: dt.datetime
    end: dt.datetime | None
    holiday: str = ""


def beyond_boundary(series: EventSeries, now: dt.datetime) -> dt.datetime:
    """Where the dates beyond the window begin: the later of the cursor and ``now``.

    The dates at or before it are rows (or excluded, or past); those after it are
    what the daily pass has not reached yet.
    """
    cursor = series.last_generated_until
    return now if cursor is None or cursor < now else cursor


def dates_beyond_window(
    series: EventSeries,
    *,
    now: dt.datetime | None = None,
    limit: int | None = None,
    starts_from: dt.datetime | None = None,
    starts_before: dt.datetime | None = None,
) -> list[BeyondDate]:
    """The next dates of ``series`` after :func:`beyond_boundary` that have no row yet.

    At most ``limit`` (default ``REVEL_RECURRING_BEYOND_WINDOW_DATES``; 0 or less:
    none), in start order. Excluded dates (cancelled, deleted, skipped by a
    holiday) are left out, as are dates a row holds already (one materialized
    ahead by :func:`~revel_recurring.services.beyond_window.materialize_date`).
    ``starts_from`` (inclusive) and ``starts_before`` (exclusive) bound where
    they take place. A paused series, or one without a rule or template, has
    none: nothing would make their rows. Three queries: the rows held, the
    pending exdates, the template.
    """
    cap = recurring_settings.BEYOND_WINDOW_DATES if limit is None else limit
    if cap < 1 or not series.is_active or series.recurrence_rule_id is None:
        return []
    rule = series.recurrence_rule
    if rule is None:  # pragma: no cover - the foreign key says there is one
        rule = RecurrenceRule.objects.get(pk=series.recurrence_rule_id)
    moment = rules.to_utc(now) if now is not None else timezone.now()
    boundary = beyond_boundary(series, moment)
    spec = series.dates_spec(rule)
    manager = get_event_model()._default_manager
    held = {
        rules.to_utc(value)
        for value in manager.filter(
            series_id=series.pk, is_template=False, recurrence_id__gt=boundary - SHIFT_REACH
        ).values_list("recurrence_id", flat=True)
        if value is not None
    }
    excluded = excluded_between(series, boundary - SHIFT_REACH, rule=rule)
    placer = excluded.holidays
    template = manager.filter(series_id=series.pk, is_template=True).first()
    if template is None:
        return []
    length = template.occurrence_duration()
    floor = boundary.astimezone(spec.zone).replace(tzinfo=None) - dt.timedelta(days=1)
    found: list[BeyondDate] = []
    for slot in rules.iter_occurrences(spec, start_wall_clock=floor):
        if slot <= boundary or slot in held or slot in excluded:
            continue
        start = slot if placer is None else placer.start_of(slot)
        if starts_before is not None and start >= starts_before:
            break
        if starts_from is not None and start < starts_from:
            continue
        _, holiday = holiday_of(placer, slot)
        found.append(BeyondDate(slot, start, None if length is None else start + length, holiday))
        if len(found) >= cap:
            break
    return found


__all__ = ["BeyondDate", "beyond_boundary", "dates_beyond_window"]
