"""Reverting an operation of a series' history: its inverse, shown as a plan, applied by hash.

- :func:`plan_revert` reads what undoing an operation (an applied plan, a split,
  a move, a cancellation of the dates off the schedule, a holiday policy change)
  would do: the rows put back, the rows removed, the rule and settings restored,
  with a hash; or refuses, naming why (:mod:`.reading`);
- :func:`apply_revert` applies exactly that plan under the series locks, as an
  operation of its own (kind ``"revert"``), or nothing (:mod:`.apply`, :mod:`.writing`).
"""

from .apply import apply_revert, plan_revert
from .result import REVERTIBLE_KINDS, RevertPlan, RevertResult, RevertRow, SettingChange

__all__ = [
    "REVERTIBLE_KINDS",
    "RevertPlan",
    "RevertResult",
    "RevertRow",
    "SettingChange",
    "apply_revert",
    "plan_revert",
]
