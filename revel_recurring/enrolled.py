"""What a host answers when the app books an enrolled user on a date: ``BookingAnswer``.

The host's ``book_enrolled`` hook (on the event model, beside ``booked_among``)
books each (event, user) pair it is given with the host's own booking or RSVP
and answers each with one of these. Pure values: no database, no Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: The answers' states: booked now, already held by a booking of the user's own, refused.
BOOKED = "booked"
HELD = "held"
REFUSED = "refused"


@dataclass(frozen=True)
class BookingAnswer:
    """The host's answer for one (event, user): ``state`` and, when refused, why.

    ``reason`` is shown to the user as it is ("full", "closed for bookings"), so a
    host writes it in the user's language or in words any user reads.
    """

    state: str
    reason: str = ""

    def __post_init__(self) -> None:
        if self.state not in (BOOKED, HELD, REFUSED):
            raise ValueError(
                f"state must be {BOOKED!r}, {HELD!r} or {REFUSED!r}, not {self.state!r}"
            )

    @classmethod
    def booked(cls) -> BookingAnswer:
        """Booked now, through the enrolment (ending it releases this booking)."""
        return cls(BOOKED)

    @classmethod
    def held(cls) -> BookingAnswer:
        """The user already holds a live booking of their own: left as it is."""
        return cls(HELD)

    @classmethod
    def refused(cls, reason: str) -> BookingAnswer:
        """Not booked, for ``reason`` (full, closed...): the date is reported to the user."""
        return cls(REFUSED, reason)


#: What ``book_enrolled`` and ``release_enrolled`` are given: (host event, user key) pairs.
EnrolledPair = tuple[Any, str]
