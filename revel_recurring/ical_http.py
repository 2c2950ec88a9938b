"""The old path of the feeds' HTTP answers, now :mod:`revel_recurring.ical.responses`."""

from __future__ import annotations

from .ical.responses import (
    CONTENT_TYPE,
    FEED_CACHE_SECONDS,
    calendar_response,
    deleted_series_response,
    last_modified_header,
    revision_response,
)

__all__ = [
    "CONTENT_TYPE",
    "FEED_CACHE_SECONDS",
    "calendar_response",
    "deleted_series_response",
    "last_modified_header",
    "revision_response",
]
