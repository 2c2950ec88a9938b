"""Recording cancellations, restorations and deletions of occurrences (OccurrenceChange).

Connected from ``AppConfig.ready()``. Cancel and restore are recorded from the
services' signals, which are sent after commit: a change time a little later than
the commit only makes a syncing client see the row twice, never miss it. A
deletion is recorded by ``post_delete`` inside the deleting transaction, so it
rolls back with a failed delete.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete

from .receivers import series_deletion_in_progress
from .signals import occurrence_cancelled, occurrence_restored


def _record(occurrence: Any, kind: str) -> None:
    from .models import OccurrenceChange

    OccurrenceChange.objects.create(
        series_id=occurrence.series_id,
        occurrence_pk=str(occurrence.pk),
        recurrence_id=occurrence.recurrence_id,
        occurrence_index=occurrence.occurrence_index,
        kind=kind,
    )


def record_cancellation(sender: Any, occurrence: Any = None, **kwargs: Any) -> None:
    """A cancelled materialized occurrence becomes a tombstone for sync clients."""
    if occurrence is not None and occurrence.pk is not None:
        _record(occurrence, "cancelled")


def record_restoration(sender: Any, occurrence: Any = None, **kwargs: Any) -> None:
    """A restored occurrence is reported again by ``modified_since``."""
    if occurrence is not None and occurrence.pk is not None:
        _record(occurrence, "restored")


def record_deletion(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A deleted occurrence leaves a tombstone with its original slot.

    Not while ``delete_series`` removes the whole series: its change records go
    with it, and a client then gets 404 for the series itself.
    """
    if instance.is_template or instance.series_id is None:
        return
    if series_deletion_in_progress(instance.series_id):
        return
    _record(instance, "deleted")


def connect_change_log() -> None:
    from .conf import recurring_settings
    from .models import get_event_model

    occurrence_cancelled.connect(
        record_cancellation, dispatch_uid="revel_recurring.changelog.cancellation"
    )
    occurrence_restored.connect(
        record_restoration, dispatch_uid="revel_recurring.changelog.restoration"
    )
    if not recurring_settings.EVENT_MODEL:
        return
    try:
        model = get_event_model()
    except Exception:
        return  # reported by the system checks
    post_delete.connect(
        record_deletion, sender=model, dispatch_uid="revel_recurring.changelog.deletion"
    )


def changed_pks(series_id: int, since: Any) -> list[Any]:
    """Host primary keys of occurrences cancelled or restored at or after ``since``."""
    from .models import OccurrenceChange, get_event_model

    to_python = get_event_model()._meta.pk.to_python
    values = (
        OccurrenceChange.objects.filter(series_id=series_id, at__gte=since)
        .exclude(kind=OccurrenceChange.Kind.DELETED)
        .values_list("occurrence_pk", flat=True)
    )
    return sorted({to_python(value) for value in values})


def deleted_since(series_id: int, since: Any) -> list[Any]:
    """The latest deletion record of each occurrence deleted at or after ``since``."""
    from .models import OccurrenceChange

    latest: dict[str, OccurrenceChange] = {}
    for change in OccurrenceChange.objects.filter(
        series_id=series_id, at__gte=since, kind=OccurrenceChange.Kind.DELETED
    ).order_by("at", "pk"):
        latest[change.occurrence_pk] = change
    return list(latest.values())
