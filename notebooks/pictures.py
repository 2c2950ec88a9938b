"""Calendar pictures for the notebooks (matplotlib).

Every function draws one figure, displays it and closes it, so a cell shows the
picture exactly once and returns nothing: nbval then compares only the figure's
short text form (its size and number of axes), never the pixels.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from zoneinfo import ZoneInfo

import matplotlib.pyplot as plt
from IPython.display import display
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

VIENNA = ZoneInfo("Europe/Vienna")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")

# Colour-blind-safe (Okabe-Ito) colours for the usual kinds of day.
COLORS = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "red": "#D55E00",
    "purple": "#CC79A7",
    "grey": "#BBBBBB",
    "sky": "#56B4E9",
    "dark": "#555555",
}


def show(figure: Figure) -> None:
    """Display ``figure`` once and release it (no second copy at the end of the cell)."""
    display(figure)
    plt.close(figure)


def marks_from(
    events: Iterable[Any],
    kind: Callable[[Any], str],
    *,
    zone: ZoneInfo = VIENNA,
) -> dict[dt.date, tuple[str, str]]:
    """``{local date: (kind, "HH:MM")}``; ``kind(event)`` names the event's legend entry."""
    marks: dict[dt.date, tuple[str, str]] = {}
    for event in events:
        start = event.start.astimezone(zone)
        marks[start.date()] = (kind(event), f"{start:%H:%M}")
    return marks


def _wrapped(note: str) -> str:
    # A cell is about eleven characters wide: longer notes break at the middle space.
    if len(note) <= 11 or " " not in note:
        return note
    spaces = [i for i, char in enumerate(note) if char == " "]
    cut = min(spaces, key=lambda i: abs(i - len(note) / 2))
    return f"{note[:cut]}\n{note[cut + 1 :]}"


def week_calendar(
    marks: Mapping[dt.date, tuple[str, str]],
    *,
    title: str,
    styles: Mapping[str, str],
    first: dt.date | None = None,
    last: dt.date | None = None,
    today: dt.date | None = None,
    window_end: dt.date | None = None,
) -> None:
    """One row per week, Monday to Sunday; each marked day filled with its kind's colour.

    ``marks`` maps a date to (kind, short note); ``styles`` maps every kind to a
    colour, in legend order. ``first``/``last`` default to the marked range;
    ``today`` gets a thick outline (the pinned "now"); days after ``window_end``
    are hatched as not materialized yet.
    """
    days = sorted(marks)
    first = first or days[0]
    last = last or days[-1]
    monday = first - dt.timedelta(days=first.weekday())
    weeks = (last - monday).days // 7 + 1
    figure, axes = plt.subplots(figsize=(9, 0.42 * weeks + 1.7))
    for week in range(weeks):
        for column in range(7):
            day = monday + dt.timedelta(days=7 * week + column)
            kind, note = marks.get(day, ("", ""))
            colour = styles.get(kind, "white")
            axes.add_patch(
                Rectangle(
                    (column, week),
                    1,
                    1,
                    facecolor=colour,
                    edgecolor="#999999",
                    linewidth=0.6,
                    alpha=0.85 if kind else 1.0,
                )
            )
            text_colour = "white" if kind and colour not in (COLORS["grey"], "white") else "#333333"
            axes.text(column + 0.06, week + 0.3, f"{day:%d}", fontsize=7, color=text_colour)
            if note:
                axes.text(
                    column + 0.55,
                    week + 0.62,
                    _wrapped(note),
                    fontsize=8 if len(note) <= 11 else 7,
                    ha="center",
                    va="center",
                    linespacing=0.9,
                    color=text_colour,
                )
            if window_end is not None and day > window_end and not kind:
                axes.add_patch(
                    Rectangle((column, week), 1, 1, fill=False, hatch="///", edgecolor="#CCCCCC")
                )
            if day == today:
                axes.add_patch(
                    Rectangle((column, week), 1, 1, fill=False, edgecolor="black", linewidth=2.4)
                )
    axes.set_xlim(0, 7)
    axes.set_ylim(weeks, 0)
    axes.set_xticks([i + 0.5 for i in range(7)], WEEKDAYS)
    axes.xaxis.tick_top()
    axes.set_yticks(
        [w + 0.5 for w in range(weeks)],
        [f"{monday + dt.timedelta(weeks=w):W%V  %d %b}" for w in range(weeks)],
    )
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    handles = [
        Patch(facecolor=colour, edgecolor="#999999", label=kind) for kind, colour in styles.items()
    ]
    if window_end is not None:
        handles.append(
            Patch(facecolor="white", edgecolor="#CCCCCC", hatch="///", label="beyond the window")
        )
    if today is not None:
        handles.append(
            Patch(facecolor="white", edgecolor="black", linewidth=2.4, label="now (pinned)")
        )
    axes.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.02),
        ncol=min(len(handles), 4),
        frameon=False,
        fontsize=8,
    )
    axes.set_title(title, pad=24)
    figure.tight_layout()
    show(figure)


__all__ = ["COLORS", "VIENNA", "WEEKDAYS", "marks_from", "show", "week_calendar"]
