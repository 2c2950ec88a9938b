"""Every ``recurring_settings`` property reads its REVEL_RECURRING_* setting and default."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from django.test import override_settings

from revel_recurring.conf import RecurringSettings, recurring_settings

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "docs" / "_ext"))

import revel_code_facts as facts

# property name -> (documented default, an overriding value, what the property returns for it)
SETTINGS: dict[str, tuple[Any, Any, Any]] = {
    "EVENT_MODEL": (None, "events.Event", "events.Event"),
    "ADAPTER": (
        "revel_recurring.adapter.DefaultRecurringAdapter",
        "myhost.adapters.SiteAdapter",
        "myhost.adapters.SiteAdapter",
    ),
    "NOTIFIER": (None, "myhost.notify.send_digest", "myhost.notify.send_digest"),
    "DEFAULT_WINDOW_WEEKS": (8, 12, 12),
    "MAX_WINDOW_WEEKS": (52, 26, 26),
    "REGISTER_BEAT_TASKS": (True, False, False),
    "BEAT_CRONTAB": ("0 4 * * *", "30 2 * * 1-5", "30 2 * * 1-5"),
    "DISPATCH_CHUNK_SIZE": (500, 50, 50),
    "GENERATION_CHUNK_SIZE": (50, 200, 200),
    "ADMIN_INLINE_LIMIT": (200, 0, 0),
    "TASK_MAX_RETRIES": (5, 2, 2),
    "TASK_RETRY_BACKOFF": (5, 1, 1),
    "TASK_RETRY_BACKOFF_MAX": (300, 60, 60),
    "INSERT_BATCH_BYTES": (16_777_216, 1_048_576, 1_048_576),
    "MAX_GENERATION_BYTES": (268_435_456, 10_000_000, 10_000_000),
    "FEED_PAST_DAYS": (90, 30, 30),
    "BEYOND_WINDOW_DATES": (52, 0, 0),
    "DELETED_FEED_DAYS": (90, 7, 7),
    "QUEUED_ACTION_DAYS": (30, 3, 3),
    "FEED_CACHE": (None, "feeds", "feeds"),
    "NOTIFY_PEOPLE": ("all", "none", "none"),
    "ZONE_DATA_AUTO_APPLY": ("none", "unbooked", "unbooked"),
    "HISTORY": (True, False, False),
    "HISTORY_DAYS": (400, 30, 30),
    "SITE_URL": ("", "https://dance.example", "https://dance.example"),
    "ORGANIZER": ("", "Dance school <hello@dance.example>", "Dance school <hello@dance.example>"),
    "PEOPLE_DELIVERY": (None, "myhost.notify.send_sms", "myhost.notify.send_sms"),
    "PEOPLE_MAX_RETRIES": (8, 3, 3),
    "WEBHOOK_TIMEOUT": (10, 3, 3),
    "WEBHOOK_MAX_ATTEMPTS": (8, 2, 2),
    "WEBHOOK_RETRY_BACKOFF": (30, 0, 0),
    "WEBHOOK_RETRY_BACKOFF_MAX": (3600, 60, 60),
    "WEBHOOK_MAX_ROWS": (500, 10, 10),
}


def property_names() -> list[str]:
    return sorted(n for n, v in vars(RecurringSettings).items() if isinstance(v, property))


def test_every_setting_is_covered_here() -> None:
    missing = set(property_names()) - set(SETTINGS)
    assert not missing, (
        f"Add {sorted(missing)} to SETTINGS in tests/default/project/test_conf.py and to the "
        "settings reference (docstring in revel_recurring/conf.py)."
    )
    assert set(SETTINGS) <= set(property_names())


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_setting_default(name: str, settings: Settings) -> None:
    default, _, _ = SETTINGS[name]
    if hasattr(settings, f"REVEL_RECURRING_{name}"):
        delattr(settings, f"REVEL_RECURRING_{name}")

    assert getattr(recurring_settings, name) == default


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_setting_reads_its_django_setting(name: str, settings: Settings) -> None:
    _, value, expected = SETTINGS[name]
    setattr(settings, f"REVEL_RECURRING_{name}", value)

    assert getattr(recurring_settings, name) == expected


def test_settings_are_read_on_every_access_not_cached() -> None:
    with override_settings(REVEL_RECURRING_DEFAULT_WINDOW_WEEKS=3):
        assert recurring_settings.DEFAULT_WINDOW_WEEKS == 3
    with override_settings(REVEL_RECURRING_DEFAULT_WINDOW_WEEKS=4):
        assert recurring_settings.DEFAULT_WINDOW_WEEKS == 4


@pytest.mark.parametrize("value", ["", None])
def test_empty_optional_paths_read_as_none(value: Any, settings: Settings) -> None:
    settings.REVEL_RECURRING_EVENT_MODEL = value
    settings.REVEL_RECURRING_NOTIFIER = value

    assert recurring_settings.EVENT_MODEL is None
    assert recurring_settings.NOTIFIER is None


def test_reference_shows_every_setting_with_its_default() -> None:
    # The settings page of the documentation site (docs/reference/settings.rst) is
    # rendered from these values; the documented defaults above must be the same.
    shown = facts.setting_defaults()

    assert set(shown) == set(property_names())
    for name, (default, _, _) in SETTINGS.items():
        assert shown[name][0] == default, f"documented default of REVEL_RECURRING_{name}"
