"""A series' template and its related rows: replace it, copy its rows onto occurrences.

The template is an ordinary row of the host's Event table, but deleting it alone
is refused (``receivers.refuse_template_delete``): a series without one generates
nothing. These services change it under the series lock instead.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from .. import rules
from ..context import replacing_template
from ..exceptions import SeriesNotReadyError
from ..host_model import is_managed_field, single_line_fields
from ..mixins import RecurringEventMixin
from ..models import EventSeries, get_event_model
from ..querysets import upcoming_occurrences
from ..validators import validate_no_nul_characters, validate_single_line_values
from .toolbox.exdates import absorb_pending_exdates
from .toolbox.locking import lock_series
from .toolbox.plumbing import load_rule, mirror_columns, now_utc, utc_instants
from .toolbox.scheduling import refresh_next_due_at

#: Called with the saved template, in the same transaction, before anything copies
#: from it: the place to create its related rows (seat blocks, ticket tiers).
TemplateSetup = Callable[[Any], None]


def build_template(data: Mapping[str, Any], *, dtstart: dt.datetime) -> RecurringEventMixin:
    """An unsaved, validated draft template of the host model from ``template_data``.

    Keys must be fields of the host model that revel-recurring does not manage
    (``host_model.is_managed_field``), except the primary key: a key given (a
    split's continuation carries the one its ``prepare_template_copy`` set) is
    kept. Datetimes are stored as UTC; the start defaults to the rule's
    ``dtstart``; an end before the start is refused. The host's
    ``prepare_template`` hook then fills what the data leaves out (a text key
    without a default) before ``full_clean()`` validates the template.
    ``ValidationError`` keyed by field; nothing is written.
    """
    model = get_event_model()
    errors: dict[str, list[str]] = {}
    for key in data:
        try:
            field = model._meta.get_field(key)
        except FieldDoesNotExist:
            errors.setdefault(key, []).append(
                gettext("'%(key)s' is not a field of %(model)s.")
                % {"key": key, "model": model.__name__}
            )
            continue
        if is_managed_field(model, field) and not getattr(field, "primary_key", False):
            errors.setdefault(key, []).append(
                gettext("'%(key)s' of the template is managed by revel-recurring; leave it out.")
                % {"key": key}
            )
    if errors:
        raise ValidationError(errors)
    validate_single_line_values(data, single_line_fields(model))
    validate_no_nul_characters(data)
    template = model(**utc_instants(data))
    if model.RECURRING_START_FIELD not in data:
        setattr(template, model.RECURRING_START_FIELD, rules.to_utc(dtstart))
    _check_end_after_start(template)
    setattr(template, model.RECURRING_STATUS_FIELD, model.RECURRING_STATUS_DRAFT)
    template.is_template = True
    template.prepare_template()
    template.full_clean(exclude=["series"])
    return template


def _check_duration_not_negative(template: Any) -> None:
    field: str | None = template.RECURRING_DURATION_FIELD
    if not field:
        return
    value = getattr(template, field)
    if isinstance(value, dt.timedelta) and value < dt.timedelta(0):
        raise ValidationError(
            {
                field: gettext(
                    "The duration (%(duration)s) is negative; every occurrence would end "
                    "before it begins."
                )
                % {"duration": value}
            }
        )


def save_template(series: EventSeries, template: RecurringEventMixin) -> None:
    """Save ``template`` as the one template of ``series``; the caller holds the series lock.

    "One template per series" is a conditional unique constraint of the mixin's
    ``Meta``, which MariaDB and MySQL do not create (Django's ``models.W036``). The
    series lock is the guard on every backend: each service that gives a series a
    template takes the lock (a series created in the same transaction is locked by
    its own insert: no other transaction sees it before the commit), and saves it
    here, where another template of the series is refused with the IntegrityError
    PostgreSQL's constraint raises. Raises nothing else; ``template`` is saved.
    """
    model = type(template)
    others = model._default_manager.filter(series=series, is_template=True)
    if template.pk is not None:
        others = others.exclude(pk=template.pk)
    if others.exists():
        raise IntegrityError(
            f"Series {series.pk} has a template already (one template per series); "
            "replace it with revel_recurring.services.templates.replace_template."
        )
    template.series = series
    template.save()


def _check_end_after_start(template: Any) -> None:
    # Every occurrence keeps the template's duration; a negative one would be
    # copied onto all of them, whatever the host's own clean() allows.
    _check_duration_not_negative(template)
    end_field: str | None = template.RECURRING_END_FIELD
    if not end_field:
        return
    end = getattr(template, end_field)
    start = getattr(template, template.RECURRING_START_FIELD)
    if isinstance(end, dt.datetime) and isinstance(start, dt.datetime) and end < start:
        raise ValidationError(
            {
                end_field: (
                    gettext(
                        "The end (%(end)s) is before the start (%(start)s); every "
                        "occurrence would end before it begins."
                    )
                    % {"end": end.isoformat(), "start": start.isoformat()}
                )
            }
        )


def replace_template(
    series: EventSeries,
    template_data: Mapping[str, Any],
    *,
    setup_template: TemplateSetup | None = None,
    now: dt.datetime | None = None,
) -> RecurringEventMixin:
    """Give ``series`` a new template built from ``template_data``; returns it.

    ``template_data`` is validated like ``create_recurring_series``'s (host fields
    only, end not before start; ``ValidationError`` keyed by field) before anything
    is written. Under the series lock the old template, if any, is deleted (its
    related rows go with it by the host's own cascades), the new one is saved,
    ``setup_template`` runs on it, and a disarmed series becomes due again.
    Occurrences already materialized keep their values; push template fields
    onto them with ``update_template(..., propagate=...)`` and related rows with
    :func:`copy_template_related`.
    """
    moment = now_utc(now)
    model = get_event_model()
    with transaction.atomic():
        locked = lock_series(series.pk)
        if locked.recurrence_rule_id is None:
            raise SeriesNotReadyError(
                gettext("Series '%(series)s' has no recurrence rule.") % {"series": locked.name}
            )
        rule = load_rule(locked)
        assert rule is not None
        template = build_template(template_data, dtstart=rule.dtstart)
        with replacing_template(locked.pk):
            model._default_manager.filter(series=locked, is_template=True).delete()
        save_template(locked, template)
        if setup_template is not None:
            setup_template(template)
        if locked.is_active and locked.next_due_at is None:
            absorb_pending_exdates(locked)
            refresh_next_due_at(locked, now=moment)
            locked.save(update_fields=["next_due_at", "updated_at"])
    mirror_columns(series, locked, "next_due_at")
    return template


def copy_template_related(series: EventSeries, *, now: dt.datetime | None = None) -> int:
    """Run the host's ``clone_related`` for the future occurrences that exist already.

    For related rows added to the template after its first window was generated
    (``create_recurring_series`` without ``setup_template``, or a new ticket tier):
    the occurrences starting at or after ``now`` that are neither modified nor
    cancelled are passed to ``clone_related(template, occurrences)`` in one batch,
    under the series lock. ``clone_related`` then receives occurrences that may
    hold rows already; make it skip or ignore what exists (a unique constraint and
    ``bulk_create(ignore_conflicts=True)``, say). Returns the number of occurrences
    passed.
    """
    moment = now_utc(now)
    model = get_event_model()
    with transaction.atomic():
        locked = lock_series(series.pk)
        template = model._default_manager.filter(series=locked, is_template=True).first()
        if template is None:
            raise SeriesNotReadyError(
                gettext("Series '%(series)s' has no template to copy from.")
                % {"series": locked.name}
            )
        occurrences = list(
            upcoming_occurrences(
                model._default_manager.filter(series=locked, is_modified=False), now=moment
            ).order_by(model.RECURRING_START_FIELD, "pk")
        )
        if occurrences:
            model.clone_related(template, occurrences)
    return len(occurrences)


__all__ = [
    "TemplateSetup",
    "build_template",
    "copy_template_related",
    "replace_template",
    "save_template",
]
