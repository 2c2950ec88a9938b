"""Editing a series' template and pushing the edit onto its future occurrences."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Literal

from django.core.exceptions import NON_FIELD_ERRORS, FieldDoesNotExist, ValidationError
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext

from ..context import suppress_event_notifications, suspend_modification_tracking
from ..exceptions import InvalidPropagationError, SeriesNotReadyError
from ..host_model import bulky_fields, is_managed_field, single_line_fields
from ..instants import describe_instant
from ..models import EventSeries, get_event_model
from ..querysets import upcoming_occurrences
from ..signals import template_propagated
from ..validators import validate_no_nul_characters, validate_single_line_values
from .toolbox.bookings import series_zone
from .toolbox.locking import lock_rows, lock_series, retry_on_lock_conflict
from .toolbox.operation import current_operation, series_operation
from .toolbox.parking import unpark_series
from .toolbox.plumbing import now_utc, send_after_commit, utc_instants
from .toolbox.row_validation import first_invalid_row

PropagationScope = Literal["none", "future_unmodified", "all_future"]
PROPAGATION_SCOPES: tuple[str, ...] = ("none", "future_unmodified", "all_future")
# Rows per UPDATE of a propagation: SQLite takes 999 parameters in one statement.
UPDATE_BATCH = 500


def _resolve_fields(model: Any, changes: Mapping[str, Any], scope: str) -> list[tuple[str, Any]]:
    """(key, model field) for each key of ``changes``; InvalidPropagationError for bad keys.

    A key is a field name or, for a foreign key, its attname (``venue_id``).
    """
    fields: list[tuple[str, Any]] = []
    unknown: list[str] = []
    managed: list[str] = []
    local_only: list[str] = []
    for key in changes:
        try:
            field = model._meta.get_field(key)
        except FieldDoesNotExist:
            unknown.append(key)
            continue
        if not getattr(field, "concrete", False) or field.many_to_many:
            unknown.append(key)
        elif is_managed_field(model, field):
            managed.append(key)
        elif scope != "none" and field.name not in model.PROPAGATABLE_FIELDS:
            local_only.append(key)
        else:
            fields.append((key, field))
    # message_dict keys each bad name, so a form or serializer shows it in place.
    if unknown:
        raise InvalidPropagationError(
            gettext("%(model)s has no editable field %(names)s.")
            % {"model": model.__name__, "names": ", ".join(map(repr, unknown))},
            errors={
                key: [
                    gettext("%(model)s has no editable field '%(key)s'.")
                    % {"model": model.__name__, "key": key}
                ]
                for key in unknown
            },
        )
    if managed:
        raise InvalidPropagationError(
            gettext(
                "%(names)s of a template is managed by revel-recurring and cannot be changed here."
            )
            % {"names": ", ".join(map(repr, managed))},
            errors={
                key: [gettext("Managed by revel-recurring; it cannot be changed here.")]
                for key in managed
            },
        )
    if local_only:
        allowed = ", ".join(model.PROPAGATABLE_FIELDS) or "none"
        raise InvalidPropagationError(
            gettext(
                "%(names)s cannot be propagated (propagatable: %(allowed)s). Change it on"
                " the template alone with propagate='none'."
            )
            % {"names": ", ".join(map(repr, local_only)), "allowed": allowed},
            errors={
                key: [
                    gettext(
                        "Cannot be propagated (propagatable: %(allowed)s); use propagate='none'."
                    )
                    % {"allowed": allowed}
                ]
                for key in local_only
            },
        )
    return fields


def _propagated_fields(model: Any, changed: list[Any]) -> list[Any]:
    names = {field.name for field in changed}
    # A coupled group (an address and its coordinates) is written whole whenever
    # one member changes, so no occurrence ends up with half of each version.
    for group in model.PROPAGATION_COUPLED_FIELDS:
        if names & set(group):
            names |= set(group)
    return [model._meta.get_field(name) for name in sorted(names)]


def reapply_template(event: Any, template: Any) -> list[str]:
    """Copy the template's propagatable fields (and their coupled groups) onto ``event``.

    In memory; returns the attnames that changed (nothing to save when empty).
    For an occurrence that missed propagations while it was cancelled: they skip
    cancelled rows, so its restore brings it up to date (cancellation.py).
    """
    model = type(template)
    written = _propagated_fields(
        model, [model._meta.get_field(name) for name in model.PROPAGATABLE_FIELDS]
    )
    changed = []
    for field in written:
        value = getattr(template, field.attname)
        if getattr(event, field.attname) != value:
            setattr(event, field.attname, value)
            changed.append(field.attname)
    return changed


def _unread_fields(model: Any, written: list[Any]) -> list[str]:
    """The bulky fields (``host_model.bulky_fields``) a propagation of ``written`` leaves alone."""
    names = {field.name for field in written}
    return [name for name in bulky_fields(model) if name not in names]


def _stamp_fields(model: Any) -> list[Any]:
    """The host's change stamps: ``RECURRING_UPDATED_FIELD`` and every ``auto_now`` field."""
    named = model.RECURRING_UPDATED_FIELD
    stamps = [model._meta.get_field(named)] if named else []
    stamps += [
        field
        for field in model._meta.concrete_fields
        if getattr(field, "auto_now", False) and field not in stamps
    ]
    return stamps


