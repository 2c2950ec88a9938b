"""A person's message, from their notice: subject, text and calendar attachments.

Written in the person's language (their ``language``, else ``LANGUAGE_CODE``)
with every date on their wall clock (their ``timezone``, else the series' zone).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..adapter import get_adapter
from ..instants import describe_instant
from ..models import PersonNotice
from .itip import calendar_text


@dataclass(frozen=True)
class PersonMessage:
    """One message to one person, as the delivery (e-mail or the host's) receives it.

    ``attachments`` are ``(filename, text, method)``: one iCalendar object per
    method and UID (``REQUEST`` for dates they keep, ``CANCEL`` for dates gone from
    their calendar; RFC 5546 wants one UID in each, however many of its dates).
    ``message_id`` is the same for every attempt at this message, so a repeat after
    a crash is recognisable; ``key`` names the notice ("operation:address") for a
    host's own de-duplication.
    """

    key: str
    address: str
    name: str
    language: str
    subject: str
    body: str
    attachments: tuple[tuple[str, str, str], ...]
    message_id: str
    from_address: str
    from_name: str
    payload: dict[str, Any]


def _zone(notice: PersonNotice) -> str:
    return notice.timezone or str(notice.payload.get("zone") or "UTC")


def _when(value: str | None, zone: str) -> str:
    if not value:
        return ""
    return describe_instant(dt.datetime.fromisoformat(value), zone)


def _line(date: dict[str, Any], zone: str) -> str:
    before, after = _when(date["before"], zone), _when(date["after"], zone)
    kind = date["kind"]
    if kind == "cancelled":
        return _("%(before)s: cancelled") % {"before": before}
    if kind == "restored":
        return _("%(after)s: takes place again") % {"after": after}
    if kind == "moved":
        return _("%(before)s: moved to %(after)s") % {"before": before, "after": after}
    return _("%(after)s: unchanged; your calendar entry is renewed") % {"after": after}


def _enrolment_subject(notice: PersonNotice) -> str:
    booked = sum(1 for date in notice.payload["dates"] if date["kind"] == "booked")
    values = {"series": notice.payload["series"]["name"], "count": booked}
    if not booked:
        return _("%(series)s: dates could not be booked for you") % values
    return (
        ngettext(
            "%(series)s: %(count)d new date booked for you",
            "%(series)s: %(count)d new dates booked for you",
            booked,
        )
        % values
    )


def _enrolment_body(notice: PersonNotice, lines: list[str], zone: str) -> list[str]:
    """The lines of a message to an enrolled user: the dates booked, then those refused."""
    payload = notice.payload
    booked = [date for date in payload["dates"] if date["kind"] == "booked"]
    refused = [date for date in payload["dates"] if date["kind"] == "refused"]
    values = {"series": payload["series"]["name"], "count": len(booked)}
    if booked:
        lines += [
            ngettext(
                "You are enrolled in %(series)s, so this new date is booked for you:",
                "You are enrolled in %(series)s, so these %(count)d new dates are booked for you:",
                len(booked),
            )
            % values,
            "",
        ]
        lines += [f"- {_when(date['after'], zone)}" for date in booked]
        lines += [""]
    if refused:
        lines += [
            ngettext(
                "This date of %(series)s could not be booked for you:",
                "These dates of %(series)s could not be booked for you:",
                len(refused),
            )
            % values,
            "",
        ]
        lines += [
            f"- {_when(date['after'], zone)}: {date.get('reason') or _('not available')}"
            for date in refused
        ]
        lines += [""]
    return lines


def _subject(notice: PersonNotice) -> str:
    if notice.payload.get("kind") == "enrolment":
        return _enrolment_subject(notice)
    count = len(notice.payload["dates"])
    return ngettext(
        "%(series)s: %(count)d of your dates changed",
        "%(series)s: %(count)d of your dates changed",
        count,
    ) % {"series": notice.payload["series"]["name"], "count": count}


def _body(notice: PersonNotice) -> str:
    payload = notice.payload
    zone = _zone(notice)
    organizer = payload["organizer"].get("name") or payload["organizer"].get("address") or ""
    count = len(payload["dates"])
    lines = [
        _("Hello %(name)s,") % {"name": notice.name} if notice.name else _("Hello,"),
        "",
    ]
    if payload.get("kind") == "enrolment":
        lines = _enrolment_body(notice, lines, zone)[:-1]
    else:
        lines += _change_lines(payload, organizer, count, zone)
    if payload["request"] or payload["cancel"]:
        lines += ["", _("The attached calendar file brings your calendar up to date.")]
    url = payload["series"].get("url")
    if url:
        lines += ["", _("All dates: %(url)s") % {"url": url}]
    return "\n".join(lines)


def _change_lines(payload: dict[str, Any], organizer: str, count: int, zone: str) -> list[str]:
    lines = [
        ngettext(
            "%(organizer)s changed a date of %(series)s that you are booked on:",
            "%(organizer)s changed %(count)d dates of %(series)s that you are booked on:",
            count,
        )
        % {"organizer": organizer, "series": payload["series"]["name"], "count": count},
        "",
    ]
    lines += [f"- {_line(date, zone)}" for date in payload["dates"]]
    return lines


def new_message_id(operation_id: Any, address: str) -> str:
    """The Message-ID of the message an operation owes ``address``, from both alone.

    Fixed when the notice is written (its payload's ``message_id``): every attempt,
    in whichever process, sends the same one, even if the UID domain changed since.
    """
    digest = hashlib.sha256(address.casefold().encode()).hexdigest()[:16]
    return f"<revel-recurring-{operation_id}-{digest}@{get_adapter().get_ical_uid_domain()}>"


def message_id(notice: PersonNotice) -> str:
    """The Message-ID of ``notice``'s message: the same for every attempt to send it."""
    fixed = notice.payload.get("message_id")
    if fixed:
        return str(fixed)
    # A notice written before the payload kept it.
    return new_message_id(notice.operation_id, notice.address)


def compose(notice: PersonNotice) -> PersonMessage:
    """The message ``notice`` owes its person, in their language and zone."""
    language = notice.language or settings.LANGUAGE_CODE
    with translation.override(language):
        subject, body = _subject(notice), _body(notice)
    payload = notice.payload
    attendee = (notice.address, notice.name)
    attachments = []
    for method, entries, name in (
        ("CANCEL", payload["cancel"], "cancel"),
        ("REQUEST", payload["request"], "invite"),
    ):
        by_uid: dict[str, list[dict[str, Any]]] = {}
        for entry in entries:
            by_uid.setdefault(entry["uid"], []).append(entry)
        for number, group in enumerate(by_uid.values(), start=1):
            text = calendar_text(method, group, payload["organizer"], attendee, payload)
            filename = f"{name}.ics" if len(by_uid) == 1 else f"{name}-{number}.ics"
            attachments.append((filename, text, method))
    return PersonMessage(
        key=f"{notice.operation_id}:{notice.address.casefold()}",
        address=notice.address,
        name=notice.name,
        language=language,
        subject=subject,
        body=body,
        attachments=tuple(attachments),
        message_id=message_id(notice),
        from_address=payload["organizer"].get("address") or "",
        from_name=payload["organizer"].get("name") or "",
        payload=payload,
    )
