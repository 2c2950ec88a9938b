"""Receivers on the host event model, connected explicitly from ``AppConfig.ready()``."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete


def record_deleted_occurrence(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A deleted occurrence's slot becomes an exdate so generation never re-creates it."""
    if instance.is_template or instance.series_id is None or instance.recurrence_id is None:
        return
    from .services.exdates import add_exdates

    add_exdates(instance.series_id, [instance.recurrence_id])


def connect_receivers() -> None:
    from .conf import recurring_settings
    from .models import get_event_model

    if not recurring_settings.EVENT_MODEL:
        return  # the system check reports it
    try:
        model = get_event_model()
    except Exception:
        return  # reported by revel_recurring.E002 / E003
    post_delete.connect(
        record_deleted_occurrence,
        sender=model,
        dispatch_uid="revel_recurring.record_deleted_occurrence",
    )
