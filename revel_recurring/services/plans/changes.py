"""A change plan's ``changes`` mapping read: rule fields, window, holidays, extra dates."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ...validators import validate_rule_keys, validate_series_options
from ..extra_dates import EXTRA_DATES_KEY, read_extra_dates

#: The key of the window size in a ``changes`` mapping (every other key is a rule field).
WINDOW_KEY = "generation_window_weeks"
#: The key of holiday settings in a plan's changes (country, subdivision, categories, policy).
HOLIDAYS_KEY = "holidays"


@dataclass(frozen=True)
class Changes:
    """A plan's ``changes`` mapping, read: rule field changes, window, holidays, extra dates."""

    rule: dict[str, Any]
    #: The new window size, or None to keep it.
    window: int | None = None
    #: Holiday settings to change (country, subdivision, categories, policy), or
    #: None to keep them; checked against the series by ``compute_plan``.
    holidays: Mapping[str, Any] | None = None
    #: The whole new set of extra dates (UTC), or None to keep them.
    extra_dates: tuple[dt.datetime, ...] | None = None


def split_changes(changes: Mapping[str, Any] | None) -> Changes:
    """``changes`` read: keys, window, and the shape of the holidays and extra dates checked."""
    rule_changes, holidays = pop_holidays(changes)
    window = rule_changes.pop(WINDOW_KEY, None)
    extra = rule_changes.pop(EXTRA_DATES_KEY, None)
    validate_rule_keys(rule_changes)
    validate_series_options(generation_window_weeks=window)
    return Changes(
        rule=rule_changes,
        window=window,
        holidays=holidays,
        extra_dates=None if extra is None else read_extra_dates(extra),
    )


def pop_holidays(
    changes: Mapping[str, Any] | None,
) -> tuple[dict[str, Any], Mapping[str, Any] | None]:
    """``changes`` without its holiday settings (:data:`HOLIDAYS_KEY`), and those settings."""
    rest = dict(changes or {})
    holidays = rest.pop(HOLIDAYS_KEY, None)
    if holidays is not None and not isinstance(holidays, Mapping):
        raise ValidationError(
            {
                HOLIDAYS_KEY: gettext(
                    "Give the holiday settings as an object (country, policy, ...)."
                )
            }
        )
    return rest, holidays


__all__ = [
    "EXTRA_DATES_KEY",
    "HOLIDAYS_KEY",
    "WINDOW_KEY",
    "Changes",
    "pop_holidays",
    "split_changes",
]
