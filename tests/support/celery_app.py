"""The Celery app of the test host, configured from Django settings (CELERY_*)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

app = Celery("tests")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["revel_recurring"])

# The webhook worker tests end the worker once around the POST (tests/support/crash_webhook.py).
if os.environ.get("REVEL_TEST_WEBHOOK_CRASH"):
    from tests.support.crash_webhook import install

    install()
