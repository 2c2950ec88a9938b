"""Settings for the example host site.

SQLite by default (``example_project/db.sqlite3``, or the file named by
``EXAMPLE_DB_PATH``); ``DATABASE_URL`` switches to another database such as
PostgreSQL. Celery runs tasks eagerly in-process unless ``CELERY_BROKER_URL``
names a real broker (Redis).
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

PROJECT_DIR = Path(__file__).resolve().parent

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "example-project-insecure-development-key")
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

USE_TZ = True
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "Europe/Vienna")
USE_I18N = True
LANGUAGE_CODE = "en"
# The languages the site's switcher offers (and LocaleMiddleware picks from a
# browser's Accept-Language); each is named in its own language on the page.
LANGUAGES = [
    ("en", _("English")),
    ("de", _("German")),
    ("fr", _("French")),
    ("es", _("Spanish")),
    ("it", _("Italian")),
    ("nl", _("Dutch")),
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "revel_recurring",
    "example_project.events",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session, before CommonMiddleware (Django's documented order): the
    # language comes from the switcher's cookie, then the browser's Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "example_project.urls"
WSGI_APPLICATION = "example_project.wsgi.application"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
STATIC_URL = "static/"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
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

_database_url = os.environ.get("DATABASE_URL")
if _database_url and _database_url.startswith(("mysql:", "mariadb:")):
    # MariaDB through PyMySQL, as docs/howto/mariadb.md shows a site: pure Python,
    # where mysqlclient needs pkg-config and the client headers to build.
    try:
        import MySQLdb  # noqa: F401  (mysqlclient, when installed)
    except ImportError:
        import pymysql

        pymysql.version_info = (2, 2, 1, "final", 0)  # Django checks for mysqlclient >= 2.2.1
        pymysql.install_as_MySQLdb()
if _database_url:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60)}
    # Its own test database name, so this suite and the package suite (tests/) can run
    # against the same server without dropping each other's database.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("EXAMPLE_TEST_DB_NAME", "test_revel_example_project")
    }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("EXAMPLE_DB_PATH", str(PROJECT_DIR / "db.sqlite3")),
        }
    }

REST_FRAMEWORK = {
    # Browsers use the session (the browsable API, Swagger UI); scripts send
    # "Authorization: Token <key>" (manage.py drf_create_token <username>).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "revel-recurring example site",
    "COMPONENT_SPLIT_REQUEST": True,
}

REVEL_RECURRING_EVENT_MODEL = "events.Event"
REVEL_RECURRING_ADAPTER = "example_project.events.adapter.ExampleAdapter"
REVEL_RECURRING_NOTIFIER = "example_project.events.notifier.deliver_digest"
# Feed bodies are built once per revision and kept in the default cache (local
# memory here; a shared cache such as Redis on a site with several processes).
REVEL_RECURRING_FEED_CACHE = "default"

# The public address digest links point at (e-mail needs absolute URLs).
EXAMPLE_SITE_URL = os.environ.get("EXAMPLE_SITE_URL", "http://127.0.0.1:8000")
# Digest e-mails are printed by the demo; the test runner swaps in locmem, and a
# real site sets an SMTP backend here.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = "revel-recurring example <noreply@example.com>"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "events:notifications"

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
# Without a broker the demo and tests run every task in-process; with one (Redis),
# tasks go to a real worker: `celery -A example_project worker -l info`.
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://"
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        # No propagation: a Celery worker also logs through the root logger, and
        # every digest line would appear twice.
        "example_project": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "revel_recurring": {"handlers": ["console"], "level": "INFO", "propagate": False},
    },
}
