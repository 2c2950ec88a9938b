"""Recording cancellations, restorations and deletions of occurrences (OccurrenceChange).

(Moves to another series, ``MOVED``, are recorded by the split service itself:
``services.splits``; moves to another slot of the series, ``RESCHEDULED``, by the
services that write them: ``services.plans.moving``.)

Connected from ``AppConfig.ready()``; both receivers run inside the writing
transaction, so a change record commits or rolls back with the change itself.

* Cancel and restore: the mixin's ``mark_cancelled()`` / ``mark_restored()`` are
  the only writers of ``status_before_cancellation``, and every service saves
  their result with ``update_fields`` naming it. A ``post_save`` with that field
  in ``update_fields`` is therefore a cancellation (the status is now the
  cancelled one) or a restoration (it is not). A host that cancels by a full
  ``save()`` changes its updated-at stamp instead, which ``modified_since`` reads.
* Deletion: ``post_delete``, with the original slot, except while
  ``delete_series`` removes the whole series.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.models.signals import post_delete, post_save

from .conf import recurring_settings
from .context import current_record_id, series_deletion_in_progress
from .models import EventSeries, OccurrenceChange, get_event_model

#: The kinds of record that mean "this occurrence is no longer in the series".
GONE_KINDS = (OccurrenceChange.Kind.DELETED, OccurrenceChange.Kind.MOVED)


def _record(occurrence: Any, kind: str) -> None:
    OccurrenceChange.objects.create(
        series_id=occurrence.series_id,
        occurrence_pk=str(occurrence.pk),
        recurrence_id=occurrence.recurrence_id,
        occurrence_index=occurrence.occurrence_index,
        kind=kind,
        operation_id=current_record_id(),
    )


def record_cancel_or_restore(
    sender: Any, instance: Any, update_fields: Any = None, raw: bool = False, **kwargs: Any
) -> None:
    """A cancelled occurrence becomes a tombstone; a restored one is reported again."""
    if raw or not update_fields or "status_before_cancellation" not in update_fields:
        return
    if instance.is_template or instance.series_id is None:
        return
    cancelled = instance.is_cancelled
    _record(instance, "cancelled" if cancelled else "restored")


def record_deletion(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A deleted occurrence leaves a tombstone with its original slot.

    Not while ``delete_series`` removes the whole series: its change records go
    with it, and a client then gets 404 for the series itself.
    """
    if instance.is_template or instance.series_id is None:
        return
    if series_deletion_in_progress(instance.series_id):
        return
    # A host may delete a stale instance of an occurrence whose series is gone.
    if EventSeries.objects.filter(pk=instance.series_id).exists():
        _record(instance, "deleted")


def connect_change_log() -> None:
    """Connect the change-log receivers to the host Event model (from ``AppConfig.ready()``)."""
    if not recurring_settings.EVENT_MODEL:
        return
    try:
        model = get_event_model()
    except ImproperlyConfigured:
        return  # not installed or without the mixin: checks E002 / E003 report it
    post_save.connect(
        record_cancel_or_restore, sender=model, dispatch_uid="revel_recurring.changelog.status"
    )
    post_delete.connect(
        record_deletion, sender=model, dispatch_uid="revel_recurring.changelog.deletion"
    )


def changed_pks(series_id: int, since: Any) -> list[Any]:
    """Host primary keys of occurrences cancelled or restored at or after ``since``."""
    to_python = get_event_model()._meta.pk.to_python
    values = (
        OccurrenceChange.objects.filter(series_id=series_id, at__gte=since)
        .exclude(kind__in=GONE_KINDS)
        .values_list("occurrence_pk", flat=True)
    )
    return sorted({to_python(value) for value in values})


def rescheduled_since(series_id: int, since: Any) -> dict[Any, Any]:
    """Host primary key -> the slot it stood for at ``since``, for each occurrence of
    the series that a schedule change moved to another slot at or after ``since``.

    The oldest slot of each, so a client that last synced at ``since`` finds the
    ``recurrence_id`` it holds however many moves happened in between.
    """
    to_python = get_event_model()._meta.pk.to_python
    found: dict[Any, Any] = {}
    for pk, slot in (
        OccurrenceChange.objects.filter(
            series_id=series_id, at__gte=since, kind=OccurrenceChange.Kind.RESCHEDULED
        )
        .order_by("at", "pk")
        .values_list("occurrence_pk", "recurrence_id")
    ):
        found.setdefault(to_python(pk), slot)
    return found


def deleted_since(series_id: int, since: Any) -> list[Any]:
    """The latest record of each occurrence that left the series at or after ``since``.

    Left: deleted, or moved to another series by a split (``moved_to`` names it).
    """
    latest: dict[str, OccurrenceChange] = {}
    for change in OccurrenceChange.objects.filter(
        series_id=series_id, at__gte=since, kind__in=GONE_KINDS
    ).order_by("at", "pk"):
        latest[change.occurrence_pk] = change
    return list(latest.values())
