"""The people's calendar messages (RFC 5546) read by the three consumers of the feed tests.

:mod:`tests.support.feed_consumers` holds the three readers the feeds are held
to; a message's calendar attachment is read by the same three, as a mail
client's calendar reads an invitation:

- ``recurring-ical-events``: the ``icalendar`` package it expands with;
- ``ical``: the package Home Assistant uses;
- ``ical.js``: Mozilla's library, run by node (``tests/js/itip.mjs``).

Each answers, per text, the VEVENTs it holds as :class:`Attached` entries: the
object's METHOD, the identity (UID, RECURRENCE-ID), SEQUENCE, start, STATUS,
ORGANIZER and ATTENDEEs (``mailto:`` address and CN). Nothing here imports
``revel_recurring``: the readings are the consumers' own.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.feed_consumers import CONSUMERS, INSTALL_HINT, JS_DIR

__all__ = ["CONSUMERS", "Attached", "read_attachments"]

Address = tuple[str, str]


@dataclass(frozen=True)
class Attached:
    """One VEVENT of a calendar message as a consumer reads it; instants in UTC."""

    method: str
    uid: str
    recurrence_id: dt.datetime | None
    sequence: int
    start: dt.datetime
    status: str
    organizer: Address
    attendees: tuple[Address, ...]

    @property
    def identity(self) -> tuple[str, dt.datetime | None]:
        """What a calendar keys the entry by (RFC 5546 section 2.1.5)."""
        return (self.uid, self.recurrence_id)


def read_attachments(consumer: str, texts: Sequence[str]) -> list[list[Attached]]:
    """The VEVENTs of each of ``texts`` (iCalendar objects) as ``consumer`` reads them."""
    if consumer == "ical.js":
        return _ical_js(texts)
    if consumer == "recurring-ical-events":
        return [_icalendar(text) for text in texts]
    if consumer == "ical":
        return [_ical(text) for text in texts]
    raise ValueError(f"unknown consumer {consumer!r}; choose one of {CONSUMERS}")


def _utc(value: Any) -> dt.datetime:
    assert isinstance(value, dt.datetime), f"a date without a time: {value!r}"
    assert value.tzinfo is not None, f"a floating time: {value!r}"
    return value.astimezone(dt.UTC)


def _icalendar(text: str) -> list[Attached]:
    import icalendar

    calendar = icalendar.Calendar.from_ical(text)
    method = str(calendar.get("METHOD", ""))

    def address(value: Any) -> Address:
        return (str(value), str(value.params.get("CN", "")))

    found = []
    for event in calendar.walk("VEVENT"):
        rid = event.get("RECURRENCE-ID")
        attendees = event.get("ATTENDEE", [])
        if not isinstance(attendees, list):
            attendees = [attendees]
        found.append(
            Attached(
                method=method,
                uid=str(event["UID"]),
                recurrence_id=None if rid is None else _utc(rid.dt),
                sequence=int(event.get("SEQUENCE", 0)),
                start=_utc(event["DTSTART"].dt),
                status=str(event.get("STATUS", "")),
                organizer=address(event["ORGANIZER"]),
                attendees=tuple(address(one) for one in attendees),
            )
        )
    return found


def _ical_instant(value: str) -> dt.datetime:
    # The package keeps RECURRENCE-ID as the property's text.
    return _utc(dt.datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.UTC))


def _ical(text: str) -> list[Attached]:
    from ical.calendar_stream import IcsCalendarStream

    calendar = IcsCalendarStream.calendar_from_ics(text)
    found = []
    for event in calendar.events:
        organizer = event.organizer
        assert organizer is not None, f"no ORGANIZER in {event.uid}"
        found.append(
            Attached(
                method=str(calendar.method or ""),
                uid=str(event.uid),
                recurrence_id=(
                    None if event.recurrence_id is None else _ical_instant(event.recurrence_id)
                ),
                sequence=int(event.sequence or 0),
                start=_utc(event.dtstart),
                status="" if event.status is None else str(event.status.value),
                organizer=(organizer.uri, organizer.common_name or ""),
                attendees=tuple((one.uri, one.common_name or "") for one in event.attendees),
            )
        )
    return found


def _ical_js(texts: Sequence[str]) -> list[list[Attached]]:
    node = shutil.which("node")
    if node is None:
        pytest.fail(f"node is not installed: the ical.js consumer needs it ({INSTALL_HINT})")
    if not (JS_DIR / "node_modules" / "ical.js" / "package.json").is_file():
        pytest.fail(f"ical.js is not installed in {JS_DIR}: run `{INSTALL_HINT}`")
    done = subprocess.run(
        [node, str(JS_DIR / "itip.mjs")],
        input=json.dumps(list(texts)),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if done.returncode != 0:
        pytest.fail(f"ical.js could not read the messages:\n{done.stderr}")

    def instant(value: str | None) -> dt.datetime | None:
        return None if value is None else dt.datetime.fromisoformat(value).astimezone(dt.UTC)

    read = []
    for message in json.loads(done.stdout):
        entries = []
        for event in message["events"]:
            start = instant(event["start"])
            assert start is not None
            entries.append(
                Attached(
                    method=str(message["method"] or ""),
                    uid=event["uid"],
                    recurrence_id=instant(event["recurrence_id"]),
                    sequence=int(event["sequence"] or 0),
                    start=start,
                    status=event["status"],
                    organizer=tuple(event["organizer"]),
                    attendees=tuple(tuple(one) for one in event["attendees"]),
                )
            )
        read.append(entries)
    return read
