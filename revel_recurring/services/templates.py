"""A series' template and its related rows: replace it, copy its rows onto occurrences.

The template is an ordinary row of the host's Event table, but deleting it alone
is refused (``receivers.refuse_template_delete``): a series without one generates
nothing. These services change it under the series lock instead.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from django.db import transaction

from ..exceptions import SeriesNotReadyError
from ..models import EventSeries, RecurrenceRule, get_event_model
from ..receivers import replacing_template
from .lifecycle import _build_template, _now, _sync
from .locking import lock_series
from .scheduling import refresh_next_due_at

#: Called with the saved template, in the same transaction, before anything copies
#: from it: the place to create its related rows (seat blocks, ticket tiers).
TemplateSetup = Callable[[Any], None]


def replace_template(
    series: EventSeries,
    template_data: Mapping[str, Any],
    *,
    setup_template: TemplateSetup | None = None,
    now: dt.datetime | None = None,
) -> Any:
    """Give ``series`` a new template built from ``template_data``; returns it.

    ``template_data`` is validated like ``create_recurring_series``'s (host fields
    only, end not before start; ``ValidationError`` keyed by field) before anything
    is written. Under the series lock the old template, if any, is deleted (its
    related rows go with it by the host's own cascades), the new one is saved,
    ``setup_template`` runs on it, and a parked series becomes due again.
    Occurrences already materialized keep their values; push template fields
    onto them with ``update_template(..., propagate=...)`` and related rows with
    :func:`copy_template_related`.
    """
    moment = _now(now)
    model = get_event_model()
    with transaction.atomic():
        locked = lock_series(series.pk)
        if locked.recurrence_rule_id is None:
            raise SeriesNotReadyError(f"Series '{locked.name}' has no recurrence rule.")
        rule = RecurrenceRule.objects.get(pk=locked.recurrence_rule_id)
        template = _build_template(template_data, dtstart=rule.dtstart)
        with replacing_template(locked.pk):
            model._default_manager.filter(series=locked, is_template=True).delete()
        template.series = locked
        template.save()
        if setup_template is not None:
            setup_template(template)
        if locked.is_active and locked.next_due_at is None:
            locked.recurrence_rule = rule
            refresh_next_due_at(locked, now=moment)
            locked.save(update_fields=["next_due_at", "updated_at"])
    _sync(series, locked, "next_due_at")
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
    moment = _now(now)
    model = get_event_model()
    with transaction.atomic():
        locked = lock_series(series.pk)
        template = model._default_manager.filter(series=locked, is_template=True).first()
        if template is None:
            raise SeriesNotReadyError(f"Series '{locked.name}' has no template to copy from.")
        occurrences = list(
            model._default_manager.filter(
                series=locked,
                is_template=False,
                is_modified=False,
                **{f"{model.RECURRING_START_FIELD}__gte": moment},
            )
            .exclude(**{model.RECURRING_STATUS_FIELD: model.RECURRING_STATUS_CANCELLED})
            .order_by(model.RECURRING_START_FIELD, "pk")
        )
        if occurrences:
            model.clone_related(template, occurrences)
    return len(occurrences)


__all__ = ["TemplateSetup", "copy_template_related", "replace_template"]
