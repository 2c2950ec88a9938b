from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EventsConfig(AppConfig):
    name = "example_project.events"
    # The short label is what REVEL_RECURRING_EVENT_MODEL = "events.Event" names.
    label = "events"
    verbose_name = _("Events")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import signals

        signals.connect()
