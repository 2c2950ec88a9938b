"""Who is told, in the admin: the count a page shows and the "Tell the people booked" tick.

The plan, split and cancel-stale pages say, before anything is saved, how many
people booked on the dates would get a message (one each), and offer a checkbox,
ticked when ``REVEL_RECURRING_NOTIFY_PEOPLE`` is "all". The page marks that it
showed the box (a hidden input), so that an unticked box means "none" while a
form posted without it (a host's own form) keeps the site's default.
"""

from __future__ import annotations

from typing import Any

from ..conf import recurring_settings
from ..services.toolbox.operation import host_tells_people

#: The checkbox ("all" when ticked) and the hidden input saying the page showed it.
NOTIFY = "_notify"
NOTIFY_SHOWN = "_notify_shown"


def posted_notify(data: Any) -> str | None:
    """``notify`` as the page posted it: "all" or "none" when it showed the box, else
    None (the site's default)."""
    if not data or data.get(NOTIFY_SHOWN) != "yes":
        return None
    return "all" if data.get(NOTIFY) == "all" else "none"


def telling_context(people: int) -> dict[str, Any]:
    """What ``_tell_people.html`` reads: the count, whether the host names people, the box."""
    tells = host_tells_people()
    ticked = recurring_settings.NOTIFY_PEOPLE == "all"
    return {
        "people_told": people,
        "tells_people": tells,
        "notify_name": NOTIFY,
        "notify_shown_name": NOTIFY_SHOWN,
        "notify_ticked": ticked,
        # With the people told, a booked date that moves needs no tick of its own
        # (when the host names someone on the dates: bookings nobody is named for
        # would move without a message).
        "tick_booked_moves": tells and ticked and people > 0,
    }


__all__ = ["NOTIFY", "NOTIFY_SHOWN", "posted_notify", "telling_context"]
