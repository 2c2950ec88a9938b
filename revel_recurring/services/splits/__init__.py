""" "This and following": split a series at one of its dates, in one transaction.

The original series ends before the date; a new series continues from it with
the original's rule and template plus the caller's changes. Occurrences from the
date on change series (their ids, bookings and tickets stay), exdates and extra
dates from the date on go with them, and the new series is generated to its window. Nothing is
deleted and recreated, and a booked date is never cancelled: a moved date that
does not fit the new rule is drift of the new series, for the organiser to plan.

Shaped as :mod:`revel_recurring.services.plans`: ``inputs`` (the arguments
checked, where a split may fall), ``compute`` (the continuation and the plan,
in memory), ``apply`` (the split under the locks), ``rows`` (the occurrences
that move) and ``result``.
"""

from .apply import plan_split, split_series
from .inputs import is_split_point, slots_before, split_title
from .result import SplitResult

__all__ = [
    "SplitResult",
    "is_split_point",
    "plan_split",
    "slots_before",
    "split_series",
    "split_title",
]
