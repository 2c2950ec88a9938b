"""Connecting the receivers from ``AppConfig.ready()``, and where the context flags live."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import override_settings

from revel_recurring import changelog, context, notifications, receivers

CONNECTORS = [
    pytest.param(receivers, receivers.connect_receivers, id="receivers"),
    pytest.param(changelog, changelog.connect_change_log, id="change-log"),
]


@pytest.mark.parametrize(("module", "connect"), CONNECTORS)
@pytest.mark.parametrize("label", ["nowhere.Event", "auth.Group"])
def test_a_misconfigured_event_model_leaves_the_receivers_unconnected_for_the_checks(
    module: object, connect: Callable[[], None], label: str
) -> None:
    # Not installed (E002) or without the mixin (E003): the system checks report it,
    # so connecting quietly does nothing rather than stopping the site from starting.
    with override_settings(REVEL_RECURRING_EVENT_MODEL=label):
        assert connect() is None  # type: ignore[func-returns-value]


@pytest.mark.parametrize(("module", "connect"), CONNECTORS)
def test_an_unexpected_error_while_connecting_is_not_swallowed(
    module: object, connect: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> None:
        raise RuntimeError("a bug, not a setting")

    monkeypatch.setattr(module, "get_event_model", broken)

    with pytest.raises(RuntimeError, match="a bug, not a setting"):
        connect()


def test_the_documented_import_paths_of_the_context_flags_still_work() -> None:
    # docs/concepts/ and docs/lifecycle.md name these paths; the flags live in context.py.
    assert receivers.suspend_modification_tracking is context.suspend_modification_tracking
    assert notifications.suppress_event_notifications is context.suppress_event_notifications
    assert notifications.event_notifications_suppressed is context.event_notifications_suppressed
