"""Moved to :mod:`revel_recurring.services.toolbox.exdates`; this path re-exports it."""

from .toolbox.exdates import (
    absorb_pending_exdates,
    drop_exdates,
    exdates_from,
    hand_over_exdates,
    keep_holiday_dates,
    merge_exdates,
)

__all__ = [
    "absorb_pending_exdates",
    "drop_exdates",
    "exdates_from",
    "hand_over_exdates",
    "keep_holiday_dates",
    "merge_exdates",
]
