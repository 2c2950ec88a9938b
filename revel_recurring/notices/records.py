"""Writing an operation's notices: one per person, with the calendar entries it carries.

Runs inside the change's transaction, so a rolled-back change leaves neither a
notice nor a moved calendar copy. Each person's SEQUENCE for an identity is the
stored one plus one, and never below the feeds' derived SEQUENCE of the series
(docs/decisions/0018): a calendar that took the date from a feed replaces it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, connections, router

from ..adapter import DefaultRecurringAdapter
from ..models import CalendarCopy, EventSeries, PersonNotice, SeriesOperation, get_event_model
from ..people import BookedPerson
from .changes import DateChange
from .compose import new_message_id
from .links import organizer_of, series_link
from .rows import Identity, RowState

# RFC 5545 SEQUENCE is a 32-bit signed INTEGER.
_MAX_SEQUENCE = 2**31 - 1
#: People read and written per batch of calendar copies (bounded IN lists).
PEOPLE_PER_BATCH = 500
#: (person, identity) pairs per read of :meth:`Sequences.of_pairs` (two parameters each;
#: SQLite before 3.32 takes at most 999).
PAIRS_PER_READ = 450


@dataclass
class OperationFacts:
    """What an operation says of itself, for its record and its signal."""

    kind: str
    series: EventSeries
    plan_hash: str = ""
    notify: str = "all"
    now: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    #: Who acts and through what, as the record's columns (actor, actor_name, face, batch_id).
    acting: dict[str, Any] = field(default_factory=dict)


def iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.astimezone(dt.UTC).isoformat()


def base_sequence(series: EventSeries, now: dt.datetime) -> int:
    seconds = int((now - series.created_at).total_seconds())
    return max(0, min(seconds, _MAX_SEQUENCE))


class Sequences:
    """The SEQUENCE last sent per (person, identity), and the copies each row stands for."""

    def __init__(self, keys: Sequence[str], pks: Sequence[str], identities: set[str]) -> None:
        """Read the copies of ``keys`` under ``identities``, and those standing for rows ``pks``."""
        self.sent: dict[tuple[str, str], int] = {}
        self.held: dict[tuple[str, str], Identity] = {}
        self.written: dict[tuple[str, str], CalendarCopy] = {}
        for address, identity, sequence in CalendarCopy.objects.filter(
            address__in=keys, identity__in=identities
        ).values_list("address", "identity", "sequence"):
            self.sent[(address, identity)] = sequence
        for copy in CalendarCopy.objects.filter(
            address__in=keys, occurrence_pk__in=pks, cancelled=False
        ):
            self.sent[(copy.address, copy.identity)] = copy.sequence
            self.held[(copy.address, copy.occurrence_pk)] = Identity(copy.uid, copy.recurrence_id)

    @classmethod
    def of_pairs(cls, pairs: Iterable[tuple[str, Identity]]) -> Sequences:
        """The SEQUENCEs last sent of exactly these (person, identity) pairs; no copies by row.

        For a writer that sends each row under the identity the feeds give it now
        and never asks what a person holds a row as (:attr:`held`). One statement
        per ``PAIRS_PER_READ`` pairs, a row-value ``IN`` that the unique index on
        (address, identity) answers by probes, where ``address IN (...) AND
        identity IN (...)`` leads PostgreSQL's planner to read the whole table.
        """
        sequences = cls((), (), set())
        wanted = sorted({(key, identity.key) for key, identity in pairs})
        alias = router.db_for_write(CalendarCopy)
        quote = connections[alias].ops.quote_name
        table = quote(CalendarCopy._meta.db_table)
        columns = {field.name: str(field.column) for field in CalendarCopy._meta.concrete_fields}
        address, identity, sequence = (
            quote(columns[name]) for name in ("address", "identity", "sequence")
        )
        with connections[alias].cursor() as cursor:
            for start in range(0, len(wanted), PAIRS_PER_READ):
                part = wanted[start : start + PAIRS_PER_READ]
                rows = ", ".join(["(%s, %s)"] * len(part))
                cursor.execute(
                    f"SELECT {address}, {identity}, {sequence} FROM {table} "
                    f"WHERE ({address}, {identity}) IN ({rows})",
                    [value for pair in part for value in pair],
                )
                for key, name, number in cursor.fetchall():
                    sequences.sent[(key, name)] = number
        return sequences

    def next(self, key: str, identity: Identity, base: int) -> int:
        number = max(self.sent.get((key, identity.key), -1) + 1, base)
        self.sent[(key, identity.key)] = number
        return number

    def keep(
        self, key: str, identity: Identity, pk: str, sequence: int, *, cancelled: bool
    ) -> None:
        self.written[(key, identity.key)] = CalendarCopy(
            address=key,
            uid=identity.uid,
            recurrence_id=identity.recurrence_id,
            identity=identity.key,
            occurrence_pk=pk,
            sequence=sequence,
            cancelled=cancelled,
        )


def calendar_entry(
    identity: Identity, sequence: int, row: Mapping[str, Any], start: dt.datetime
) -> dict[str, Any]:
    length = row["length"]
    return {
        "uid": identity.uid,
        "recurrence_id": iso(identity.recurrence_id),
        "sequence": sequence,
        "start": iso(start),
        "end": iso(start + dt.timedelta(seconds=length)) if length is not None else None,
        "summary": row["summary"],
        "location": row["location"],
    }


def row_facts(
    adapter: DefaultRecurringAdapter,
    changes: Sequence[DateChange | RowState],
    series: Mapping[int, EventSeries],
    *,
    loaded: Mapping[Any, Any] | None = None,
) -> dict[Any, dict[str, Any]]:
    """Summary, location and length of each changed row, read in one query.

    ``loaded`` (primary key -> host event) are rows the caller holds with every
    column (the occurrences a generation run just inserted): they are not read again.
    """
    model = get_event_model()
    held = {
        pk: event
        for pk, event in (loaded or {}).items()
        if event.pk is not None and not event.get_deferred_fields()
    }
    wanted = [c.pk for c in changes if c.pk not in held]
    events = [held[c.pk] for c in changes if c.pk in held]
    if wanted:
        events += list(model._base_manager.filter(pk__in=wanted).order_by())
    facts: dict[Any, dict[str, Any]] = {}
    for event in events:
        one = series.get(event.series_id or 0) or series[next(iter(series))]
        duration = event.occurrence_duration()
        facts[event.pk] = {
            "summary": adapter.get_ical_summary(event, one),
            "location": adapter.get_ical_location(event, one),
            "length": None if duration is None else int(duration.total_seconds()),
        }
    return facts


def _person_entries(
    person: BookedPerson,
    changes: Sequence[DateChange],
    facts: Mapping[Any, Mapping[str, Any]],
    sequences: Sequences,
    base: int,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The person's dates, and the REQUEST and CANCEL entries that bring their calendar along."""
    key = person.key
    dates: list[dict[str, Any]] = []
    request: list[dict[str, Any]] = []
    cancel: list[dict[str, Any]] = []
    for change in changes:
        pk = str(change.pk)
        row = facts.get(change.pk)
        if row is None:
            row = {"summary": "", "location": "", "length": None}
        after = change.after
        stored = sequences.held.get((key, pk))
        held = stored if stored is not None else change.before.identity
        # A cancelled date was taken out of their calendar when it was cancelled.
        holds_it = stored is not None or change.before.status != "cancelled"
        dates.append(
            {
                "pk": pk,
                "kind": change.kind,
                "summary": row["summary"],
                "before": iso(change.before.start),
                "after": None if after is None else iso(after.start),
            }
        )
        gone = after is None or after.status == "cancelled"
        if holds_it and (after is None or gone or held != after.identity):
            number = sequences.next(key, held, base)
            cancel.append(calendar_entry(held, number, row, change.before.start))
            sequences.keep(key, held, pk, number, cancelled=True)
        if not gone:
            assert after is not None
            number = sequences.next(key, after.identity, base)
            request.append(calendar_entry(after.identity, number, row, after.start))
            sequences.keep(key, after.identity, pk, number, cancelled=False)
    return dates, request, cancel


