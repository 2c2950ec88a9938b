"""``get_event_model()``: the host's Event model, which composes ``RecurringEventMixin``."""

from __future__ import annotations

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

from ..conf import recurring_settings
from ..mixins import RecurringEventMixin


def get_event_model() -> type[RecurringEventMixin]:
    """The host Event model named by ``REVEL_RECURRING_EVENT_MODEL``."""
    label = recurring_settings.EVENT_MODEL
    if not label:
        raise ImproperlyConfigured("Set REVEL_RECURRING_EVENT_MODEL to 'app_label.Event'.")
    try:
        model = apps.get_model(label, require_ready=False)
    except (ValueError, LookupError) as exc:
        raise ImproperlyConfigured(
            f"REVEL_RECURRING_EVENT_MODEL refers to '{label}', which is not installed."
        ) from exc
    if not issubclass(model, RecurringEventMixin):
        raise ImproperlyConfigured(f"'{label}' must inherit RecurringEventMixin.")
    return model
