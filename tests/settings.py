"""Settings for the test suite: SQLite by default, DATABASE_URL switches backend."""

from __future__ import annotations

import os

import dj_database_url

from tests.support.mysql_driver import use_pymysql_for

SECRET_KEY = "revel-recurring-tests"
DEBUG = False
USE_TZ = True
TIME_ZONE = "UTC"
ROOT_URLCONF = "tests.urls"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.admin",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "revel_recurring",
    "tests.hosts.testapp",
]

STATIC_URL = "/static/"

# A host that sets nothing but authentication, as the quickstart's mounting snippet does:
# the API must not depend on DEFAULT_SCHEMA_CLASS, permission, filter or pagination
# defaults (tests/default/api/test_api_bare_host.py).
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
}

MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

_url = os.environ.get("DATABASE_URL")
use_pymysql_for(_url)
if _url:
    DATABASES = {"default": dj_database_url.parse(_url, conn_max_age=0)}
    DATABASES["default"].setdefault("TEST", {})
    DATABASES["default"]["TEST"]["NAME"] = os.environ.get(
        "REVEL_TEST_DB_NAME", "test_revel_recurring"
    )
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}

REVEL_RECURRING_EVENT_MODEL = "testapp.Event"
REVEL_RECURRING_NOTIFIER = "tests.hosts.testapp.notifier.record_digest"
REVEL_RECURRING_REGISTER_BEAT_TASKS = True

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "memory://")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "cache+memory://")
# The real-worker test runs a worker with REVEL_TEST_CELERY_EAGER=0.
CELERY_TASK_ALWAYS_EAGER = os.environ.get("REVEL_TEST_CELERY_EAGER", "1") == "1"
# The people's-messages worker tests (tests/default/worker/test_people_worker.py) give
# the worker a host delivery that crashes once, and their own SMTP server.
REVEL_RECURRING_PEOPLE_DELIVERY = os.environ.get("REVEL_TEST_PEOPLE_DELIVERY") or None
# The webhook worker tests (tests/default/worker/test_webhook_worker.py) retry at once
# and give up sooner; unset, the app's defaults hold.
if os.environ.get("REVEL_TEST_WEBHOOK_BACKOFF"):
    REVEL_RECURRING_WEBHOOK_RETRY_BACKOFF = int(os.environ["REVEL_TEST_WEBHOOK_BACKOFF"])
if os.environ.get("REVEL_TEST_WEBHOOK_ATTEMPTS"):
    REVEL_RECURRING_WEBHOOK_MAX_ATTEMPTS = int(os.environ["REVEL_TEST_WEBHOOK_ATTEMPTS"])
# A worker process sends e-mail to the test's own SMTP server (tests/support/smtp.py);
# in the test process pytest-django sets the in-memory backend.
if os.environ.get("REVEL_TEST_SMTP_PORT"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = "127.0.0.1"
    EMAIL_PORT = int(os.environ["REVEL_TEST_SMTP_PORT"])
# The fixtures are dated (many in 2026 and 2027): feeds show ten years of their past
# here, so they do not change as the calendar moves on. The 90-day default is
# tested on its own (tests of FEED_PAST_DAYS set it and pass `now`).
REVEL_RECURRING_FEED_PAST_DAYS = 3650
