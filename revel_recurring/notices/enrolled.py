"""Writing the messages owed to enrolled users: one per user per batch of dates booked.

"3 new dates booked for you", with the dates that could not be booked and why,
written in the batch's transaction as one ``SeriesOperation`` of kind "enrolment"
per series with one ``PersonNotice`` per user and series, in statements that do
not grow with the batch's series; sent after commit by the same delivery as the
messages to booked people. Each booked date travels as a REQUEST for the identity
the feeds give it, and is stored as the user's calendar copy, so a later move or
cancellation of the date replaces it in their calendar.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import JSONField, Value

from ..adapter import DefaultRecurringAdapter
from ..models import EventSeries, PersonNotice, SeriesOperation
from ..people import BookedPerson
from .compose import new_message_id
from .links import organizer_of, series_link
from .records import (
    PEOPLE_PER_BATCH,
    Sequences,
    base_sequence,
    calendar_entry,
    iso,
    row_facts,
    save_copies,
)
from .rows import RowState

#: The ``SeriesOperation.kind`` of a batch of dates booked for enrolled users.
ENROLMENT_KIND = "enrolment"
#: The facts of a row deleted since it was booked.
_NO_FACTS: Mapping[str, Any] = {"summary": "", "location": "", "length": None}


@dataclass
class UserDates:
    """One user's share of a batch: the rows booked for them and those refused, with why."""

    person: BookedPerson
    booked: list[RowState] = field(default_factory=list)
    refused: list[tuple[RowState, str]] = field(default_factory=list)


@dataclass
class SeriesShare:
    """One series' share of a batch: the series and what each of its users is owed."""

    series: EventSeries
    users: Mapping[str, UserDates]


def record_enrolment_notices(
    shares: Sequence[SeriesShare],
    adapter: DefaultRecurringAdapter,
    *,
    now: dt.datetime,
    loaded: Mapping[Any, Any] | None = None,
) -> dict[int, SeriesOperation]:
    """Write one operation per series and one notice per user and series; series pk -> operation.

    A series none of whose users is owed anything gets no operation. The statements
    do not grow with the series: one INSERT of all operations (their keys set
    here), one read of the rows' facts (none for the rows in ``loaded``, primary
    key -> host event with every column: a generation run's new rows), then per
    ``PEOPLE_PER_BATCH`` people one read of their calendar copies, one INSERT of
    their notices and one upsert of their copies.
    """
    owed = [
        (share.series, mine)
        for share in shares
        if (
            mine := {
                key: one
                for key, one in share.users.items()
                if one.person.key and (one.booked or one.refused)
            }
        )
    ]
    if not owed:
        return {}
    operations = {
        series.pk: SeriesOperation(
            id=uuid.uuid4(),
            kind=ENROLMENT_KIND,
            series=series,
            series_ref=series.pk,
            series_name=series.name[:200],
            notify="all",
            created_at=now,
        )
        for series, _mine in owed
    }
    SeriesOperation.objects.bulk_create(operations.values(), batch_size=500)
    states = {
        state.pk: state for _s, mine in owed for one in mine.values() for state in _states(one)
    }
    facts = row_facts(
        adapter,
        list(states.values()),
        {series.pk: series for series, _m in owed},
        loaded=loaded,
    )
    heads = {series.pk: _Head.of(series, adapter, now) for series, _mine in owed}
    # Every (series, user) notice, grouped by person: a batch of people reads and
    # writes their calendar copies once, whichever series their dates are in.
    by_person: dict[str, list[tuple[EventSeries, UserDates]]] = {}
    for series, mine in owed:
        for one in mine.values():
            by_person.setdefault(one.person.key, []).append((series, one))
    keys = sorted(by_person)
    for start in range(0, len(keys), PEOPLE_PER_BATCH):
        batch = keys[start : start + PEOPLE_PER_BATCH]
        # Each booked date is sent under the identity the feeds give it now: only
        # those (person, identity) pairs' SEQUENCEs are read, no copies by row.
        sequences = Sequences.of_pairs(
            (key, state.identity)
            for key in batch
            for _s, one in by_person[key]
            for state in one.booked
        )
        notices = [
            _notice(operations[series.pk], heads[series.pk], one, facts, sequences)
            for key in batch
            for series, one in by_person[key]
        ]
        PersonNotice.objects.bulk_create(notices, batch_size=500)
        save_copies(sequences.written.values())
    return operations


@dataclass(frozen=True)
class _Head:
    """What every notice of one series says of it: computed once per series, no query."""

    series: dict[str, Any]
    zone: str
    organizer: dict[str, str]
    base: int

    @classmethod
    def of(cls, series: EventSeries, adapter: DefaultRecurringAdapter, now: dt.datetime) -> _Head:
        rule = series.recurrence_rule if series.recurrence_rule_id else None
        organizer = organizer_of(adapter, series)
        return cls(
            series={"id": series.pk, "name": series.name, "url": series_link(adapter, series)},
            zone=str(rule.timezone) if rule is not None else "UTC",
            organizer={"address": organizer.address, "name": organizer.name},
            base=base_sequence(series, now),
        )


def _notice(
    operation: SeriesOperation,
    head: _Head,
    one: UserDates,
    facts: Mapping[Any, Mapping[str, Any]],
    sequences: Sequences,
) -> PersonNotice:
    """One user's notice of one series: their dates, and a REQUEST for each booked one."""
    person = one.person
    dates: list[dict[str, Any]] = []
    request: list[dict[str, Any]] = []
    for state in sorted(one.booked, key=lambda s: s.start):
        row = facts.get(state.pk) or _NO_FACTS
        dates.append(_date(state, row, "booked", ""))
        number = sequences.next(person.key, state.identity, head.base)
        request.append(calendar_entry(state.identity, number, row, state.start))
        sequences.keep(person.key, state.identity, str(state.pk), number, cancelled=False)
    for state, reason in sorted(one.refused, key=lambda pair: pair[0].start):
        row = facts.get(state.pk) or _NO_FACTS
        dates.append(_date(state, row, "refused", reason))
    return PersonNotice(
        operation=operation,
        address=person.address[:254],
        name=person.name[:200],
        language=person.language[:16],
        timezone=person.timezone[:64],
        payload=_Payload(
            {
                "message_id": new_message_id(operation.pk, person.address[:254]),
                "kind": ENROLMENT_KIND,
                "series": dict(head.series),
                "zone": head.zone,
                "organizer": dict(head.organizer),
                "dates": dates,
                "request": request,
                "cancel": [],
            },
            JSONField(),
        ),
    )


class _Payload(Value):
    """A notice's payload as a value of the INSERT, not an element of an array.

    PostgreSQL's bulk INSERT of plain values sends each column as one array
    (``UNNEST``), and psycopg escapes every quote of every element in Python: a
    JSON payload is mostly quotes, so a chunk's notices cost twice as long to send
    that way as spelled out row by row, which an expression among the values asks for.
    """


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