def _saved_fields(model: Any, written: list[Any]) -> list[str]:
    """What a propagated occurrence's save writes: ``written`` and the host's change stamps.

    With ``update_fields`` Django writes only what is named, and a propagated
    edit is a change feeds and caches must see. ``is_modified`` is not among them:
    propagation runs with tracking suspended, so the receivers neither read the
    stored row nor set the flag (receivers.py).
    """
    names = [field.name for field in written]
    names += [field.name for field in _stamp_fields(model) if field.name not in names]
    return names


def _stamp_values(model: Any, event: Any) -> dict[str, Any]:
    """One moment for every change stamp of a propagation, as each field's save would write it."""
    values = {}
    for field in _stamp_fields(model):
        if getattr(field, "auto_now", False):
            values[field.attname] = field.pre_save(event, add=False)
        elif isinstance(field, models.DateTimeField):
            values[field.attname] = timezone.now()
        else:
            values[field.attname] = timezone.localdate()
    return values


def _write_occurrences(
    model: Any, events: list[Any], values: dict[str, Any], written: list[Any]
) -> None:
    """Store the propagated ``values`` (attname -> value) and a new change stamp on ``events``.

    One UPDATE per :data:`UPDATE_BATCH` rows: every row takes the same values. A
    host with ``RECURRING_PROPAGATE_WITH_SAVE`` gets one ``save(update_fields=...)``
    per row instead, so its ``save()`` and save signals run.
    """
    if not events:
        return
    stamps = _stamp_values(model, events[0])
    for event in events:
        for attname, value in stamps.items():
            setattr(event, attname, value)
    if model.RECURRING_PROPAGATE_WITH_SAVE:
        saved = _saved_fields(model, written)
        for event in events:
            event.save(update_fields=saved)
        return
    manager = model._base_manager.using(events[0]._state.db)
    pks = [event.pk for event in events]
    for start in range(0, len(pks), UPDATE_BATCH):
        manager.filter(pk__in=pks[start : start + UPDATE_BATCH]).update(**{**values, **stamps})


def occurrence_error(event: Any, exc: ValidationError) -> ValidationError:
    """``exc`` of one occurrence's full_clean, each message prefixed with which one."""
    when = describe_instant(event.occurrence_start, series_zone(event.series))
    where = f"occurrence {event.pk} on {when}"
    messages = exc.message_dict if hasattr(exc, "error_dict") else {NON_FIELD_ERRORS: exc.messages}
    return ValidationError(
        {key: [f"{where}: {message}" for message in values] for key, values in messages.items()}
    )


