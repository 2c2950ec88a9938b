"""Starting a series from an existing one-off event (what the admin's add page does)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from .. import rules
from ..exclusions import FOLDED, excluded_between
from ..mixins import OCCURRENCE_STATE_FIELDS, RecurringEventMixin
from ..models import EventSeries, get_event_model
from .generation import generate_series_events
from .lifecycle import create_recurring_series
from .toolbox.locking import lock_series
from .toolbox.operation import dates_operation
from .toolbox.plumbing import now_utc


def template_data_from_event(event: Any, *, start: dt.datetime) -> dict[str, Any]:
    """The host fields of a draft template copied from ``event``, starting at ``start``.

    Built by the host's own ``prepare_template_copy`` hook (by default its
    ``prepare_occurrence``), so fields the host fills specially (unique slugs,
    shifted deadlines) come out as the host wants them for a template.
    revel-recurring's own fields, the status and fields not editable in forms
    (timestamps) are left out; so is the primary key, unless the copy holds one
    (a text key the hook set, or a UUID default): it is kept for the new template.
    """
    model = type(event)
    copy = event.prepare_template_copy(start=start)
    skipped = {*OCCURRENCE_STATE_FIELDS, model.RECURRING_STATUS_FIELD}
    data = {
        field.attname: getattr(copy, field.attname)
        for field in model._meta.concrete_fields
        if not field.primary_key and field.editable and field.name not in skipped
    }
    key = model._meta.pk
    if copy.pk not in (None, ""):
        data[key.attname] = copy.pk
    return data


@dataclass(frozen=True)
class SeriesFromEvent:
    """What :func:`create_series_from_event` did.

    ``adopted`` is the source event when it became the series' first occurrence
    (its start is a slot of the rule), else None; ``created`` the occurrences
    generated besides it.
    """

    series: EventSeries
    created: list[RecurringEventMixin]
    adopted: RecurringEventMixin | None


def create_series_from_event(
    event: Any,
    *,
    rule_data: Mapping[str, Any],
    name: str,
    description: str = "",
    auto_publish: bool = False,
    generation_window_weeks: int | None = None,
    is_active: bool = True,
    holidays: Mapping[str, Any] | None = None,
    now: dt.datetime | None = None,
) -> SeriesFromEvent:
    """Create a series whose template is a draft copy of the one-off ``event``.

    The template starts at the rule's ``dtstart`` and keeps the event's duration;
    the host's ``clone_related`` copies the event's related rows onto it before the
    first window is generated, so the occurrences get them too. Everything commits
    in one transaction (see ``create_recurring_series`` for the validation).

    When the event starts on a slot of the new rule (and is not cancelled), it is
    *adopted* as that slot's occurrence instead of being doubled by a generated
    copy: it joins the series with that slot as its ``recurrence_id`` and keeps
    its id, status, bookings and related rows. Any other event is left as it is
    (docs/decisions/0007-admin-add-from-event.md). ``holidays`` names a holiday
    calendar and policy, as for ``create_recurring_series``; an event on a date a
    holiday skips or moves is not adopted.
    """
    moment = now_utc(now)
    model = get_event_model()
    with transaction.atomic(), dates_operation("create", (), now=moment):
        series = create_recurring_series(
            rule_data=rule_data,
            template_data=template_data_from_event(event, start=rule_data["dtstart"]),
            name=name,
            description=description,
            auto_publish=auto_publish,
            generation_window_weeks=generation_window_weeks,
            is_active=is_active,
            generate=False,
            holidays=holidays,
            now=moment,
        )
        template = model._default_manager.get(series=series, is_template=True)
        model.clone_related(event, [template])
        adopted = _adopt(series, event)
        created = generate_series_events(series, now=moment) if is_active else []
    return SeriesFromEvent(series=series, created=created, adopted=adopted)


def _adopt(series: EventSeries, event: RecurringEventMixin) -> RecurringEventMixin | None:
    """Make ``event`` the occurrence of its own slot in ``series``; it, or None.

    Under the new series' lock, before the first generation, so that run finds the
    slot materialized (by ``recurrence_id``) and skips it. The UPDATE names only
    the series columns and requires the event to be in no series yet: when two
    organisers start series from the same event at once, one adopts it and the
    other generates its own first occurrence.
    """
    model = type(event)
    start = event.occurrence_start
    if start is None or event.is_cancelled:
        return None
    locked = lock_series(series.pk, with_rule=True)
    rule = locked.recurrence_rule
    slot = rules.to_utc(start)
    if rule is None or not rules.is_occurrence(rule.to_spec(), slot):
        return None
    # The series was created in this transaction: it has no pending exdates yet.
    excluded = excluded_between(locked, slot, slot, pending=FOLDED, rule=rule)
    if slot in excluded:
        return None
    fate = excluded.holiday_of(slot)
    if fate is not None and fate.start != slot:
        # A holiday moves that date: its occurrence is generated on the day it moves to.
        return None
    index = locked.last_occurrence_index + 1
    # QuerySet.update(): no save() signals, so is_modified stays False and the
    # host's own save() side effects (notifications, stamps) do not fire for
    # what is, to attendees, the same event as before.
    stamp = {model.RECURRING_UPDATED_FIELD: timezone.now()} if model.RECURRING_UPDATED_FIELD else {}
    # The change stamp moves, so a client syncing the series with modified_since
    # learns of the occurrence it gained.
    taken = model._default_manager.filter(pk=event.pk, series__isnull=True).update(
        series=locked, recurrence_id=slot, occurrence_index=index, is_modified=False, **stamp
    )
    if not taken:
        return None
    EventSeries.objects.filter(pk=locked.pk).update(last_occurrence_index=index)
    series.last_occurrence_index = index
    return model._default_manager.get(pk=event.pk)


__all__ = ["SeriesFromEvent", "create_series_from_event", "template_data_from_event"]
