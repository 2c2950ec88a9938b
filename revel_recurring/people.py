"""``BookedPerson``: someone holding a booking on a host event, as the host names them.

The host's ``people_booked_among`` hook (on the event model, beside
``booked_among``) answers these; the messages sent when their dates change are
written to the address, in the language and time zone given here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BookedPerson:
    """One person booked on a date.

    ``address`` is where their messages go (an email address for the default
    delivery; any key a host's own delivery understands otherwise) and identifies
    the person: two bookings with the same address are one person, told once.
    ``language`` is a language code such as ``"de"`` (empty: the site's
    ``LANGUAGE_CODE``), ``timezone`` an IANA zone name (empty: the series' zone).
    """

    address: str
    name: str = ""
    language: str = ""
    timezone: str = ""

    @property
    def key(self) -> str:
        """The address, case-folded: what the app stores and compares."""
        return self.address.strip().casefold()
