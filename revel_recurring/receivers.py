"""Receivers on the host event model, connected explicitly from ``AppConfig.ready()``.

Two concerns live here:

* a deleted occurrence's slot becomes an exdate, so generation never re-creates it;
* ``is_modified`` tracking: an organiser's real edit of an occurrence's start, end
  or a propagatable field marks it modified, so drift detection and
  ``propagate="future_unmodified"`` leave it alone.

Both can be switched off for the current context (thread / asyncio task) with the
context managers of :mod:`revel_recurring.context`; the services use them, and
hosts may too.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import Model
from django.db.models.signals import post_save, pre_delete, pre_save
from django.utils.translation import gettext

from .conf import recurring_settings
from .context import (
    modification_tracking_suspended,
    series_deletion_in_progress,
    template_replacement_in_progress,
)

# Hosts were told to import it from here (README, docs/lifecycle.md) before the
# flags moved to context.py; the redundant alias marks the re-export.
from .context import suspend_modification_tracking as suspend_modification_tracking
from .exceptions import TemplateProtectedError
from .models import EventSeries, get_event_model
from .services.toolbox.pending_exdates import record_pending_exdates
from .services.toolbox.scheduling import rearm_disarmed_series
from .signals import enrolled_dates_booked, series_dates_changed, webhook_deliveries_due
from .tasks import queue_people_notices, queue_webhook_deliveries

# Attribute set on an instance by pre_save when ``is_modified`` must be written by
# post_save (the save named ``update_fields`` without it; pre_save cannot widen them).
_PENDING_FLAG = "_revel_recurring_mark_modified"


def refuse_template_delete(sender: Any, instance: Any, **kwargs: Any) -> None:
    """Deleting the template of a series on its own is refused.

    A series without its template can generate nothing; it would be disarmed for
    good. ``delete_series`` deletes template and series together, and
    ``replace_template`` swaps the template; both allow it. Raised from
    ``pre_delete``, so nothing of the delete has happened yet (a cascade from
    another row is refused whole).
    """
    if not instance.is_template or instance.series_id is None:
        return
    if series_deletion_in_progress(instance.series_id) or template_replacement_in_progress(
        instance.series_id
    ):
        return
    raise TemplateProtectedError(
        gettext(
            "%(model)s %(id)s is the template of series %(series_id)s and cannot be "
            "deleted on its own: delete the series "
            "(revel_recurring.services.lifecycle.delete_series) or give it a new template"
            " (revel_recurring.services.templates.replace_template)."
        )
        % {"model": type(instance).__name__, "id": instance.pk, "series_id": instance.series_id}
    )


def record_deleted_occurrence(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A deleted occurrence's slot becomes an exdate so generation never re-creates it.

    Connected to ``pre_delete``, so it runs inside the deletion's transaction and
    rolls back with it. It never takes the series lock: the host's transaction
    may already hold occurrence rows (it saved one, or deletes several series'
    occurrences in one statement), and a series lock taken after them would
    deadlock against a service that holds the series and wants those rows. The
    slot is written as a :class:`~revel_recurring.models.PendingExdate` (an
    INSERT that waits for nobody) and folded into ``exdates`` after commit.
    """
    if instance.is_template or instance.series_id is None or instance.recurrence_id is None:
        return
    if series_deletion_in_progress(instance.series_id):
        return
    record_pending_exdates(instance.series_id, [instance.recurrence_id])


def tracked_field_names(model: Any) -> tuple[str, ...]:
    """The fields whose change marks an occurrence modified: start, end or duration,
    propagatable."""
    names = [model.RECURRING_START_FIELD]
    for length in (model.RECURRING_END_FIELD, model.RECURRING_DURATION_FIELD):
        if length:
            names.append(length)
    names.extend(n for n in model.PROPAGATABLE_FIELDS if n not in names)
    return tuple(names)


def _touches_tracked_fields(model: Any, update_fields: frozenset[str]) -> bool:
    # update_fields may hold field names or attnames ("venue_id"); accept both.
    for name in tracked_field_names(model):
        field = model._meta.get_field(name)
        if name in update_fields or field.attname in update_fields:
            return True
    return False


