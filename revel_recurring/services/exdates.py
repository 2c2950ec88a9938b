"""Adding slots to a series' exdates under the series lock."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db import transaction

from .. import rules
from .locking import lock_series


def add_exdates(series_id: int, instants: Iterable[dt.datetime]) -> list[str]:
    """Record instants as exdates (UTC, deduplicated); returns the stored list."""
    with transaction.atomic():
        series = lock_series(series_id)
        merged = rules.normalize_exdates([*series.exdates, *instants])
        if merged != series.exdates:
            series.exdates = merged
            series.save(update_fields=["exdates", "updated_at"])
        return merged
