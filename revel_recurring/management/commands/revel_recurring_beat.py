from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ...beat import PERIODIC_TASK_NAME, ensure_periodic_tasks
from ..output import TranslatedCommand


class Command(TranslatedCommand):
    help = gettext_lazy(  # type: ignore[assignment]
        "Create the django-celery-beat task for daily generation when it is missing. "
        "An existing row is left as the operator set it unless --reset is given."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset",
            action="store_true",
            help=_(
                "Restore the schedule from REVEL_RECURRING_BEAT_CRONTAB and re-enable the task."
            ),
        )
        parser.add_argument("--database", default="default")

    def handle(self, *args: Any, **options: Any) -> None:
        result = ensure_periodic_tasks(reset=options["reset"], using=options["database"])
        if result.created:
            message = _("Periodic task '%(name)s' created.")
        elif result.reset:
            message = _("Periodic task '%(name)s' reset to defaults.")
        else:
            message = _("Periodic task '%(name)s' already present, left unchanged.")
        self.stdout.write(message % {"name": PERIODIC_TASK_NAME})
