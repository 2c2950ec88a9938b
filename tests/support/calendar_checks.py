"""Checks of what :func:`tests.support.calendar_changes.run_changes` sent, for any host.

- :func:`check_attachments`: each message's calendar parts, read by the three
  consumers alike; per VEVENT the METHOD the change calls for, its UID and
  RECURRENCE-ID (a REQUEST names the date as the feeds now export it; a CANCEL
  names what the person held), a SEQUENCE above the last one sent for that
  identity (and never below the feed's), ORGANIZER and ATTENDEE;
- :func:`check_store_in_any_order`: every VEVENT the person received, applied in
  shuffled orders to :class:`~tests.support.inbox.CalendarStore` seeded with what
  the feed gave them, leaves exactly their dates that take place.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from tests.support.calendar_changes import STEPS, Changes, feed_identities, live_starts
from tests.support.inbox import CalendarStore, Identity, shuffled
from tests.support.itip_consumers import CONSUMERS, Attached, read_attachments

#: The methods each change calls for: a change of identity cancels the one left behind.
METHODS = {
    "time": {"REQUEST", "CANCEL"},
    "cancel": {"CANCEL"},
    "split": {"REQUEST", "CANCEL"},
    "restore": {"REQUEST"},
}


def _series(changes: Changes) -> list[object]:
    return [one for one in (changes.series, changes.continuation) if one is not None]


def received_entries(changes: Changes, consumer: str) -> list[Attached]:
    """Every VEVENT the person received, in the order sent, as ``consumer`` reads them."""
    texts = [
        part.text for step in STEPS for message in changes.inbox[step] for part in message.parts
    ]
    return [entry for read in read_attachments(consumer, texts) for entry in read]


def check_attachments(
    changes: Changes, *, organizer: tuple[str, str], attendee: tuple[str, str]
) -> dict[str, int]:
    """Assert what each message's parts say (module docstring); VEVENTs per change.

    ``organizer`` and ``attendee`` are ``(address, CN)``. Called once the five
    changes are done; the identities the feeds export are compared after each
    change by :func:`expect_after_each` (the ``after_each`` of ``run_changes``).
    """
    counts: dict[str, int] = {}
    # The feed's SEQUENCE is a floor (decision 0018): a message may repeat it, not go below.
    from_feed = {entry.identity: entry.sequence for entry in changes.seed}
    last_sent: dict[Identity, int] = {}
    for step in STEPS:
        messages = changes.inbox[step]
        assert len(messages) == 1, f"{step}: {len(messages)} messages to the person, not one"
        (message,) = messages
        assert message.parts, f"{step}: a message without a calendar file"
        texts = [part.text for part in message.parts]
        readings = {consumer: read_attachments(consumer, texts) for consumer in CONSUMERS}
        first = readings[CONSUMERS[0]]
        for consumer, read in readings.items():
            assert read == first, (
                f"{step}: {consumer} reads the parts otherwise than {CONSUMERS[0]}"
            )
        methods = set()
        for part, entries in zip(message.parts, first, strict=True):
            assert part.content_type == "text/calendar"
            assert entries, f"{step}: an empty {part.method} part"
            for entry in entries:
                assert entry.method == part.method, (step, entry.method, part.method)
                assert entry.status == ("CANCELLED" if entry.method == "CANCEL" else "CONFIRMED")
                assert entry.organizer == (f"mailto:{organizer[0]}", organizer[1])
                assert entry.attendees == ((f"mailto:{attendee[0]}", attendee[1]),)
                held = last_sent.get(entry.identity)
                if held is not None:
                    assert entry.sequence > held, (step, entry.identity, entry.sequence, held)
                else:
                    floor = from_feed.get(entry.identity, 0)
                    assert entry.sequence >= floor, (step, entry.identity, entry.sequence, floor)
                last_sent[entry.identity] = entry.sequence
                methods.add(entry.method)
        if step in METHODS:
            assert methods == METHODS[step], (step, methods)
        else:
            assert "REQUEST" in methods, (step, methods)
        counts[step] = sum(len(entries) for entries in first)
    return counts


def expect_after_each(name: str, changes: Changes) -> None:
    """After each change, the person's calendar fed the messages in the order sent shows
    exactly their live dates, under the identities the feeds now export them by."""
    store = CalendarStore(changes.seed)
    for step in STEPS:
        for message in changes.inbox.get(step, ()):
            read = read_attachments(CONSUMERS[0], [part.text for part in message.parts])
            store.apply_all(entry for entries in read for entry in entries)
        if step == name:
            break
    exported = feed_identities(_series(changes), changes.booked.pks)  # type: ignore[arg-type]
    assert store.shown() == exported, name


def check_store_in_any_order(
    changes: Changes, *, orders: int = 60, seed: int = 36
) -> tuple[int, list[dt.datetime]]:
    """Assert the store's dates after every order; the number of VEVENTs and the dates."""
    expected = live_starts(changes.booked.pks)
    entries: Sequence[Attached] = received_entries(changes, CONSUMERS[0])
    for number, order in enumerate(shuffled(entries, orders=orders, seed=seed)):
        store = CalendarStore(changes.seed).apply_all(order)
        assert store.dates() == expected, (
            f"order {number}: {[(e.method, e.sequence) for e in order]}"
        )
    return len(entries), expected
