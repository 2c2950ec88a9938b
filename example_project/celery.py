"""The Celery app: `celery -A example_project worker` / `celery -A example_project beat`."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "example_project.settings")

app = Celery("example_project")
# Every CELERY_* Django setting configures Celery (CELERY_BROKER_URL -> broker_url, ...).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
