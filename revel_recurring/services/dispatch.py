"""Moved to :mod:`revel_recurring.services.generation.dispatch`; this path re-exports it."""

from .generation.dispatch import (
    DispatchResult,
    count_disarmed_series,
    dispatch_due_chunks,
    dispatch_due_series,
    iter_due_series_ids,
    logger,
)

__all__ = [
    "DispatchResult",
    "count_disarmed_series",
    "dispatch_due_chunks",
    "dispatch_due_series",
    "iter_due_series_ids",
    "logger",
]
