"""A series' own values: its plain text columns and its active flag, on the locked row.

The steps :func:`~revel_recurring.services.editing.update_series` takes before the
schedule: check the values given, set the columns that differ (validated with the
model's own field validation), pause or resume in memory. The caller holds the
series lock and saves the columns these steps name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from ..host_model import single_line_fields
from ..models import EventSeries
from ..validators import validate_no_nul_characters, validate_single_line_values
from .toolbox.exdates import absorb_pending_exdates
from .toolbox.parking import PARKING_COLUMNS, clear_parking
from .toolbox.scheduling import refresh_next_due_at

#: The series' own text columns: no other row depends on them.
PLAIN_COLUMNS = ("name", "slug", "description")


def plain_values(*, name: str | None, slug: str | None, description: str | None) -> dict[str, str]:
    """The plain columns given (``None`` ones left out), in :data:`PLAIN_COLUMNS` order."""
    given = zip(PLAIN_COLUMNS, (name, slug, description), strict=True)
    return {key: value for key, value in given if value is not None}


def validate_series_values(
    plain: Mapping[str, Any], *, is_active: object, auto_publish: object
) -> None:
    """The types of the plain columns and flags given, single lines and no NUL
    characters (``ValidationError`` keyed by field)."""
    errors: dict[str, list[str]] = {}
    for key, value in plain.items():
        if not isinstance(value, str):
            errors[key] = [gettext("Give a text, got %(value)s.") % {"value": repr(value)}]
    for key, flag in (("is_active", is_active), ("auto_publish", auto_publish)):
        if flag is not None and not isinstance(flag, bool):
            errors[key] = [gettext("Give True or False, got %(flag)s.") % {"flag": repr(flag)}]
    if errors:
        raise ValidationError(errors)
    validate_single_line_values(plain, single_line_fields(EventSeries))
    validate_no_nul_characters(plain)


def write_plain_columns(locked: EventSeries, plain: Mapping[str, str]) -> set[str]:
    """Set the plain columns that differ and validate them on the locked row."""
    changed = {key for key, value in plain.items() if getattr(locked, key) != value}
    for key in changed:
        setattr(locked, key, plain[key])
    if changed:
        others = [f.name for f in EventSeries._meta.concrete_fields if f.name not in changed]
        # Only the written columns: a slug another series holds is refused here
        # (keyed "slug") rather than by the database after the rule was written.
        locked.full_clean(exclude=others)
    return changed


def switch_active(
    locked: EventSeries, *, active: bool, now: dt.datetime
) -> tuple[set[str], set[str]]:
    """Pause or resume the locked series in memory: what changed, and the columns to save."""
    unparked = active and clear_parking(locked)
    changed = {"is_active"} if locked.is_active != active else set()
    if unparked:
        changed |= set(PARKING_COLUMNS)
    if not changed:
        return changed, set()
    locked.is_active = active
    written = {"is_active"}
    if active:
        # The next due moment skips excluded slots: fold the pending ones first.
        absorb_pending_exdates(locked)
        refresh_next_due_at(locked, now=now)
        written |= {"next_due_at", *PARKING_COLUMNS}
    return changed, written


__all__ = [
    "PLAIN_COLUMNS",
    "plain_values",
    "switch_active",
    "validate_series_values",
    "write_plain_columns",
]
