"""A series' life after its rule is written: create, change the cadence, pause, delete.

Every function that writes series state opens one ``transaction.atomic()`` whose
first statement is :func:`~revel_recurring.services.toolbox.locking.lock_series`, the same
lock generation takes, so an organiser's edit and a beat run never interleave.
Signals go out after commit only; a failing receiver is logged, never raised into
a request that already committed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import ngettext

from .. import rules
from ..adapter import get_adapter
from ..conf import recurring_settings
from ..context import deleting_series
from ..exceptions import SeriesHasBookingsError
from ..holiday_settings import normalize_holiday_settings, set_holiday_settings
from ..host_model import bulky_fields
from ..models import DeletedSeries, EventSeries, RecurrenceRule, get_event_model
from ..validators import (
    validate_dtstart_zone,
    validate_no_nul_characters,
    validate_rule,
    validate_rule_keys,
    validate_series_options,
    validate_single_line_values,
)
from .editing import extra_dates_refusal, update_series
from .extra_dates import add_extra_dates
from .generation import generate_series_events
from .recurrence import update_series_recurrence
from .templates import build_template, save_template
from .toolbox.bookings import BookedDate, booked_dates, booked_ids, list_dates, series_zone
from .toolbox.locking import lock_rows, lock_series, retry_on_lock_conflict
from .toolbox.operation import dates_operation
from .toolbox.plumbing import load_rule, mirror_columns, now_utc
from .toolbox.scheduling import refresh_next_due_at


def create_recurring_series(
    *,
    rule_data: Mapping[str, Any],
    template_data: Mapping[str, Any],
    name: str,
    description: str = "",
    auto_publish: bool = False,
    generation_window_weeks: int | None = None,
    is_active: bool = True,
    generate: bool = True,
    setup_template: Callable[[Any], None] | None = None,
    holidays: Mapping[str, Any] | None = None,
    extra_dates: Iterable[dt.datetime] = (),
    now: dt.datetime | None = None,
) -> EventSeries:
    """Create a rule, a series and its draft template, then materialize the first window.

    ``rule_data`` holds :data:`~revel_recurring.rules.RULE_FIELDS`; ``template_data``
    the host event's own fields (title, capacity, ...). The template starts at the
    rule's ``dtstart`` unless ``template_data`` gives its start; its end, if given,
    sets every occurrence's duration. Its status is always the host's draft value.

    Everything is validated before anything is written (``ValidationError`` keyed
    by field), and rule, series, template and the first occurrences commit in one
    transaction: invalid input or a failing host hook creates nothing.

    ``setup_template`` is called with the saved template inside that transaction,
    before the first generation: create the template's related rows there (seat
    blocks, ticket tiers) and ``clone_related`` copies them onto the first window.
    ``generate=False`` leaves the first window to the next beat run (or to your own
    ``generate_series_events`` call once the template is complete). ``holidays``
    names a holiday calendar and policy (:mod:`revel_recurring.holiday_settings`:
    ``country``, ``subdivision``, ``categories``, ``policy``). ``extra_dates`` are
    added after the first window, in the same transaction, as
    :func:`~revel_recurring.services.extra_dates.add_extra_dates` adds them (a
    refused one, keyed ``extra_dates``, creates no series either).
    """
    moment = now_utc(now)
    window = (
        generation_window_weeks
        if generation_window_weeks is not None
        else recurring_settings.DEFAULT_WINDOW_WEEKS
    )
    validate_rule_keys(rule_data)
    rule_values = {**rules.UNSET_RULE_VALUES, **rule_data}
    validate_rule(rule_values)
    validate_dtstart_zone(rule_values["dtstart"], rule_values["timezone"])
    validate_series_options(generation_window_weeks=window)
    rule = RecurrenceRule(**rule_values)
    series = EventSeries(
        name=name,
        description=description,
        auto_publish=auto_publish,
        generation_window_weeks=window,
        is_active=is_active,
    )
    if holidays:
        set_holiday_settings(series, normalize_holiday_settings(holidays))
    validate_single_line_values({"name": name}, ["name"])
    validate_no_nul_characters({"name": name, "description": description})
    series.full_clean(exclude=["recurrence_rule", "slug"])
    template = build_template(template_data, dtstart=rule.dtstart)
    with transaction.atomic(), dates_operation("create", (), now=moment) as operation:
        rule.save()
        series.recurrence_rule = rule
        series.save()
        operation.watch([series])
        save_template(series, template)
        if setup_template is not None:
            setup_template(template)
        if generate and is_active:
            generate_series_events(series, now=moment)
        else:
            locked = lock_series(series.pk)
            locked.recurrence_rule = rule
            refresh_next_due_at(locked, now=moment)
            locked.save(update_fields=["next_due_at", "updated_at"])
            mirror_columns(series, locked, "next_due_at")
        if extra_dates:
            _add_extra_dates(series, extra_dates, now=moment)
    return series


def _add_extra_dates(
    series: EventSeries, instants: Iterable[dt.datetime], *, now: dt.datetime
) -> None:
    try:
        add_extra_dates(series, instants, now=now)
    except ValidationError as exc:
        raise extra_dates_refusal(exc) from exc


def pause_series(series: EventSeries, *, now: dt.datetime | None = None) -> bool:
    """Stop generating occurrences for ``series``; returns False if it was already paused.

    Only ``is_active`` changes: the cursor, exdates and every materialized
    occurrence stay as they are. Sends ``series_paused`` after commit.
    """
    return bool(update_series(series, is_active=False, now=now).changed)


def resume_series(series: EventSeries, *, now: dt.datetime | None = None) -> bool:
    """Generate occurrences for ``series`` again; returns False if it was already active.

    Also unparks a series the daily pass parked after a failure (``parked_at``),
    active or not: that counts as a change (True). The cursor is kept. Generation
    never materializes slots that start before ``now``, so the dates missed while
    paused are not created after the fact.
    ``next_due_at`` is recomputed so the beat picks the series up when due.
    Sends ``series_resumed`` after commit.
    """
    return bool(update_series(series, is_active=True, now=now).changed)


def delete_series(series: EventSeries) -> int:
    """Delete a series with its template, its occurrences and its rule, in one transaction.

    Refuses with :class:`~revel_recurring.exceptions.SeriesHasBookingsError` while the
    host's ``booked_among()`` hook (asked once for all the series' events) names any:
    paid data is never deleted as a side effect (the foreign keys are PROTECT for the
    same reason). The error names the booked dates in the rule's zone and carries
    them as ``booked`` (:class:`~revel_recurring.services.toolbox.bookings.BookedDate`). Occurrences
    deleted here record no exdates. A :class:`~revel_recurring.models.DeletedSeries`
    remembers the series, so its feed tells calendar apps to drop its dates
    (an empty calendar for ``REVEL_RECURRING_DELETED_FEED_DAYS``, then 410).
    Returns the number of host events deleted, template included.
    """
    model = get_event_model()
    # Long texts copied onto every occurrence are never read here: without them
    # a daily series with a 1 MB description is deleted in a few MB, not gigabytes.
    bulky = bulky_fields(model)

    def attempt() -> int:
        with transaction.atomic():
            locked = lock_series(series.pk)
            rows = model._default_manager.filter(series=locked).defer(*bulky)
            events = list(lock_rows(rows.order_by("pk")))
            # One question to the host for the whole series, not one per event.
            booked = booked_ids(events)
            if booked:
                load_rule(locked)
                dates = booked_dates(
                    [event for event in events if event.pk in booked], zone=series_zone(locked)
                )
                raise SeriesHasBookingsError(
                    ngettext(
                        "Series '%(series)s' cannot be deleted: %(dates)s has bookings. "
                        "Cancel or refund those bookings first, or pause the series instead.",
                        "Series '%(series)s' cannot be deleted: %(dates)s have bookings. "
                        "Cancel or refund those bookings first, or pause the series instead.",
                        len(dates),
                    )
                    % {"series": locked.name, "dates": _dates_phrase(dates)},
                    booked=dates,
                )
            # The series' history keeps the deletion: every row, by value.
            with dates_operation("delete", locked, all_rows=True):
                template = next((event for event in events if event.is_template), None)
                remembered = DeletedSeries(
                    series_pk=str(locked.pk),
                    slug=locked.slug,
                    name=locked.name,
                    feed_was_open=get_adapter().is_feed_open(locked, template),
                )
                with deleting_series(locked.pk):
                    # The collector loads every row for the delete signals: deferred ones.
                    rows.delete()
                rule_id = locked.recurrence_rule_id
                locked.delete()
                remembered.save()
                if rule_id is not None:
                    RecurrenceRule.objects.filter(pk=rule_id).delete()
        return len(events)

    return retry_on_lock_conflict(attempt, series_ids=[series.pk])


#: At most this many dates are spelled out in one message; the rest are counted.
NAMED_DATES_MAX = 10


def _dates_phrase(dates: list[BookedDate]) -> str:
    named = list_dates(dates[:NAMED_DATES_MAX])
    rest = len(dates) - NAMED_DATES_MAX
    if rest > 0:
        return ngettext(
            "%(dates)s and %(count)d more date", "%(dates)s and %(count)d more dates", rest
        ) % {"dates": named, "count": rest}
    return named


__all__ = [
    "create_recurring_series",
    "delete_series",
    "pause_series",
    "resume_series",
    "update_series",
    "update_series_recurrence",
]
