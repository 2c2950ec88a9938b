"""A series' life after its rule is written: create, change the cadence, pause, delete.

Every function that writes series state opens one ``transaction.atomic()`` whose
first statement is :func:`~revel_recurring.services.locking.lock_series`, the same
lock generation takes, so an organiser's edit and a beat run never interleave.
Signals go out after commit only; a failing receiver is logged, never raised into
a request that already committed.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import transaction
from django.dispatch import Signal

from .. import rules
from ..conf import recurring_settings
from ..exceptions import SeriesHasBookingsError, SeriesNotReadyError
from ..mixins import OCCURRENCE_STATE_FIELDS
from ..models import RULE_FIELDS, EventSeries, RecurrenceRule, get_event_model
from ..receivers import deleting_series
from ..signals import series_paused, series_recurrence_changed, series_resumed
from ..validators import (
    FIELDS_USED_BY,
    OPTIONAL_RULE_FIELDS,
    validate_dtstart_zone,
    validate_generation_window_weeks,
    validate_no_nul_characters,
    validate_rule,
)
from .generation import generate_series_events
from .locking import aware_now, lock_rows, lock_series, retry_on_lock_conflict
from .scheduling import refresh_next_due_at

logger = logging.getLogger(__name__)

# The values a rule field has when it is "not set"; a frequency change resets the
# optional fields the new frequency does not read to these.
_UNSET: dict[str, Any] = {
    "weekdays": [],
    "monthly_type": "",
    "day_of_month": None,
    "nth_weekday": None,
    "weekday": None,
}


def send_after_commit(signal: Signal, **kwargs: Any) -> None:
    """Send ``signal`` (sender: EventSeries) once the current transaction commits.

    ``send_robust``: the data is committed by then, so a broken receiver must not
    turn a successful write into an error for the caller; it is logged instead.
    """

    def send() -> None:
        for receiver, result in signal.send_robust(sender=EventSeries, **kwargs):
            if isinstance(result, Exception):
                logger.error("revel_recurring signal receiver %r failed", receiver, exc_info=result)

    transaction.on_commit(send)


def _now(now: dt.datetime | None) -> dt.datetime:
    return aware_now(now)


def utc_instants(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with aware datetimes as UTC (the same instants, offsets every database stores)."""
    return {
        key: rules.to_utc(value)
        if isinstance(value, dt.datetime) and value.utcoffset() is not None
        else value
        for key, value in values.items()
    }


def _sync(target: EventSeries, source: EventSeries, *names: str) -> None:
    # Callers keep using the instance they passed in; mirror what was written.
    for name in names:
        setattr(target, name, getattr(source, name))


def _check_window(value: object) -> None:
    try:
        validate_generation_window_weeks(value)
    except ValidationError as exc:
        raise ValidationError({"generation_window_weeks": exc.messages}) from None


def _check_rule_keys(data: Mapping[str, Any]) -> None:
    unknown = sorted(set(data) - set(RULE_FIELDS))
    if unknown:
        allowed = ", ".join(RULE_FIELDS)
        raise ValidationError(
            {name: f"'{name}' is not a recurrence rule field; use {allowed}." for name in unknown}
        )


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
    now: dt.datetime | None = None,
) -> EventSeries:
    """Create a rule, a series and its draft template, then materialize the first window.

    ``rule_data`` holds :data:`~revel_recurring.models.RULE_FIELDS`; ``template_data``
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
    ``generate_series_events`` call once the template is complete).
    """
    moment = _now(now)
    window = (
        generation_window_weeks
        if generation_window_weeks is not None
        else recurring_settings.DEFAULT_WINDOW_WEEKS
    )
    _check_rule_keys(rule_data)
    rule_values = {**_UNSET, **rule_data}
    validate_rule(rule_values)
    validate_dtstart_zone(rule_values["dtstart"], rule_values["timezone"])
    _check_window(window)
    rule = RecurrenceRule(**rule_values)
    series = EventSeries(
        name=name,
        description=description,
        auto_publish=auto_publish,
        generation_window_weeks=window,
        is_active=is_active,
    )
    validate_no_nul_characters({"name": name, "description": description})
    series.full_clean(exclude=["recurrence_rule", "slug"])
    template = _build_template(template_data, dtstart=rule.dtstart)
    with transaction.atomic():
        rule.save()
        series.recurrence_rule = rule
        series.save()
        template.series = series
        template.save()
        if setup_template is not None:
            setup_template(template)
        if generate and is_active:
            generate_series_events(series, now=moment)
        else:
            locked = lock_series(series.pk)
            locked.recurrence_rule = rule
            refresh_next_due_at(locked, now=moment)
            locked.save(update_fields=["next_due_at", "updated_at"])
            _sync(series, locked, "next_due_at")
    return series