def save_copies(copies: Iterable[CalendarCopy]) -> None:
    copies = list(copies)
    if not copies:
        return
    options: dict[str, Any] = {
        "update_conflicts": True,
        "update_fields": [
            "uid",
            "recurrence_id",
            "occurrence_pk",
            "sequence",
            "cancelled",
            "updated_at",
        ],
    }
    # MySQL and MariaDB take the conflict from any unique key and refuse a target.
    if connection.features.supports_update_conflicts_with_target:
        options["unique_fields"] = ["address", "identity"]
    now = dt.datetime.now(dt.UTC)
    for copy in copies:
        copy.updated_at = now
    CalendarCopy.objects.bulk_create(copies, batch_size=500, **options)


def record_notices(
    facts: OperationFacts,
    changes: Sequence[DateChange],
    people: Mapping[Any, Sequence[BookedPerson]],
    series: Mapping[int, EventSeries],
    adapter: DefaultRecurringAdapter,
    *,
    operation: SeriesOperation | None = None,
) -> SeriesOperation | None:
    """Write one notice per person booked on ``changes`` under ``operation``; None for nobody.

    ``people`` is the host's answer (primary key -> people booked). ``operation``
    is the operation's record when the site keeps a history; without one, the
    record is written here, and only when someone is booked on a changed date.
    """
    by_person: dict[str, tuple[BookedPerson, list[DateChange]]] = {}
    for change in changes:
        for person in people.get(change.pk, ()):
            if not person.key:
                continue
            by_person.setdefault(person.key, (person, []))[1].append(change)
    if not by_person:
        return None
    if operation is None:
        operation = SeriesOperation.objects.create(
            kind=facts.kind,
            series=facts.series,
            series_ref=facts.series.pk,
            series_name=facts.series.name[:200],
            plan_hash=facts.plan_hash,
            notify=facts.notify,
            created_at=facts.now,
            **facts.acting,
        )
    by_row = row_facts(adapter, changes, series)
    organizer = organizer_of(adapter, facts.series)
    link = series_link(adapter, facts.series)
    rule = facts.series.recurrence_rule if facts.series.recurrence_rule_id else None
    zone = str(rule.timezone) if rule is not None else "UTC"
    base = base_sequence(facts.series, facts.now)
    keys = sorted(by_person)
    for start in range(0, len(keys), PEOPLE_PER_BATCH):
        batch = keys[start : start + PEOPLE_PER_BATCH]
        pks = sorted({str(c.pk) for key in batch for c in by_person[key][1]})
        identities = {
            state.identity.key
            for key in batch
            for change in by_person[key][1]
            for state in (change.before, change.after)
            if state is not None
        }
        sequences = Sequences(batch, pks, identities)
        notices = []
        for key in batch:
            person, theirs = by_person[key]
            dates, request, cancel = _person_entries(person, theirs, by_row, sequences, base)
            notices.append(
                PersonNotice(
                    operation=operation,
                    address=person.address[:254],
                    name=person.name[:200],
                    language=person.language[:16],
                    timezone=person.timezone[:64],
                    payload={
                        "message_id": new_message_id(operation.pk, person.address[:254]),
                        "kind": facts.kind,
                        "series": {"id": facts.series.pk, "name": facts.series.name, "url": link},
                        "zone": zone,
                        "organizer": {"address": organizer.address, "name": organizer.name},
                        "dates": dates,
                        "request": request,
                        "cancel": cancel,
                    },
                )
            )
        PersonNotice.objects.bulk_create(notices, batch_size=500)
        save_copies(sequences.written.values())
    return operation
