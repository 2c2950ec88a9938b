from __future__ import annotations

from django.apps import AppConfig
from django.core import checks
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class RevelRecurringConfig(AppConfig):
    """The app: connects receivers, registers checks and the post_migrate beat hook."""

    name = "revel_recurring"
    label = "revel_recurring"
    verbose_name = _("Recurring events")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Imported here, not at the top: Django imports this module while it loads
        # the apps, before any model can be imported, and these modules import models.
        from . import beat, changelog, receivers
        from . import checks as recurring_checks

        checks.register(recurring_checks.check_event_model, checks.Tags.models)
        checks.register(recurring_checks.check_dotted_paths)
        checks.register(recurring_checks.check_setting_values)
        checks.register(recurring_checks.check_installed_apps)
        checks.register(recurring_checks.check_feed_cache)
        checks.register(recurring_checks.check_visibility_mapping, checks.Tags.models)
        checks.register(recurring_checks.check_holiday_data, checks.Tags.database)
        checks.register(recurring_checks.check_zone_data, checks.Tags.database)
        receivers.connect_receivers()
        receivers.connect_people_messages()
        receivers.connect_webhooks()
        changelog.connect_change_log()
        post_migrate.connect(
            beat.ensure_periodic_tasks_after_migrate,
            dispatch_uid="revel_recurring.beat.ensure_periodic_tasks",
        )
