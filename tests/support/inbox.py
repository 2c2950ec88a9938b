"""One person's inbox and the calendar it leaves them with, read as a calendar app would.

- :func:`received`: the messages Django's test mail box holds for an address, each
  with its ``text/calendar`` parts (content type, ``method`` parameter, text);
- :class:`CalendarStore`: an attendee's calendar under RFC 5546's rules, written
  here without the app's code: entries keyed by (UID, RECURRENCE-ID); a REQUEST
  or CANCEL whose SEQUENCE is below the one held is stale and ignored; a CANCEL
  removes the entry (it stays known as cancelled, at its SEQUENCE, so a stale
  REQUEST cannot bring it back), and a CANCEL without RECURRENCE-ID cancels every
  instance of its UID (RFC 5546 section 3.2.5);
- :func:`feed_entries`: what a person's calendar took from the series' feed for
  their dates (the seed of the store: what they held before the first message);
- :func:`shuffled`: a bounded number of seeded random orders of the messages.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.core import mail

from tests.support.itip_consumers import Attached

Identity = tuple[str, dt.datetime | None]


@dataclass(frozen=True)
class CalendarPart:
    """A ``text/calendar`` part of a message as it was sent."""

    content_type: str
    method: str
    filename: str
    text: str


@dataclass(frozen=True)
class Received:
    """One message in the inbox."""

    subject: str
    body: str
    message_id: str
    parts: tuple[CalendarPart, ...]


def received(address: str) -> list[Received]:
    """The messages sent to ``address`` (Django's test outbox), in the order sent."""
    found = []
    for email in mail.outbox:
        if not any(address.casefold() in to.casefold() for to in email.to):
            continue
        parts = []
        for part in email.attachments:
            assert not isinstance(part, tuple), f"a calendar file attached as bytes: {part[0]}"
            text = part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
            parts.append(
                CalendarPart(
                    content_type=part.get_content_type(),
                    method=str(part.get_param("method") or ""),
                    filename=str(part.get_filename() or ""),
                    text=text,
                )
            )
        found.append(
            Received(
                subject=str(email.subject),
                body=str(email.body),
                message_id=str(email.extra_headers.get("Message-ID", "")),
                parts=tuple(parts),
            )
        )
    return found


@dataclass
class Held:
    """An entry of the store: the latest SEQUENCE seen for the identity and what it said."""

    sequence: int
    start: dt.datetime
    cancelled: bool


class CalendarStore:
    """An attendee's calendar fed with iTIP messages (see the module's rules)."""

    def __init__(self, seed: Iterable[Attached] = ()) -> None:
        self.entries: dict[Identity, Held] = {}
        for entry in seed:
            self.entries[entry.identity] = Held(entry.sequence, entry.start, cancelled=False)

    def apply(self, entry: Attached) -> None:
        """Take one VEVENT of a REQUEST or CANCEL, unless stale."""
        if entry.method == "CANCEL" and entry.recurrence_id is None:
            # The whole event: every instance of the UID the message is not older than.
            for identity, held in self.entries.items():
                if identity[0] == entry.uid and entry.sequence >= held.sequence:
                    self.entries[identity] = Held(entry.sequence, held.start, cancelled=True)
        held = self.entries.get(entry.identity)
        if held is not None and entry.sequence < held.sequence:
            return
        if entry.method == "REQUEST":
            self.entries[entry.identity] = Held(entry.sequence, entry.start, cancelled=False)
        elif entry.method == "CANCEL":
            start = entry.start if held is None else held.start
            self.entries[entry.identity] = Held(entry.sequence, start, cancelled=True)
        else:
            raise AssertionError(f"a calendar message with METHOD {entry.method!r}")

    def apply_all(self, entries: Iterable[Attached]) -> CalendarStore:
        for entry in entries:
            self.apply(entry)
        return self

    def dates(self) -> list[dt.datetime]:
        """The start of every entry the calendar shows, sorted (UTC)."""
        return sorted(held.start for held in self.entries.values() if not held.cancelled)

    def shown(self) -> dict[Identity, dt.datetime]:
        """Identity -> start of every entry the calendar shows."""
        return {key: held.start for key, held in self.entries.items() if not held.cancelled}


def feed_entries(body: bytes, starts: Iterable[dt.datetime]) -> list[Attached]:
    """The feed's instances at ``starts`` as a subscribed calendar keys them (``icalendar``
    expanded by ``recurring-ical-events``): UID, RECURRENCE-ID (the slot, for an instance
    of a series) and SEQUENCE; METHOD ``REQUEST``, as if the person had accepted them."""
    import icalendar
    import recurring_ical_events

    wanted = sorted({start.astimezone(dt.UTC) for start in starts})
    calendar = icalendar.Calendar.from_ical(body)
    found = []
    for start in wanted:
        (event,) = [
            one
            for one in recurring_ical_events.of(calendar).between(start, start + dt.timedelta(0, 1))
            if one["DTSTART"].dt.astimezone(dt.UTC) == start
        ]
        rid = event.get("RECURRENCE-ID")
        # recurring-ical-events names each instance of an RRULE by its slot; the master's
        # own first date and an event of its own carry none unless the feed wrote one.
        rid_value = None if rid is None else rid.dt.astimezone(dt.UTC)
        found.append(
            Attached(
                method="REQUEST",
                uid=str(event["UID"]),
                recurrence_id=rid_value,
                sequence=int(event.get("SEQUENCE", 0)),
                start=start,
                status="CONFIRMED",
                organizer=("", ""),
                attendees=(),
            )
        )
    return found


def shuffled(items: Sequence[Any], *, orders: int, seed: int) -> Iterator[list[Any]]:
    """``items`` as sent, reversed, then ``orders - 2`` seeded random permutations."""
    rng = random.Random(seed)
    yield list(items)
    yield list(reversed(items))
    for _ in range(max(0, orders - 2)):
        order = list(items)
        rng.shuffle(order)
        yield order
