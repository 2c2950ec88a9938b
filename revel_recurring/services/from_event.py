"""Starting a series from an existing one-off event (what the admin's add page does)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from ..mixins import OCCURRENCE_STATE_FIELDS
from ..models import EventSeries, get_event_model
from .generation import generate_series_events
from .lifecycle import create_recurring_series
from .plumbing import now_utc


def template_data_from_event(event: Any, *, start: dt.datetime) -> dict[str, Any]:
    """The host fields of a draft template copied from ``event``, starting at ``start``.

    Built by the host's own ``prepare_occurrence`` hook, so fields the host fills
    specially (unique slugs, shifted deadlines) come out as they do for an
    occurrence. Primary key, revel-recurring's own fields, the status and fields
    not editable in forms (timestamps) are left out.
    """
    model = type(event)
    copy = event.prepare_occurrence(
        start=start, occurrence_index=0, status=model.RECURRING_STATUS_DRAFT
    )
    skipped = {*OCCURRENCE_STATE_FIELDS, model.RECURRING_STATUS_FIELD}
    return {
        field.attname: getattr(copy, field.attname)
        for field in model._meta.concrete_fields
        if not field.primary_key and field.editable and field.name not in skipped
    }


def create_series_from_event(
    event: Any,
    *,
    rule_data: Mapping[str, Any],
    name: str,
    description: str = "",
    auto_publish: bool = False,
    generation_window_weeks: int | None = None,
    is_active: bool = True,
    now: dt.datetime | None = None,
) -> tuple[EventSeries, list[Any]]:
    """Create a series whose template is a draft copy of the one-off ``event``.

    The template starts at the rule's ``dtstart`` and keeps the event's duration;
    the host's ``clone_related`` copies the event's related rows onto it before the
    first window is generated, so the occurrences get them too. Everything commits
    in one transaction (see ``create_recurring_series`` for the validation). Returns
    the series and the occurrences generated.
    """
    moment = now_utc(now)
    model = get_event_model()
    with transaction.atomic():
        series = create_recurring_series(
            rule_data=rule_data,
            template_data=template_data_from_event(event, start=rule_data["dtstart"]),
            name=name,
            description=description,
            auto_publish=auto_publish,
            generation_window_weeks=generation_window_weeks,
            is_active=is_active,
            generate=False,
            now=moment,
        )
        template = model._default_manager.get(series=series, is_template=True)
        model.clone_related(event, [template])
        created = generate_series_events(series, now=moment) if is_active else []
    return series, created


__all__ = ["create_series_from_event", "template_data_from_event"]
