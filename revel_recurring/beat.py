"""The django-celery-beat rows behind the daily generation run.

The rows are created only when missing: an operator who disables or reschedules
the task in the admin keeps that change across every later ``migrate`` (the
complaint behind django-celery-beat issue #153 is code that overwrites such edits).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.apps import apps as global_apps
from django.db import DEFAULT_DB_ALIAS, router

from .conf import recurring_settings

PERIODIC_TASK_NAME = "revel_recurring: generate all series"
GENERATE_ALL_TASK = "revel_recurring.generate_all_series"


@dataclass(frozen=True)
class BeatResult:
    """What ``ensure_periodic_tasks()`` did to the periodic task row."""

    created: bool
    reset: bool
    task_id: int


def _crontab_fields() -> dict[str, str]:
    minute, hour, day_of_month, month_of_year, day_of_week = recurring_settings.BEAT_CRONTAB.split()
    return {
        "minute": minute,
        "hour": hour,
        "day_of_month": day_of_month,
        "month_of_year": month_of_year,
        "day_of_week": day_of_week,
        "timezone": "UTC",
    }


def ensure_periodic_tasks(*, reset: bool = False, using: str = DEFAULT_DB_ALIAS) -> BeatResult:
    """Create the daily ``generate_all_series`` PeriodicTask if it is missing.

    With ``reset=True`` the row is put back to the defaults from settings
    (schedule, task name, enabled); otherwise an existing row is left untouched.
    """
    # Imported when called: importing beat's models raises on a site that left
    # django_celery_beat out of INSTALLED_APPS (check E014 reports that instead).
    from django_celery_beat.models import CrontabSchedule, PeriodicTask

    schedule, _ = CrontabSchedule.objects.using(using).get_or_create(**_crontab_fields())
    task = PeriodicTask.objects.using(using).filter(name=PERIODIC_TASK_NAME).first()
    if task is None:
        task = PeriodicTask(name=PERIODIC_TASK_NAME)
        created = True
    elif not reset:
        return BeatResult(created=False, reset=False, task_id=task.pk)
    else:
        created = False
    task.task = GENERATE_ALL_TASK
    task.crontab = schedule
    task.interval = None
    task.solar = None
    task.clocked = None
    task.enabled = True
    task.one_off = False
    task.description = "Materializes due occurrences of every active recurring series."
    task.save(using=using)
    return BeatResult(created=created, reset=reset and not created, task_id=task.pk)


def ensure_periodic_tasks_after_migrate(
    sender: Any, *, using: str = DEFAULT_DB_ALIAS, apps: Any = global_apps, **kwargs: Any
) -> None:
    """post_migrate receiver: create the rows quietly when they can be created."""
    if getattr(sender, "label", None) != "revel_recurring":
        return
    if not recurring_settings.REGISTER_BEAT_TASKS or not global_apps.is_installed(
        "django_celery_beat"
    ):
        return
    try:
        # The historical registry tells whether beat's tables exist in this run
        # (a partial migrate can stop before them).
        apps.get_model("django_celery_beat", "PeriodicTask")
    except LookupError:
        return
    from django_celery_beat.models import PeriodicTask  # installed: checked above

    if not router.allow_migrate_model(using, PeriodicTask):
        return
    ensure_periodic_tasks(using=using)
