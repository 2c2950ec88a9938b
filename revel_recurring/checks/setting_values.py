"""E005-E009, E014, E015: the settings hold values the app can use."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import checks
from django.utils.module_loading import import_string

from ..conf import recurring_settings
from ..validators import WINDOW_WEEKS_MAX, WINDOW_WEEKS_MIN


def check_installed_apps(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E014: django_celery_beat is installed while the beat rows are to be registered."""
    if apps.is_installed("django_celery_beat") or not recurring_settings.REGISTER_BEAT_TASKS:
        return []
    return [
        checks.Error(
            "'django_celery_beat' is not in INSTALLED_APPS: migrate cannot create the daily "
            "generation task and revel_recurring_beat fails.",
            hint=(
                "Add 'django_celery_beat' to INSTALLED_APPS, or set "
                "REVEL_RECURRING_REGISTER_BEAT_TASKS = False when generation runs from cron "
                "(manage.py revel_recurring_generate)."
            ),
            id="revel_recurring.E014",
        )
    ]


def check_feed_cache(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E015: REVEL_RECURRING_FEED_CACHE names a cache of ``CACHES``."""
    alias = recurring_settings.FEED_CACHE
    if alias is None or (isinstance(alias, str) and alias in settings.CACHES):
        return []
    return [
        checks.Error(
            f"REVEL_RECURRING_FEED_CACHE is {alias!r}, which is not a cache of CACHES.",
            hint=f"Use one of {sorted(settings.CACHES)}, or None to build every feed anew.",
            id="revel_recurring.E015",
        )
    ]


def check_dotted_paths(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E005: the adapter, notifier and people-delivery dotted paths import."""
    errors: list[checks.CheckMessage] = []
    for setting, path in (
        ("REVEL_RECURRING_ADAPTER", recurring_settings.ADAPTER),
        ("REVEL_RECURRING_NOTIFIER", recurring_settings.NOTIFIER),
        ("REVEL_RECURRING_PEOPLE_DELIVERY", recurring_settings.PEOPLE_DELIVERY),
    ):
        if not path:
            continue
        try:
            import_string(path)
        except ImportError:
            errors.append(
                checks.Error(
                    f"{setting} = '{path}' cannot be imported.",
                    hint="Give the dotted path of an importable class or callable.",
                    id="revel_recurring.E005",
                )
            )
    return errors


GENERATION_CHUNK_SIZE_MAX = 1000

_WHOLE_NUMBER_SETTINGS = (
    "DEFAULT_WINDOW_WEEKS",
    "MAX_WINDOW_WEEKS",
    "DISPATCH_CHUNK_SIZE",
    "GENERATION_CHUNK_SIZE",
    "ADMIN_INLINE_LIMIT",
    "TASK_MAX_RETRIES",
    "TASK_RETRY_BACKOFF",
    "TASK_RETRY_BACKOFF_MAX",
    "INSERT_BATCH_BYTES",
    "MAX_GENERATION_BYTES",
    "FEED_PAST_DAYS",
    "BEYOND_WINDOW_DATES",
    "DELETED_FEED_DAYS",
    "QUEUED_ACTION_DAYS",
    "PEOPLE_MAX_RETRIES",
    "WEBHOOK_TIMEOUT",
    "WEBHOOK_MAX_ATTEMPTS",
    "WEBHOOK_RETRY_BACKOFF",
    "WEBHOOK_RETRY_BACKOFF_MAX",
    "WEBHOOK_MAX_ROWS",
    "HISTORY_DAYS",
)

# Whole-number settings below 1 the app cannot use (the others may be 0).
_AT_LEAST_ONE = (
    "QUEUED_ACTION_DAYS",
    "WEBHOOK_TIMEOUT",
    "WEBHOOK_MAX_ATTEMPTS",
    "HISTORY_DAYS",
)


def _is_whole_number(value: object) -> bool:
    # bool is a subclass of int, and True is not a number of weeks.
    return isinstance(value, int) and not isinstance(value, bool)


def check_setting_values(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """E006-E009: the plain settings hold values the app can use.

    E009 judges the raw values first (conf.py never coerces them): the whole-number
    settings are whole numbers in range and ``REGISTER_BEAT_TASKS`` is a bool. Then,
    when those pass, E006-E008: the default window lies in 1..52 weeks, the maximum
    window is not below it, and the beat crontab has five fields.
    """
    errors: list[checks.CheckMessage] = []
    for name in _WHOLE_NUMBER_SETTINGS:
        value = getattr(recurring_settings, name)
        if not _is_whole_number(value):
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_{name} must be a whole number, got {value!r}.",
                    id="revel_recurring.E009",
                )
            )
            continue
        minimum = 1 if name.endswith(("CHUNK_SIZE", "_BYTES")) or name in _AT_LEAST_ONE else 0
        if not name.endswith("WINDOW_WEEKS") and value < minimum:
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_{name} must be at least {minimum}, got {value}.",
                    id="revel_recurring.E009",
                )
            )
        elif name == "GENERATION_CHUNK_SIZE" and value > GENERATION_CHUNK_SIZE_MAX:
            # One transaction holds every series lock of its chunk until it commits.
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_GENERATION_CHUNK_SIZE must be at most "
                    f"{GENERATION_CHUNK_SIZE_MAX}, got {value}.",
                    id="revel_recurring.E009",
                )
            )
    for flag_name in ("REGISTER_BEAT_TASKS", "HISTORY"):
        flag = getattr(recurring_settings, flag_name)
        if not isinstance(flag, bool):
            errors.append(
                checks.Error(
                    f"REVEL_RECURRING_{flag_name} must be True or False, got {flag!r}.",
                    id="revel_recurring.E009",
                )
            )
    notify = recurring_settings.NOTIFY_PEOPLE
    if notify not in ("all", "none"):
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_NOTIFY_PEOPLE must be 'all' or 'none', got {notify!r}.",
                id="revel_recurring.E009",
            )
        )
    auto_apply = recurring_settings.ZONE_DATA_AUTO_APPLY
    if auto_apply not in ("none", "unbooked", "all"):
        errors.append(
            checks.Error(
                "REVEL_RECURRING_ZONE_DATA_AUTO_APPLY must be 'none', 'unbooked' or 'all', "
                f"got {auto_apply!r}.",
                id="revel_recurring.E009",
            )
        )
    if errors:
        return errors  # the range checks below would fail on the same values
    default = recurring_settings.DEFAULT_WINDOW_WEEKS
    maximum = recurring_settings.MAX_WINDOW_WEEKS
    if not WINDOW_WEEKS_MIN <= default <= WINDOW_WEEKS_MAX:
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_DEFAULT_WINDOW_WEEKS must be {WINDOW_WEEKS_MIN} to "
                f"{WINDOW_WEEKS_MAX}, got {default}.",
                id="revel_recurring.E006",
            )
        )
    if maximum < default:
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_MAX_WINDOW_WEEKS ({maximum}) is below the default window "
                f"({default}).",
                id="revel_recurring.E007",
            )
        )
    if len(recurring_settings.BEAT_CRONTAB.split()) != 5:
        errors.append(
            checks.Error(
                f"REVEL_RECURRING_BEAT_CRONTAB must have five fields, got "
                f"'{recurring_settings.BEAT_CRONTAB}'.",
                hint="For example '0 4 * * *' (04:00 UTC daily).",
                id="revel_recurring.E008",
            )
        )
    return errors
