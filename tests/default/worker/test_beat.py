"""The django-celery-beat row: created when missing, never overwriting an operator."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django_celery_beat.models import CrontabSchedule, PeriodicTask

from revel_recurring.beat import GENERATE_ALL_TASK, PERIODIC_TASK_NAME, ensure_periodic_tasks

pytestmark = pytest.mark.django_db


def _task() -> PeriodicTask:
    return PeriodicTask.objects.get(name=PERIODIC_TASK_NAME)


def test_migrate_created_the_daily_task_at_four_utc() -> None:
    task = _task()
    assert task.task == GENERATE_ALL_TASK
    assert task.enabled
    assert (task.crontab.minute, task.crontab.hour, str(task.crontab.timezone)) == ("0", "4", "UTC")


def test_operator_edits_survive_the_next_migrate() -> None:
    task = _task()
    task.enabled = False
    task.crontab = CrontabSchedule.objects.create(minute="30", hour="2", timezone="UTC")
    task.save()
    call_command("migrate", verbosity=0)
    task = _task()
    assert not task.enabled
    assert (task.crontab.minute, task.crontab.hour) == ("30", "2")


def test_command_without_reset_leaves_the_row_alone() -> None:
    PeriodicTask.objects.filter(name=PERIODIC_TASK_NAME).update(enabled=False)
    out = StringIO()
    call_command("revel_recurring_beat", stdout=out)
    assert "left unchanged" in out.getvalue()
    assert not _task().enabled


def test_reset_restores_the_defaults() -> None:
    task = _task()
    task.enabled = False
    task.crontab = CrontabSchedule.objects.create(minute="30", hour="2", timezone="UTC")
    task.save()
    out = StringIO()
    call_command("revel_recurring_beat", "--reset", stdout=out)
    assert "reset to defaults" in out.getvalue()
    task = _task()
    assert task.enabled
    assert (task.crontab.minute, task.crontab.hour) == ("0", "4")
    assert PeriodicTask.objects.filter(name=PERIODIC_TASK_NAME).count() == 1


def test_missing_row_is_recreated_from_settings(settings: Any) -> None:
    settings.REVEL_RECURRING_BEAT_CRONTAB = "15 3 * * 1-5"
    PeriodicTask.objects.filter(name=PERIODIC_TASK_NAME).delete()
    result = ensure_periodic_tasks()
    assert result.created
    crontab = _task().crontab
    assert (crontab.minute, crontab.hour, crontab.day_of_week) == ("15", "3", "1-5")


def test_migrate_respects_register_setting(settings: Any) -> None:
    settings.REVEL_RECURRING_REGISTER_BEAT_TASKS = False
    PeriodicTask.objects.filter(name=PERIODIC_TASK_NAME).delete()
    call_command("migrate", verbosity=0)
    assert not PeriodicTask.objects.filter(name=PERIODIC_TASK_NAME).exists()
