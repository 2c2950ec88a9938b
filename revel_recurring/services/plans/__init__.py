"""Change plans: what a change of the rule, the window, the holidays or the extra dates
would do to dates and bookings, applied only as seen.

- :func:`plan_recurrence_change` reads (no writes, no lock) and answers a
  :class:`RecurrencePlan`: the dates that stay, those that would drift with their
  bookings, the new dates, the skipped ones, the new rule's sentence and a hash;
- :func:`apply_recurrence_plan` applies the change under the series lock only if
  the hash still matches, cancels drift as asked and materializes the new dates
  in the same transaction.
"""

from .apply import (
    CANCEL_DRIFT_MODES,
    apply_recurrence_plan,
    current_drift,
    plan_recurrence_change,
)
from .changes import EXTRA_DATES_KEY, HOLIDAYS_KEY, WINDOW_KEY
from .result import AppliedPlan, ExcludedBecause, PlannedDate, PlannedOccurrence, RecurrencePlan

__all__ = [
    "CANCEL_DRIFT_MODES",
    "EXTRA_DATES_KEY",
    "HOLIDAYS_KEY",
    "WINDOW_KEY",
    "AppliedPlan",
    "ExcludedBecause",
    "PlannedDate",
    "PlannedOccurrence",
    "RecurrencePlan",
    "apply_recurrence_plan",
    "current_drift",
    "plan_recurrence_change",
]