def update_template(
    series: EventSeries,
    changes: Mapping[str, Any],
    *,
    propagate: PropagationScope | str = "none",
    now: dt.datetime | None = None,
) -> int:
    """Change the template of ``series`` and optionally its future occurrences.

    ``changes`` maps host field names to values. With ``propagate="none"`` any
    editable field of the template may change (not the pk, the status, or the
    mixin's per-occurrence fields). With ``"future_unmodified"`` or ``"all_future"``
    every name must be in the host's ``PROPAGATABLE_FIELDS``; those values, plus
    the rest of any ``PROPAGATION_COUPLED_FIELDS`` group they touch, are written
    onto occurrences starting at or after ``now`` that are not cancelled (and, for
    ``"future_unmodified"``, not ``is_modified``). Past and cancelled occurrences
    are never touched. Bad scope or field names raise
    :class:`~revel_recurring.exceptions.InvalidPropagationError`.

    The cost does not grow with the occurrences: the rows are read in one query,
    validated as the host's ``full_clean()`` would validate them in a bounded
    number of queries (``services.row_validation``: ``clean_fields()`` and
    ``clean()`` per row in Python, foreign keys and unique groups once for the
    set) and written with one UPDATE per 500 rows, every row taking the
    template's values and one new change stamp (``RECURRING_UPDATED_FIELD``,
    ``auto_now`` fields). That UPDATE calls no ``save()`` and sends no
    ``pre_save``/``post_save``; a host whose ``save()`` or save receivers must run
    for each row sets ``RECURRING_PROPAGATE_WITH_SAVE = True`` and gets one
    ``save(update_fields=...)`` per row (the propagated fields and the stamps), with
    per-event notifications suppressed. Long texts that do not propagate
    (``host_model.bulky_fields``) are neither loaded nor validated nor resent (a
    host ``clean()`` or ``save()`` that reads one gets it at the cost of a query
    per row). Propagation never marks occurrences modified. The template and
    every occurrence commit together: one invalid occurrence raises its
    ``ValidationError`` (naming it) and nothing is saved. Returns the number of
    occurrences changed (rows already holding the values are skipped). Sends
    ``template_propagated`` (once, with the changed rows' ids) after commit
    when a propagation scope was given. A parked series is unparked, so the next
    daily pass tries it again with the new template.
    """
    _check_scope(propagate)
    moment = now_utc(now)
    model = get_event_model()
    fields = _resolve_fields(model, changes, propagate)
    validate_single_line_values(changes, single_line_fields(model))
    validate_no_nul_characters(changes)
    changes = utc_instants(changes)

    def attempt() -> int:
        with (
            transaction.atomic(),
            suppress_event_notifications(),
            suspend_modification_tracking(),
            series_operation("template", series, now=moment),
        ):
            # The series lock orders this against generation: a batch materialized
            # before it is propagated to below, one materialized after it copies the
            # updated template. Either way no occurrence keeps the old values.
            locked = lock_series(series.pk)
            template = _save_template(locked, model, fields, changes)
            if propagate == "none":
                return 0
            written = _propagated_fields(model, [field for _, field in fields])
            return _propagate(locked, model, template, written, propagate, now=moment)

    return retry_on_lock_conflict(attempt, series_ids=[series.pk])


def _check_scope(propagate: str) -> None:
    if propagate not in PROPAGATION_SCOPES:
        raise InvalidPropagationError(
            gettext("Unknown propagation scope %(propagate)s; use one of %(names)s.")
            % {"propagate": repr(propagate), "names": ", ".join(PROPAGATION_SCOPES)},
            field="propagate",
        )


def _save_template(
    locked: EventSeries, model: Any, fields: list[tuple[str, Any]], changes: Mapping[str, Any]
) -> Any:
    """Lock the locked series' template row, set ``changes``, validate and save it; a
    parked series is unparked."""
    template = lock_rows(
        model._default_manager.filter(series=locked, is_template=True).order_by("pk")
    ).first()
    if template is None:
        raise SeriesNotReadyError(
            gettext("Series '%(series)s' has no template to update.") % {"series": locked.name}
        )
    for key, _ in fields:
        setattr(template, key, changes[key])
    template.full_clean()
    template.save()
    if locked.parked_at is not None:
        # The template is what most parkings are about (a text too long for
        # the window, a value the host's hook refuses): let the pass try again.
        unpark_series(locked.pk)
    return template


def _propagate(
    locked: EventSeries,
    model: Any,
    template: Any,
    written: list[Any],
    propagate: str,
    *,
    now: dt.datetime,
) -> int:
    """Copy the template's ``written`` fields onto the upcoming occurrences the scope
    reaches, validated as a set, then written; how many changed."""
    # A long text copied onto every occurrence is neither read nor resent
    # unless it is what propagates: a 1 MB description would otherwise be
    # loaded and written back once per upcoming row.
    unread = _unread_fields(model, written)
    targets = lock_rows(
        upcoming_occurrences(model._default_manager.filter(series=locked), now=now)
        .filter(**({"is_modified": False} if propagate == "future_unmodified" else {}))
        .defer(*unread)
        .order_by("pk")
    )
    values = {field.attname: getattr(template, field.attname) for field in written}
    changed = [
        event
        for event in sorted(targets, key=lambda e: (e.occurrence_start, e.pk))
        if any(getattr(event, attname) != value for attname, value in values.items())
    ]
    for event in changed:
        for attname, value in values.items():
            setattr(event, attname, value)
    # The unread fields did not change: validating them would load each
    # one, a query per row.
    invalid = first_invalid_row(changed, copied=[field.name for field in written], exclude=unread)
    if invalid is not None:
        event, exc = invalid
        raise occurrence_error(event, exc) from exc
    _write_occurrences(model, changed, values, written)
    operation = current_operation()
    if operation is not None:
        operation.mark_edited(event.pk for event in changed)
    send_after_commit(
        template_propagated,
        series=locked,
        fields=[field.name for field in written],
        scope=propagate,
        updated=len(changed),
        occurrence_ids=[event.pk for event in changed],
    )
    return len(changed)


__all__ = ["PROPAGATION_SCOPES", "PropagationScope", "reapply_template", "update_template"]