def _build_template(data: Mapping[str, Any], *, dtstart: dt.datetime) -> Any:
    model = get_event_model()
    errors: dict[str, list[str]] = {}
    for key in data:
        try:
            field = model._meta.get_field(key)
        except FieldDoesNotExist:
            errors.setdefault(key, []).append(f"'{key}' is not a field of {model.__name__}.")
            continue
        if (
            key in OCCURRENCE_STATE_FIELDS
            or key == model.RECURRING_STATUS_FIELD
            or getattr(field, "primary_key", False)
        ):
            errors.setdefault(key, []).append(
                f"'{key}' of the template is managed by revel-recurring; leave it out."
            )
    if errors:
        raise ValidationError(errors)
    validate_no_nul_characters(data)
    template = model(**utc_instants(data))
    if model.RECURRING_START_FIELD not in data:
        setattr(template, model.RECURRING_START_FIELD, rules.to_utc(dtstart))
    _check_end_after_start(template)
    setattr(template, model.RECURRING_STATUS_FIELD, model.RECURRING_STATUS_DRAFT)
    template.is_template = True
    template.full_clean(exclude=["series"])
    return template


def _check_end_after_start(template: Any) -> None:
    # Every occurrence keeps the template's duration; a negative one would be
    # copied onto all of them, whatever the host's own clean() allows.
    end_field: str | None = template.RECURRING_END_FIELD
    if not end_field:
        return
    end = getattr(template, end_field)
    start = getattr(template, template.RECURRING_START_FIELD)
    if isinstance(end, dt.datetime) and isinstance(start, dt.datetime) and end < start:
        raise ValidationError(
            {
                end_field: (
                    f"The end ({end.isoformat()}) is before the start ({start.isoformat()}); "
                    "every occurrence would end before it begins."
                )
            }
        )


def _normalized(name: str, value: Any) -> Any:
    """A comparable form: datetimes as UTC instants, weekdays as a sorted list."""
    if isinstance(value, dt.datetime) and value.utcoffset() is not None:
        return rules.to_utc(value)
    if name == "weekdays":
        try:
            return sorted(value or [])
        except TypeError:
            return value
    if name == "monthly_type":
        return value or ""
    return value


def update_series_recurrence(
    series: EventSeries,
    *,
    rule_changes: Mapping[str, Any] | None = None,
    auto_publish: bool | None = None,
    generation_window_weeks: int | None = None,
    now: dt.datetime | None = None,
) -> EventSeries:
    """Apply a partial change to a series' rule, window and auto-publish flag.

    ``rule_changes`` maps rule field names to new values; ``None`` options are left
    as they are. Changing ``frequency`` clears the optional fields the new
    frequency does not read (unless ``rule_changes`` sets them, which then fails
    validation). The merged rule is validated with the shared validators;
    ``ValidationError`` is keyed by field and nothing is written.

    The cursor ``last_generated_until`` is reset exactly when a value that shifts
    the schedule really changes (compared as UTC instants and sorted weekdays):
    the window size or any rule field. Then the next generation run walks the new
    rule from its start (never materializing the past). Occurrences already
    materialized are not moved; :func:`~revel_recurring.services.drift.detect_cadence_drift`
    finds those that no longer fit. Returns the series' fresh state; the passed
    instance is updated as well. Sends ``series_recurrence_changed`` after commit
    when anything changed.
    """
    moment = _now(now)
    changes = dict(rule_changes or {})
    _check_rule_keys(changes)
    if auto_publish is not None and not isinstance(auto_publish, bool):
        raise ValidationError({"auto_publish": f"Give True or False, got {auto_publish!r}."})
    if generation_window_weeks is not None:
        _check_window(generation_window_weeks)
    with transaction.atomic():
        locked = lock_series(series.pk)
        changed: set[str] = set()
        rule: RecurrenceRule | None = None
        if changes:
            if locked.recurrence_rule_id is None:
                raise SeriesNotReadyError(
                    f"Series {locked.pk} has no recurrence rule to change; create one first."
                )
            rule = RecurrenceRule.objects.get(pk=locked.recurrence_rule_id)
            old = rule.field_values()
            merged = {**old, **changes}
            new_frequency = merged["frequency"]
            known = any(f == new_frequency for f in rules.Frequency)
            if known and new_frequency != old["frequency"]:
                used = FIELDS_USED_BY[rules.Frequency(new_frequency)]
                for name in OPTIONAL_RULE_FIELDS:
                    if name not in used and name not in changes:
                        merged[name] = _UNSET[name]
            validate_rule(merged)
            changed = {
                name
                for name in RULE_FIELDS
                if _normalized(name, merged[name]) != _normalized(name, old[name])
            }
            if "dtstart" in changed:
                validate_dtstart_zone(merged["dtstart"], merged["timezone"])
            if changed:
                for name in changed:
                    setattr(rule, name, merged[name])
                rule.save()
            locked.recurrence_rule = rule
        update_fields: set[str] = set()
        if auto_publish is not None and auto_publish != locked.auto_publish:
            locked.auto_publish = auto_publish
            changed.add("auto_publish")
            update_fields.add("auto_publish")
        if (
            generation_window_weeks is not None
            and generation_window_weeks != locked.generation_window_weeks
        ):
            locked.generation_window_weeks = generation_window_weeks
            changed.add("generation_window_weeks")
            update_fields.add("generation_window_weeks")
        cursor_reset = bool(changed - {"auto_publish"}) and locked.last_generated_until is not None
        if changed - {"auto_publish"}:
            locked.last_generated_until = None
            refresh_next_due_at(locked, now=moment)
            update_fields |= {"last_generated_until", "next_due_at"}
        if update_fields:
            locked.save(update_fields=[*update_fields, "updated_at"])
        if changed:
            send_after_commit(
                series_recurrence_changed,
                series=locked,
                changed_fields=frozenset(changed),
                cursor_reset=cursor_reset,
            )
    _sync(
        series,
        locked,
        "auto_publish",
        "generation_window_weeks",
        "last_generated_until",
        "next_due_at",
        "updated_at",
    )
    if rule is not None:
        series.recurrence_rule = rule
    return locked


