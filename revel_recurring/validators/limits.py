"""The bounds of a rule and a series: how far apart, how many, how early and late, how wide."""

from __future__ import annotations

import datetime as dt

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# A series' window, in weeks; the model field, the services and check E006 use these.
WINDOW_WEEKS_MIN, WINDOW_WEEKS_MAX = 1, 52

#: The most extra dates (RDATE) a series holds, past ones included: the one limit of
#: add-date, PATCH, create, the change plan, the admin and the services, so a
#: series' representation always fits a PATCH body (decision 0046).
EXTRA_DATES_MAX = 500
# The integer columns (interval, count) are 32-bit signed on every backend.
MAX_INTERVAL = 2**31 - 1
# COUNT rules are walked from dtstart (dateutil counts from there), so the count
# bounds the work done inside the series lock; see docs/decisions.
MAX_COUNT = 10_000
# Far enough from year 1 and year 9999 that a zone offset, the one-day search
# margin and a year of window never leave Python's calendar.
EARLIEST = dt.datetime(1000, 1, 1, tzinfo=dt.UTC)
LATEST = dt.datetime(8999, 12, 31, 23, 59, 59, tzinfo=dt.UTC)


def is_whole_number(value: object) -> bool:
    """Whether ``value`` is an ``int`` and not a ``bool`` (True is not a weekday)."""
    return isinstance(value, int) and not isinstance(value, bool)


def in_range(value: dt.datetime) -> bool:
    """Whether the instant ``value`` lies from :data:`EARLIEST` to :data:`LATEST`."""
    try:
        return EARLIEST <= value <= LATEST
    except OverflowError:
        return False


def validate_generation_window_weeks(value: object) -> None:
    """The one check of a series' window: a whole number of weeks from 1 to 52.

    The services run it keyed through :func:`validate_series_options`; the model
    field checks the same bounds (:data:`WINDOW_WEEKS_MIN`, :data:`WINDOW_WEEKS_MAX`)
    with its own validators, once (see docs/decisions/0016-one-source-per-fact.md).
    """
    if not is_whole_number(value) or not WINDOW_WEEKS_MIN <= value <= WINDOW_WEEKS_MAX:  # type: ignore[operator]
        raise ValidationError(
            _("Generate %(min)d to %(max)d weeks ahead, got %(value)r.")
            % {"min": WINDOW_WEEKS_MIN, "max": WINDOW_WEEKS_MAX, "value": value}
        )


def validate_series_options(*, generation_window_weeks: object = None) -> None:
    """The series options a service was given, keyed by option name (None: not given)."""
    if generation_window_weeks is None:
        return
    try:
        validate_generation_window_weeks(generation_window_weeks)
    except ValidationError as exc:
        raise ValidationError({"generation_window_weeks": exc.messages}) from None
