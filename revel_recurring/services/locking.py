"""Moved to :mod:`revel_recurring.services.toolbox.locking`; this path re-exports it."""

from .toolbox.locking import (
    LOCK_RETRY_ATTEMPTS,
    T,
    lock_rows,
    lock_series,
    lock_series_chunk,
    lock_several_series,
    retry_on_lock_conflict,
)

__all__ = [
    "LOCK_RETRY_ATTEMPTS",
    "T",
    "lock_rows",
    "lock_series",
    "lock_series_chunk",
    "lock_several_series",
    "retry_on_lock_conflict",
]
