"""The daily generation task as the series changelist shows it (a link into beat's admin)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.apps import apps
from django.contrib.admin import AdminSite
from django.urls import NoReverseMatch, reverse

from ..beat import PERIODIC_TASK_NAME


@dataclass(frozen=True)
class BeatStatus:
    name: str
    enabled: bool
    last_run_at: dt.datetime | None
    schedule: str
    admin_url: str | None


def beat_status(admin_site: AdminSite) -> BeatStatus | None:
    """The generation PeriodicTask row, or None when beat is not installed or the row is missing."""
    if not apps.is_installed("django_celery_beat"):
        return None
    # Only now: importing beat's models raises when the app is not installed.
    from django_celery_beat.models import PeriodicTask

    task = (
        PeriodicTask.objects.select_related("crontab", "interval")
        .filter(name=PERIODIC_TASK_NAME)
        .first()
    )
    if task is None:
        return None
    url: str | None = None
    if admin_site.is_registered(PeriodicTask):
        try:
            url = reverse(
                "admin:django_celery_beat_periodictask_change",
                args=[task.pk],
                current_app=admin_site.name,
            )
        except NoReverseMatch:
            url = None
    schedule = task.crontab or task.interval or task.solar or task.clocked
    return BeatStatus(
        name=task.name,
        enabled=task.enabled,
        last_run_at=task.last_run_at,
        schedule=str(schedule) if schedule is not None else "",
        admin_url=url,
    )
