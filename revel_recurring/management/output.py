"""What the management commands print: tables of dates, bookings, a service's errors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import ngettext

from ..context import acting
from ..exceptions import RecurrenceError, messages_by_key


class TranslatedCommand(BaseCommand):
    """A command whose ``help`` is a lazy translation, read in the language active at ``--help``;
    what it changes is recorded as made through the face "command"."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        # argparse wraps the description with re.sub, which refuses a lazy string.
        self.help = str(self.help)
        return super().create_parser(prog_name, subcommand, **kwargs)

    def execute(self, *args: Any, **options: Any) -> str | None:
        # The one place the commands name themselves to the series' history.
        with acting(face="command"):
            return super().execute(*args, **options)


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


__all__ = ["TranslatedCommand", "bookings_text", "error_line", "table"]
