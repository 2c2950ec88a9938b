"""Settings of the second test host (``tests/studio``): UUID primary keys, e-mail login.

SQLite by default, ``DATABASE_URL`` switches backend; the test database is
``test_revel_studio`` (``REVEL_TEST_STUDIO_DB_NAME``), so this suite shares a
server with the other two without dropping their databases.
"""

from __future__ import annotations

import os

import dj_database_url

from tests.support.mysql_driver import use_pymysql_for

SECRET_KEY = "revel-recurring-studio-tests"
DEBUG = False
USE_TZ = True
TIME_ZONE = "Europe/Berlin"
ROOT_URLCONF = "tests.hosts.studio.urls"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]
STATIC_URL = "static/"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "django_celery_beat",
    "revel_recurring",
    "tests.hosts.studio",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
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

AUTH_USER_MODEL = "studio.User"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
}

_url = os.environ.get("DATABASE_URL")
use_pymysql_for(_url)
if _url:
    DATABASES = {"default": dj_database_url.parse(_url, conn_max_age=0)}
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("REVEL_TEST_STUDIO_DB_NAME", "test_revel_studio")
    }
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}

REVEL_RECURRING_EVENT_MODEL = "studio.Lesson"
REVEL_RECURRING_ADAPTER = "tests.hosts.studio.adapter.StudioAdapter"
REVEL_RECURRING_NOTIFIER = "tests.hosts.studio.notifier.record_digest"
REVEL_RECURRING_REGISTER_BEAT_TASKS = True

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "memory://")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "cache+memory://")
# The real-worker test (tests/studio/worker/) runs a worker with REVEL_TEST_CELERY_EAGER=0.
CELERY_TASK_ALWAYS_EAGER = os.environ.get("REVEL_TEST_CELERY_EAGER", "1") == "1"
# A worker process sends e-mail to the test's own SMTP server (tests/support/smtp.py,
# tests/support/enrolments.py); in the test process pytest-django sets the in-memory one.
if os.environ.get("REVEL_TEST_SMTP_PORT"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = "127.0.0.1"
    EMAIL_PORT = int(os.environ["REVEL_TEST_SMTP_PORT"])
# The fixtures are dated (many in 2026 and 2027): feeds show ten years of their past
# here, so they do not change as the calendar moves on. The 90-day default is
# tested on its own (tests of FEED_PAST_DAYS set it and pass `now`).
REVEL_RECURRING_FEED_PAST_DAYS = 3650
