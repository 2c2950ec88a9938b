"""Settings of the third test host (``tests/dojo``): text keys, integer statuses, German.

SQLite by default, ``DATABASE_URL`` switches backend (PostgreSQL or MariaDB); the
test database is ``test_revel_dojo`` (``REVEL_TEST_DOJO_DB_NAME``), so this suite
shares a server with the others without dropping their databases.
"""

from __future__ import annotations

import os

import dj_database_url

from tests.support.mysql_driver import use_pymysql_for

SECRET_KEY = "revel-recurring-dojo-tests"
DEBUG = False
USE_TZ = True
USE_I18N = True
LANGUAGE_CODE = "de"
TIME_ZONE = "Europe/Berlin"
ROOT_URLCONF = "tests.hosts.dojo.urls"
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
    "tests.hosts.dojo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
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

AUTH_USER_MODEL = "dojo.User"
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
        "NAME": os.environ.get("REVEL_TEST_DOJO_DB_NAME", "test_revel_dojo")
    }
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}

REVEL_RECURRING_EVENT_MODEL = "dojo.Training"
REVEL_RECURRING_ADAPTER = "tests.hosts.dojo.adapter.DojoAdapter"
REVEL_RECURRING_NOTIFIER = "tests.hosts.dojo.notifier.record_digest"
REVEL_RECURRING_REGISTER_BEAT_TASKS = True

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "memory://")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", "cache+memory://")
# The real-worker test runs a worker with REVEL_TEST_CELERY_EAGER=0.
CELERY_TASK_ALWAYS_EAGER = os.environ.get("REVEL_TEST_CELERY_EAGER", "1") == "1"
# A worker process sends e-mail to the test's own SMTP server (tests/support/smtp.py,
# tests/support/enrolments.py); in the test process pytest-django sets the in-memory one.
if os.environ.get("REVEL_TEST_SMTP_PORT"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = "127.0.0.1"
    EMAIL_PORT = int(os.environ["REVEL_TEST_SMTP_PORT"])
# Fixtures are dated: feeds show ten years of their past here.
REVEL_RECURRING_FEED_PAST_DAYS = 3650
