"""What the management commands print: tables of dates, bookings, a service's errors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import ngettext

from ..exceptions import RecurrenceError, messages_by_key


def table(rows: Iterable[Sequence[str]]) -> list[str]:
    """``rows`` as lines, two spaces in, each column as wide as its widest cell."""
    rows = list(rows)
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return [
        "  "
        + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def bookings_text(count: int) -> str:
    """``3 bookings``, ``1 booking``, or ``-`` for none (in the active language)."""
    if not count:
        return "-"
    return ngettext("%(count)d booking", "%(count)d bookings", count) % {"count": count}


def error_line(exc: ValidationError | RecurrenceError) -> str:
    """A service's errors on one line, each after the field it is about."""
    parts: list[str] = []
    for field, messages in messages_by_key(exc).items():
        prefix = "" if field == NON_FIELD_ERRORS else f"{field}: "
        parts.extend(prefix + message for message in messages)
    return "; ".join(parts)


__all__ = ["bookings_text", "error_line", "table"]