def mark_modified_on_edit(
    sender: Any,
    instance: Any,
    raw: bool = False,
    using: str | None = None,
    update_fields: frozenset[str] | None = None,
    **kwargs: Any,
) -> None:
    """Set ``is_modified`` when an existing occurrence's organiser-editable fields change.

    Every cheap reason to stop is checked before the one query (the stored row):
    templates, one-off events, occurrences already modified, new rows, fixture
    loading, suspended tracking, and saves whose ``update_fields`` name no tracked
    field. ``bulk_create`` and ``QuerySet.update`` send no signals, so
    materialization never gets here.
    """
    if (
        raw
        or instance.is_modified
        or instance.is_template
        or instance.series_id is None
        or instance.pk is None
        or instance._state.adding
        or modification_tracking_suspended()
    ):
        return
    if update_fields is not None and not _touches_tracked_fields(sender, update_fields):
        return
    fields = [sender._meta.get_field(name) for name in tracked_field_names(sender)]
    stored = (
        sender._base_manager.using(using)
        .filter(pk=instance.pk)
        .values(*(f.attname for f in fields))
        .first()
    )
    if stored is None:
        return  # saving with an explicit pk that does not exist yet: an insert
    if update_fields is not None:
        fields = [f for f in fields if f.name in update_fields or f.attname in update_fields]
    # to_python so "2030-01-01T10:00Z" and an aware datetime for the same instant,
    # or "3" and 3, compare equal; aware datetimes compare by instant.
    if all(
        f.to_python(getattr(instance, f.attname)) == f.to_python(stored[f.attname]) for f in fields
    ):
        return
    instance.is_modified = True
    if update_fields is not None and "is_modified" not in update_fields:
        setattr(instance, _PENDING_FLAG, True)


def write_pending_modified_flag(
    sender: Any, instance: Any, using: str | None = None, **kwargs: Any
) -> None:
    """Persist ``is_modified`` for a save whose ``update_fields`` left it out."""
    if not getattr(instance, _PENDING_FLAG, False):
        return
    delattr(instance, _PENDING_FLAG)
    sender._base_manager.using(using).filter(pk=instance.pk).update(is_modified=True)


def rearm_series_for_new_template(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    """A newly created template makes its disarmed series due again.

    Generation disarms a series that has no template (``next_due_at`` cleared) so
    the beat does not pick it up every day for nothing; this undoes that as soon
    as a template exists. Only when a template row is created, and only after the
    host's transaction commits: writing the series row inside it would take the
    series lock after whatever rows the host already holds.
    """
    if not created or not instance.is_template or instance.series_id is None:
        return
    series_id = instance.series_id
    transaction.on_commit(lambda: rearm_disarmed_series(series_id), robust=True)


def connect_receivers() -> None:
    """Connect the receivers to the host Event model; called from ``AppConfig.ready()``."""
    if not recurring_settings.EVENT_MODEL:
        return  # the system check reports it
    try:
        model: type[Model] = get_event_model()
    except ImproperlyConfigured:
        return  # not installed or without the mixin: checks E002 / E003 report it
    pre_delete.connect(
        record_deleted_occurrence,
        sender=model,
        dispatch_uid="revel_recurring.record_deleted_occurrence",
    )
    pre_delete.connect(
        refuse_template_delete,
        sender=model,
        dispatch_uid="revel_recurring.refuse_template_delete",
    )
    pre_save.connect(
        mark_modified_on_edit,
        sender=model,
        dispatch_uid="revel_recurring.mark_modified_on_edit",
    )
    post_save.connect(
        write_pending_modified_flag,
        sender=model,
        dispatch_uid="revel_recurring.write_pending_modified_flag",
    )
    post_save.connect(
        rearm_series_for_new_template,
        sender=model,
        dispatch_uid="revel_recurring.rearm_series_for_new_template",
    )


def queue_people_messages(
    sender: Any, operation_id: Any = None, people_told: bool | None = None, **kwargs: Any
) -> None:
    """After an operation committed, queue the messages it owes (people booked, users enrolled).

    An operation that told nobody (``people_told`` False: its record is only history)
    queues nothing.
    """
    if operation_id is None or people_told is False:
        return
    queue_people_notices(operation_id)


def connect_people_messages() -> None:
    """Connect :func:`queue_people_messages` to ``series_dates_changed`` and
    ``enrolled_dates_booked`` (``AppConfig.ready()``)."""
    series_dates_changed.connect(
        queue_people_messages, sender=EventSeries, dispatch_uid="revel_recurring.people_messages"
    )
    enrolled_dates_booked.connect(
        queue_people_messages,
        sender=EventSeries,
        dispatch_uid="revel_recurring.enrolled_messages",
    )


def queue_webhooks(sender: Any, delivery_ids: Any = (), **kwargs: Any) -> None:
    """After an operation or a resend committed, queue the sending of its webhook deliveries."""
    queue_webhook_deliveries(list(delivery_ids))


def connect_webhooks() -> None:
    """Connect :func:`queue_webhooks` to ``webhook_deliveries_due`` (``AppConfig.ready()``)."""
    webhook_deliveries_due.connect(queue_webhooks, dispatch_uid="revel_recurring.webhooks")
