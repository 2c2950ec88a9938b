"""Validation of recurrence rule fields, shared by the model, the API and the admin.

Every problem is reported under the key of the field a person has to change (a
``ValidationError`` keyed by field). The rule's fields checked together are in
:mod:`.rule` (which days a frequency reads in :mod:`.days`), the bounds of a rule
and a series in :mod:`.limits`, time zone names in :mod:`.zones`, one-line text
in :mod:`.text`. Import from here.
"""

from __future__ import annotations

from .limits import (
    EARLIEST,
    EXTRA_DATES_MAX,
    LATEST,
    MAX_COUNT,
    MAX_INTERVAL,
    WINDOW_WEEKS_MAX,
    WINDOW_WEEKS_MIN,
    validate_generation_window_weeks,
    validate_series_options,
)
from .rule import WEEKDAY_NAMES, validate_rule, validate_rule_keys
from .text import (
    SingleLineValidator,
    control_character_in,
    validate_no_nul_characters,
    validate_single_line,
    validate_single_line_values,
)
from .zones import validate_dtstart_zone, validate_timezone

__all__ = [
    "EARLIEST",
    "EXTRA_DATES_MAX",
    "LATEST",
    "MAX_COUNT",
    "MAX_INTERVAL",
    "WEEKDAY_NAMES",
    "WINDOW_WEEKS_MAX",
    "WINDOW_WEEKS_MIN",
    "SingleLineValidator",
    "control_character_in",
    "validate_dtstart_zone",
    "validate_generation_window_weeks",
    "validate_no_nul_characters",
    "validate_rule",
    "validate_rule_keys",
    "validate_series_options",
    "validate_single_line",
    "validate_single_line_values",
    "validate_timezone",
]
