"""A notifier and a per-event receiver that record what they were given."""

from __future__ import annotations

from typing import Any

from revel_recurring.notifications import event_notifications_suppressed

digests: list[Any] = []
per_event_notifications: list[Any] = []


def record_digest(digest: Any) -> None:
    digests.append(digest)


def on_event_created(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    """What a host sends when an event opens; silent during a materialization batch."""
    if created and not event_notifications_suppressed():
        per_event_notifications.append(instance.pk)
