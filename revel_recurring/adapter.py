"""The host's policy hooks. Subclass and point ``REVEL_RECURRING_ADAPTER`` at it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.utils.module_loading import import_string

from .conf import recurring_settings


class DefaultRecurringAdapter:
    """Default policy: no audience knowledge, a plain series URL.

    Hosts override these methods to say who is staff, owner, member or follower of
    the organisation behind a series and where its public page lives.
    """

    def get_series_url(self, series: Any) -> str:
        """Public URL of a series, used as the digest link."""
        return f"/series/{series.slug}/"


@lru_cache(maxsize=8)
def _adapter_class(path: str) -> type[DefaultRecurringAdapter]:
    cls: type[DefaultRecurringAdapter] = import_string(path)
    return cls


def get_adapter() -> DefaultRecurringAdapter:
    """An instance of the configured adapter class."""
    return _adapter_class(recurring_settings.ADAPTER)()
