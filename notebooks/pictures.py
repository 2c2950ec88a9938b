"""Calendar pictures for the notebooks (matplotlib).

Every function draws one figure, displays it and closes it, so a cell shows the
picture exactly once and returns nothing: nbval then compares only the figure's
short text form (its size and number of axes), never the pixels.

A calendar names the time zone its days and times are read in under its title,
and draws a cancelled date crossed out on a pale ground of its kind's colour, its
note struck through, so it never looks like a date that takes place.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import matplotlib.pyplot as plt
from IPython.display import display
from matplotlib.colors import to_rgb
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


class Mark(NamedTuple):
    """One marked day of a calendar: its legend entry, a short note, whether it is cancelled."""

    kind: str
    note: str = ""
    cancelled: bool = False


def show(figure: Figure) -> None:
    """Display ``figure`` once and release it (no second copy at the end of the cell)."""
    display(figure)
    plt.close(figure)


def marks_from(
    events: Iterable[Any],
    kind: Callable[[Any], str],
    *,
    zone: ZoneInfo,
) -> dict[dt.date, Mark]:
    """``{local date in zone: Mark}``; ``kind(event)`` names the event's legend entry.

    The note is the local start ("18:30"); an event with the host's cancelled status
    (``RECURRING_STATUS_CANCELLED``) is marked cancelled.
    """
    marks: dict[dt.date, Mark] = {}
    for event in events:
        start = event.start.astimezone(zone)
        cancelled = event.occurrence_status == event.RECURRING_STATUS_CANCELLED
        marks[start.date()] = Mark(kind(event), f"{start:%H:%M}", cancelled)
    return marks


def _wrapped(note: str) -> str:
    # A cell is about eleven characters wide: longer notes break at the middle space.
    if len(note) <= 11 or " " not in note:
        return note
    spaces = [i for i, char in enumerate(note) if char == " "]
    cut = min(spaces, key=lambda i: abs(i - len(note) / 2))
    return f"{note[:cut]}\n{note[cut + 1 :]}"


def week_calendar(
    marks: Mapping[dt.date, Mark],
    *,
    title: str,
    zone: ZoneInfo,
    styles: Mapping[str, str],
    first: dt.date | None = None,
    last: dt.date | None = None,
    today: dt.date | None = None,
    window_end: dt.date | None = None,
) -> None:
    """One row per week, Monday to Sunday; each marked day filled with its kind's colour.

    ``marks`` maps a local date in ``zone`` to its :class:`Mark`; ``styles`` maps
    every kind to a colour, in legend order. A cancelled mark is crossed out in
    its kind's colour instead of filled. ``first``/``last`` default to the marked
    range; ``today`` gets a thick outline (the pinned "now"); days after
    ``window_end`` are hatched as not materialized yet. The title gets a second
    line naming ``zone``.
    """
    days = sorted(marks)
    first = first or days[0]
    last = last or days[-1]
    monday = first - dt.timedelta(days=first.weekday())
    weeks = (last - monday).days // 7 + 1
    figure, axes = plt.subplots(figsize=(9, 0.42 * weeks + 1.7))
    struck = []
    for week in range(weeks):
        for column in range(7):
            day = monday + dt.timedelta(days=7 * week + column)
            mark = marks.get(day, Mark(""))
            text_colour = _fill(axes, (column, week), mark, styles.get(mark.kind, "white"))
            writing = [axes.text(column + 0.06, week + 0.3, f"{day:%d}", fontsize=7)]
            if mark.note:
                writing.append(
                    axes.text(
                        column + 0.55,
                        week + 0.62,
                        _wrapped(mark.note),
                        fontsize=8 if len(mark.note) <= 11 else 7,
                        ha="center",
                        va="center",
                        linespacing=0.9,
                    )
                )
            for text in writing:
                text.set_color(text_colour)
                if mark.cancelled:
                    text.set_backgroundcolor(_tint(styles.get(mark.kind, "white")))
            if mark.cancelled and mark.note:
                struck.append(writing[1])
            if window_end is not None and day > window_end and not mark.kind:
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
    handles = _legend(marks.values(), styles, window_end=window_end, today=today)
    axes.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.02),
        ncol=min(len(handles), 4),
        frameon=False,
        fontsize=8,
    )
    axes.set_title(f"{title}\nlocal dates and times in {zone.key}", pad=24)
    figure.tight_layout()
    _strike_through(figure, axes, struck)
    show(figure)


def _fill(axes: Any, corner: tuple[int, int], mark: Mark, colour: str) -> str:
    """Fill one day's cell (crossed out when cancelled); returns the colour to write in."""
    if mark.cancelled:
        axes.add_patch(
            Rectangle(corner, 1, 1, facecolor=_tint(colour), edgecolor="#999999", linewidth=0.6)
        )
        left, top = corner
        for ys in ((top, top + 1), (top + 1, top)):
            axes.plot([left, left + 1], ys, color=colour, linewidth=1.2, alpha=0.7)
        return "#333333"
    axes.add_patch(
        Rectangle(
            corner,
            1,
            1,
            facecolor=colour,
            edgecolor="#999999",
            linewidth=0.6,
            alpha=0.85 if mark.kind else 1.0,
        )
    )
    light = colour in (COLORS["grey"], "white")
    return "white" if mark.kind and not light else "#333333"


def _tint(colour: str) -> tuple[float, ...]:
    # A cancelled date keeps a trace of its kind's colour: a fifth of it on white,
    # opaque, so the writing's ground can be the same colour and hide the cross.
    return tuple(0.8 + 0.2 * channel for channel in to_rgb(colour))


def _legend(
    marks: Iterable[Mark],
    styles: Mapping[str, str],
    *,
    window_end: dt.date | None,
    today: dt.date | None,
) -> list[Patch]:
    # A kind whose every date is cancelled is crossed out in the legend too; a kind
    # with dates of both sorts keeps its fill, and one entry explains the crossing.
    marks = list(marks)
    live = {mark.kind for mark in marks if not mark.cancelled}
    cancelled = {mark.kind for mark in marks if mark.cancelled}
    handles = []
    for kind, colour in styles.items():
        if kind in cancelled and kind not in live:
            handles.append(Patch(facecolor=_tint(colour), edgecolor=colour, hatch="x", label=kind))
        else:
            handles.append(Patch(facecolor=colour, edgecolor="#999999", label=kind))
    if cancelled & live:
        handles.append(
            Patch(facecolor="white", edgecolor=COLORS["dark"], hatch="x", label="cancelled")
        )
    if window_end is not None:
        handles.append(
            Patch(facecolor="white", edgecolor="#CCCCCC", hatch="///", label="beyond the window")
        )
    if today is not None:
        handles.append(
            Patch(facecolor="white", edgecolor="black", linewidth=2.4, label="now (pinned)")
        )
    return handles


def _strike_through(figure: Figure, axes: Any, notes: Iterable[Any]) -> None:
    # Matplotlib has no struck-through text: a line across each line of the note,
    # measured once the layout is final (a note's size in data units depends on it).
    renderer = figure.canvas.get_renderer()
    to_data = axes.transData.inverted()
    for note in notes:
        (left, bottom), (right, top) = to_data.transform(note.get_window_extent(renderer))
        lines = note.get_text().count("\n") + 1
        height = (bottom - top) / lines
        for line in range(lines):
            y = top + height * (line + 0.5)
            axes.plot([left, right], [y, y], color="#333333", linewidth=1, zorder=4)


__all__ = ["COLORS", "VIENNA", "WEEKDAYS", "Mark", "marks_from", "show", "week_calendar"]
