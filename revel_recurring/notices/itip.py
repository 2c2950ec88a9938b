"""RFC 5546 (iTIP) calendar objects for a person's message: REQUEST and CANCEL.

Each VEVENT carries the identity the person's calendar knows the date by (UID,
RECURRENCE-ID for an instance of a series), the SEQUENCE stored for it (higher
than any sent before), the ORGANIZER and the person as ATTENDEE. Times are UTC:
the object needs no VTIMEZONE, and every consumer reads the same instants.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import icalendar
from django.utils import timezone

from ..ical.values import text_value

PRODID = "-//revel-recurring//people messages//EN"


def _instant(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value).astimezone(dt.UTC)


def _address(value: str) -> str:
    return f"mailto:{value}"


def _common_name(value: str) -> str:
    # A parameter value may be quoted but never hold a quote or a line break.
    return " ".join(text_value(value).replace('"', "'").split())


def _event(
    method: str,
    entry: Mapping[str, Any],
    organizer: Mapping[str, str],
    attendee: tuple[str, str],
    url: str,
) -> icalendar.Event:
    event = icalendar.Event()
    event.add("uid", entry["uid"])
    if entry["recurrence_id"]:
        event.add("recurrence-id", _instant(entry["recurrence_id"]))
    event.add("sequence", entry["sequence"])
    event.add("dtstamp", timezone.now().astimezone(dt.UTC))
    event.add("dtstart", _instant(entry["start"]))
    if entry["end"]:
        event.add("dtend", _instant(entry["end"]))
    event.add("summary", text_value(entry["summary"]))
    if entry["location"]:
        event.add("location", text_value(entry["location"]))
    if url:
        event.add("url", url)
    organizer_parameters = {"CN": _common_name(organizer["name"])} if organizer.get("name") else {}
    event.add(
        "organizer",
        icalendar.vCalAddress(_address(organizer.get("address") or "")),
        parameters=organizer_parameters,
    )
    address, name = attendee
    attendee_parameters = {"ROLE": "REQ-PARTICIPANT", "PARTSTAT": "ACCEPTED", "RSVP": "FALSE"}
    if name:
        attendee_parameters["CN"] = _common_name(name)
    event.add("attendee", icalendar.vCalAddress(_address(address)), parameters=attendee_parameters)
    event.add("status", "CANCELLED" if method == "CANCEL" else "CONFIRMED")
    return event


def calendar_text(
    method: str,
    entries: Sequence[Mapping[str, Any]],
    organizer: Mapping[str, str],
    attendee: tuple[str, str],
    payload: Mapping[str, Any],
) -> str:
    """One iCalendar object with ``METHOD:method`` and a VEVENT per entry (all of one UID)."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("method", method)
    url = str(payload.get("series", {}).get("url") or "")
    for entry in entries:
        calendar.add_component(_event(method, entry, organizer, attendee, url))
    text: str = calendar.to_ical().decode()
    return text
