"""The generation digest, per-event notification suppression, and notifier dispatch."""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.module_loading import import_string

from .conf import recurring_settings

logger = logging.getLogger(__name__)

SERIES_EVENTS_GENERATED = "SERIES_EVENTS_GENERATED"

_suppressed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "revel_recurring_suppressed", default=False
)


@contextlib.contextmanager
def suppress_event_notifications() -> Iterator[None]:
    """Mark the current context as a batch whose per-event notifications are replaced.

    Receivers are never disconnected (that would silence other threads too); host
    receivers ask :func:`event_notifications_suppressed` and return early. Being a
    ContextVar, the flag is per thread and per asyncio task.
    """
    token = _suppressed.set(True)
    try:
        yield
    finally:
        _suppressed.reset(token)


def event_notifications_suppressed() -> bool:
    """True inside :func:`suppress_event_notifications`; hosts check it in receivers."""
    return _suppressed.get()


@dataclass(frozen=True)
class SeriesDigest:
    """One notification for one generated batch."""

    series: Any
    occurrences: Sequence[Any]
    notification_type: str = SERIES_EVENTS_GENERATED
    recipients: Sequence[Any] = field(default_factory=tuple)
    url: str = ""

    @property
    def count(self) -> int:
        return len(self.occurrences)


def dispatch_digest(digest: SeriesDigest) -> None:
    """Hand the digest to ``REVEL_RECURRING_NOTIFIER``; a failing notifier is logged only.

    Called after commit: the occurrences already exist, so no notifier error may
    undo them or propagate into the caller (a beat task, an API request).
    """
    path = recurring_settings.NOTIFIER
    if not path:
        return
    try:
        notifier = import_string(path)
        notifier(digest)
    except Exception:
        logger.exception(
            "revel_recurring notifier %s failed for series %s (%d occurrences)",
            path,
            getattr(digest.series, "pk", None),
            digest.count,
        )