def pause_series(series: EventSeries, *, now: dt.datetime | None = None) -> bool:
    """Stop generating occurrences for ``series``; returns False if it was already paused.

    Only ``is_active`` changes: the cursor, exdates and every materialized
    occurrence stay as they are. Sends ``series_paused`` after commit.
    """
    return _set_active(series, active=False, now=_now(now))


def resume_series(series: EventSeries, *, now: dt.datetime | None = None) -> bool:
    """Generate occurrences for ``series`` again; returns False if it was already active.

    The cursor is kept. Generation never materializes slots that start before
    ``now``, so the dates missed while paused are not created after the fact.
    ``next_due_at`` is recomputed so the beat picks the series up when due.
    Sends ``series_resumed`` after commit.
    """
    return _set_active(series, active=True, now=_now(now))


def _set_active(series: EventSeries, *, active: bool, now: dt.datetime) -> bool:
    with transaction.atomic():
        locked = lock_series(series.pk)
        if locked.is_active == active:
            _sync(series, locked, "is_active")
            return False
        locked.is_active = active
        fields = ["is_active", "updated_at"]
        if active:
            refresh_next_due_at(locked, now=now)
            fields.append("next_due_at")
        locked.save(update_fields=fields)
        send_after_commit(series_resumed if active else series_paused, series=locked)
    _sync(series, locked, "is_active", "next_due_at", "updated_at")
    return True


def delete_series(series: EventSeries) -> int:
    """Delete a series with its template, its occurrences and its rule, in one transaction.

    Refuses with :class:`~revel_recurring.exceptions.SeriesHasBookingsError` while any
    occurrence's ``has_bookings()`` hook says True: paid data is never deleted as a
    side effect (the foreign keys are PROTECT for the same reason). Occurrences
    deleted here record no exdates. Returns the number of host events deleted,
    template included.
    """
    model = get_event_model()

    def attempt() -> int:
        with transaction.atomic():
            locked = lock_series(series.pk)
            events = list(lock_rows(model._default_manager.filter(series=locked).order_by("pk")))
            booked = [event.pk for event in events if event.has_bookings()]
            if booked:
                ids = ", ".join(map(str, sorted(booked)))
                raise SeriesHasBookingsError(
                    f"Series '{locked.name}' cannot be deleted: occurrences {ids} have "
                    "bookings. Cancel or refund those bookings first, or pause the series "
                    "instead."
                )
            with deleting_series(locked.pk):
                model._default_manager.filter(series=locked).delete()
            rule_id = locked.recurrence_rule_id
            locked.delete()
            if rule_id is not None:
                RecurrenceRule.objects.filter(pk=rule_id).delete()
        return len(events)

    return retry_on_lock_conflict(attempt, series_ids=[series.pk])


__all__ = [
    "create_recurring_series",
    "delete_series",
    "pause_series",
    "resume_series",
    "send_after_commit",
    "update_series_recurrence",
]
