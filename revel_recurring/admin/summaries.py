"""One message for an action over several series: how many, and the first names.

An action worked through in the request (a selection within the inline limit)
used to say something for each series: a page of 100 ticked series gave 100
green bars. Now each kind of outcome (done, already so, not ready, refused) is
one message with its count and the first few series by name (decision 0053).
A selection of one series still reads as the change page's button does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.contrib import messages
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

#: The series a message names before "and N more".
NAMES_SHOWN = 5


def first_names(names: Sequence[str], *, separator: str = ", ") -> str:
    """The first :data:`NAMES_SHOWN` of ``names``, then how many more: "A, B and 3 more"."""
    shown = separator.join(names[:NAMES_SHOWN])
    rest = len(names) - NAMES_SHOWN
    if rest <= 0:
        return shown
    return ngettext("%(names)s and %(count)d more", "%(names)s and %(count)d more", rest) % {
        "names": shown,
        "count": rest,
    }


@dataclass
class Tally:
    """What an action did to each series of its selection, by kind of outcome.

    Each list holds what its message shows of a series: the name, or the name
    with a detail ("Yoga (8)", "Yoga: the reason").
    """

    done: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def refuse(self, name: str, reason: str) -> None:
        self.refused.append(_("%(name)s: %(error)s") % {"name": name, "error": reason})

    def report_refused(self, request: HttpRequest) -> None:
        """One error message naming the series the services refused, each with why."""
        if self.refused:
            count = len(self.refused)
            messages.error(
                request,
                ngettext(
                    "%(count)d series was not changed: %(names)s",
                    "%(count)d series were not changed: %(names)s",
                    count,
                )
                % {"count": count, "names": first_names(self.refused, separator="; ")},
            )


def counted(names: Sequence[str]) -> dict[str, object]:
    """The values of a summary message: ``count`` and ``names`` (the first few)."""
    return {"count": len(names), "names": first_names(names)}


__all__ = ["NAMES_SHOWN", "Tally", "counted", "first_names"]
