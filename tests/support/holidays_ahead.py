"""A Thursday class in Bavaria and the holidays of its next twelve months, for the plan
page tests of each host (it imports no host model).

The clock stands at Monday 1 March 2027 (:func:`frozen_clock`; the admin reads the
real clock): the default eight-week window ends in April, before Ascension Day
(Thursday 6 May 2027) and Corpus Christi (Thursday 27 May 2027), both holidays of
DE-BY, and Epiphany falls on Thursday 6 January 2028. A change of the holiday
policy then creates no date within the window, yet moves or skips three dates of
the year.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import html
import re
from collections.abc import Iterator
from typing import Any
from zoneinfo import ZoneInfo

import time_machine

BERLIN = ZoneInfo("Europe/Berlin")
#: The admin's "now" in these tests.
NOW = dt.datetime(2027, 3, 1, 9, 0, tzinfo=BERLIN)
#: The class's first date: Thursday 4 March 2027 at 18:30 in Berlin.
FIRST_THURSDAY = dt.datetime(2027, 3, 4, 18, 30, tzinfo=BERLIN)
#: Bavaria's public holidays skip the class's dates.
BAVARIA_SKIP = {"country": "DE", "subdivision": "BY", "categories": [], "policy": "skip"}
#: The Thursdays of the twelve months from :data:`NOW` that are holidays in DE-BY.
THURSDAY_HOLIDAYS = (dt.date(2027, 5, 6), dt.date(2027, 5, 27), dt.date(2028, 1, 6))

#: The plan page's list after the policy changes from ``skip`` to ``shift``, by language.
SHIFTED_AHEAD = {
    "en": [
        "Ascension Day, Thu 6 May 2027 18:30 (Europe/Berlin): "
        "moved to Fri 7 May 2027 18:30 (Europe/Berlin)",
        "Corpus Christi, Thu 27 May 2027 18:30 (Europe/Berlin): "
        "moved to Fri 28 May 2027 18:30 (Europe/Berlin)",
        "Epiphany, Thu 6 Jan 2028 18:30 (Europe/Berlin): "
        "moved to Fri 7 Jan 2028 18:30 (Europe/Berlin)",
    ],
    "de": [
        "Christi Himmelfahrt, Do, 6. Mai 2027, 18:30 (Europe/Berlin): "
        "verschoben auf Fr, 7. Mai 2027, 18:30 (Europe/Berlin)",
        "Fronleichnam, Do, 27. Mai 2027, 18:30 (Europe/Berlin): "
        "verschoben auf Fr, 28. Mai 2027, 18:30 (Europe/Berlin)",
        "Heilige Drei Könige, Do, 6. Jan 2028, 18:30 (Europe/Berlin): "
        "verschoben auf Fr, 7. Jan 2028, 18:30 (Europe/Berlin)",
    ],
}


@contextlib.contextmanager
def frozen_clock() -> Iterator[None]:
    """The clock at :data:`NOW` (the admin and the API read the real one)."""
    with time_machine.travel(NOW, tick=False):
        yield


def at_1830(day: dt.date) -> dt.datetime:
    """``day`` at 18:30 in Berlin."""
    return dt.datetime.combine(day, dt.time(18, 30), tzinfo=BERLIN)


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def section_items(page: Any, element_id: str) -> list[str]:
    """The text of each list item of the page's element ``element_id`` (a ``div``)."""
    body = page.content.decode() if hasattr(page, "content") else str(page)
    start = body.index(f'id="{element_id}"')
    section = body[start : body.index("</div>", start)]
    return [_text(item) for item in re.findall(r"<li[^>]*>(.*?)</li>", section, re.S)]


def cell(page: Any, element_id: str) -> str:
    """The text of the page's element ``element_id`` (a table cell)."""
    body = page.content.decode() if hasattr(page, "content") else str(page)
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</td>', body, re.S)
    assert found is not None, element_id
    return _text(found.group(1))
