"""Tables and time formats the notebooks display.

A :class:`Table` renders as an HTML table in Jupyter and as aligned text
elsewhere; nbval compares both exactly, so nothing that changes from run to run
(ids, the real clock) belongs in one.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Iterable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import icalendar

VIENNA = ZoneInfo("Europe/Vienna")
UTC = dt.UTC


def local(instant: dt.datetime, zone: ZoneInfo = VIENNA) -> str:
    """``Mon 01 Feb 2027 18:30 CET``: the wall clock a person in ``zone`` reads."""
    return f"{instant.astimezone(zone):%a %d %b %Y %H:%M %Z}"


def utc(instant: dt.datetime) -> str:
    """``2027-02-01 17:30 UTC``."""
    return f"{instant.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


class Table:
    """Rows under a header, shown as HTML in Jupyter and as text in a console."""

    def __init__(self, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str = ""):
        self.columns = list(columns)
        self.rows = [["" if value is None else str(value) for value in row] for row in rows]
        self.title = title

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        widths = [
            max([len(name), *(len(row[i]) for row in self.rows)])
            for i, name in enumerate(self.columns)
        ]
        lines = [self.title] if self.title else []
        lines.append(
            "  ".join(name.ljust(w) for name, w in zip(self.columns, widths, strict=True)).rstrip()
        )
        lines.append("  ".join("-" * w for w in widths))
        lines += [
            "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
            for row in self.rows
        ]
        lines.append(f"({len(self.rows)} row{'' if len(self.rows) == 1 else 's'})")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(name)}</th>" for name in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(value)}</td>" for value in row) + "</tr>"
            for row in self.rows
        )
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        count = f"<p>{len(self.rows)} row{'' if len(self.rows) == 1 else 's'}</p>"
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{count}"


def occurrence_table(
    events: Iterable[Any], *, zone: ZoneInfo = VIENNA, extra: Sequence[str] = (), title: str = ""
) -> Table:
    """One row per host event: its index, local start, UTC start, status and ``extra`` fields."""
    columns = ["#", "local start", "UTC", "status", *extra]
    rows = [
        [
            event.occurrence_index,
            local(event.start, zone),
            utc(event.start),
            event.status,
            *(getattr(event, name) for name in extra),
        ]
        for event in events
    ]
    return Table(columns, rows, title=title)


def feed_table(body: bytes, *, zone: ZoneInfo = VIENNA, title: str = "") -> Table:
    """One row per VEVENT of an iCalendar body: what a calendar app reads from a feed.

    Left out: the UIDs (they hold database ids), the stamps and the time-zone
    definitions. Dates are read on the wall clock of ``zone``.
    """
    rows = []
    for event in icalendar.Calendar.from_ical(body).walk("VEVENT"):
        if "RRULE" in event:
            what = "the rule"
        elif "RECURRENCE-ID" in event:
            what = f"changes the {local(event.decoded('RECURRENCE-ID'), zone)} date"
        else:
            what = "a date of its own"
        rule = event["RRULE"].to_ical().decode() if "RRULE" in event else ""
        rows.append(
            [
                what,
                event["SUMMARY"],
                local(event.decoded("DTSTART"), zone),
                rule,
                ", ".join(f"{day.astimezone(zone):%d %b}" for day in _dates(event, "EXDATE")),
            ]
        )
    return Table(["VEVENT", "SUMMARY", "DTSTART", "RRULE", "EXDATE (not on)"], rows, title=title)


def _dates(event: Any, name: str) -> list[dt.datetime]:
    # icalendar gives one property as a value, several as a list of them.
    found = event.get(name, [])
    properties = found if isinstance(found, list) else [found]
    return [value.dt for prop in properties for value in prop.dts]


__all__ = ["UTC", "VIENNA", "Table", "feed_table", "local", "occurrence_table", "utc"]
