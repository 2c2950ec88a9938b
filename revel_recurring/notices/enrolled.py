"""Writing the messages owed to enrolled users: one per user per batch of dates booked.

"3 new dates booked for you", with the dates that could not be booked and why,
written in the batch's transaction as a ``SeriesOperation`` of kind "enrolment"
with one ``PersonNotice`` per user; sent after commit by the same delivery as the
messages to booked people. Each booked date travels as a REQUEST for the identity
the feeds give it, and is stored as the user's calendar copy, so a later move or
cancellation of the date replaces it in their calendar.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..adapter import DefaultRecurringAdapter
from ..models import EventSeries, PersonNotice, SeriesOperation
from ..people import BookedPerson
from .compose import new_message_id
from .links import organizer_of, series_link
from .records import Sequences, base_sequence, calendar_entry, iso, row_facts, save_copies
from .rows import RowState

#: The ``SeriesOperation.kind`` of a batch of dates booked for enrolled users.
ENROLMENT_KIND = "enrolment"


@dataclass
class UserDates:
    """One user's share of a batch: the rows booked for them and those refused, with why."""

    person: BookedPerson
    booked: list[RowState] = field(default_factory=list)
    refused: list[tuple[RowState, str]] = field(default_factory=list)


def record_enrolment_notices(
    series: EventSeries,
    users: Mapping[str, UserDates],
    adapter: DefaultRecurringAdapter,
    *,
    now: dt.datetime,
) -> SeriesOperation | None:
    """Write the batch's operation and one notice per user; None when nobody is owed one."""
    owed = {
        key: one for key, one in users.items() if one.person.key and (one.booked or one.refused)
    }
    if not owed:
        return None
    operation = SeriesOperation.objects.create(
        kind=ENROLMENT_KIND,
        series=series,
        series_name=series.name,
        notify="all",
        created_at=now,
    )
    states = {state.pk: state for one in owed.values() for state in _states(one)}
    facts = row_facts(adapter, list(states.values()), {series.pk: series})
    organizer = organizer_of(adapter, series)
    link = series_link(adapter, series)
    rule = series.recurrence_rule if series.recurrence_rule_id else None
    zone = str(rule.timezone) if rule is not None else "UTC"
    base = base_sequence(series, now)
    keys = sorted({one.person.key for one in owed.values()})
    sequences = Sequences(
        keys,
        sorted({str(pk) for pk in states}),
        {state.identity.key for state in states.values()},
    )
    notices = []
    for one in sorted(owed.values(), key=lambda u: u.person.key):
        person = one.person
        dates: list[dict[str, Any]] = []
        request: list[dict[str, Any]] = []
        for state in sorted(one.booked, key=lambda s: s.start):
            row = facts.get(state.pk) or {"summary": "", "location": "", "length": None}
            dates.append(_date(state, row, "booked", ""))
            number = sequences.next(person.key, state.identity, base)
            request.append(calendar_entry(state.identity, number, row, state.start))
            sequences.keep(person.key, state.identity, str(state.pk), number, cancelled=False)
        for state, reason in sorted(one.refused, key=lambda pair: pair[0].start):
            row = facts.get(state.pk) or {"summary": "", "location": "", "length": None}
            dates.append(_date(state, row, "refused", reason))
        notices.append(
            PersonNotice(
                operation=operation,
                address=person.address[:254],
                name=person.name[:200],
                language=person.language[:16],
                timezone=person.timezone[:64],
                payload={
                    "message_id": new_message_id(operation.pk, person.address[:254]),
                    "kind": ENROLMENT_KIND,
                    "series": {"id": series.pk, "name": series.name, "url": link},
                    "zone": zone,
                    "organizer": {"address": organizer.address, "name": organizer.name},
                    "dates": dates,
                    "request": request,
                    "cancel": [],
                },
            )
        )
    PersonNotice.objects.bulk_create(notices, batch_size=500)
    save_copies(sequences.written.values())
    return operation


def _states(one: UserDates) -> Sequence[RowState]:
    return [*one.booked, *(state for state, _reason in one.refused)]


def _date(state: RowState, row: Mapping[str, Any], kind: str, reason: str) -> dict[str, Any]:
    return {
        "pk": str(state.pk),
        "kind": kind,
        "summary": row["summary"],
        "before": None,
        "after": iso(state.start),
        "reason": reason,
    }
