"""One operation on series' dates: its rows read before and after, its people told once.

Every service that moves, cancels or restores dates runs its writes inside
:func:`dates_operation`, in its own transaction and under the series lock. The
outermost one reads the future rows of its series on entry; on leaving, it reads
them again, asks the host once who is booked on the rows that changed, writes
one notice per person (unless told ``notify="none"``) and, after commit, sends
``series_dates_changed``, whose app receiver queues the messages. Operations
nest: a service called by another adds its series to the caller's operation.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from ...adapter import get_adapter
from ...conf import recurring_settings
from ...context import current_acting, listening_for_locks, recording
from ...exceptions import InvalidArgumentError
from ...mixins import RecurringEventMixin
from ...models import EventSeries, SeriesOperation, get_event_model
from ...notices.changes import DateChange, date_changes
from ...notices.records import OperationFacts, record_notices
from ...notices.rows import RowState, read_rows, read_rows_by_pk, states_of
from ...records.rows import row_changes
from ...signals import series_dates_changed
from .enrolled import book_enrolled_rows, follow_moves
from .history import close_record, history_on, open_record
from .webhooks import queue_deliveries

logger = logging.getLogger(__name__)

#: The values ``notify`` takes: everyone booked on a changed date, or nobody.
NOTIFY_CHOICES = ("all", "none")


def notify_mode(value: object) -> str:
    """``value`` as "all" or "none"; None means the site's ``REVEL_RECURRING_NOTIFY_PEOPLE``."""
    if value is None or value == "":
        return recurring_settings.NOTIFY_PEOPLE
    if isinstance(value, bool):
        return "all" if value else "none"
    if value not in NOTIFY_CHOICES:
        raise InvalidArgumentError(f"notify must be 'all' or 'none', got {value!r}", field="notify")
    return str(value)


@dataclass
class DatesOperation:
    """The operation being written: its series and their rows as they were on entry.

    ``record`` is its history record, inserted on entry when the site keeps a
    history (``REVEL_RECURRING_HISTORY``), filled in by :meth:`finish`; without a
    history, the record of the people told, written by :meth:`finish` when
    someone booked is told. ``all_rows`` watches past rows too (a deletion).
    """

    facts: OperationFacts
    before: dict[Any, RowState] = field(default_factory=dict)
    series: dict[int, EventSeries] = field(default_factory=dict)
    changes: list[DateChange] = field(default_factory=list)
    record: SeriesOperation | None = None
    all_rows: bool = False
    edited: set[Any] = field(default_factory=set)
    notices_written: bool = False
    #: False: the operation only creates rows and names them (:meth:`add_created`):
    #: no rows are read, and its record is written whole when it ends.
    reads_rows: bool = True
    created: list[Any] = field(default_factory=list)

    def watch(self, series: Iterable[EventSeries]) -> None:
        """Read the rows of each of ``series`` not watched yet, as they are now.

        The first series watched is the operation's own: its record is opened then
        (an operation that creates its series opens with none).
        """
        fresh = [one for one in series if one.pk is not None and one.pk not in self.series]
        if not fresh:
            return
        if not self.series:
            self._open(fresh[0])
        for one in fresh:
            self.series[one.pk] = one
        if not self.reads_rows:
            return
        rows = read_rows([one.pk for one in fresh], now=None if self.all_rows else self.facts.now)
        self.before.update(states_of(rows, self.series))

    def watch_locked(self, series: EventSeries) -> None:
        """A series a step locked: watched from now on (the first one, the record's own)."""
        self.watch([series])

    def add_created(self, rows: Iterable[Any]) -> None:
        """Rows the operation created (generation names them instead of reading them)."""
        if not self.reads_rows:
            self.created.extend(rows)

    def _open(self, series: EventSeries) -> None:
        self.facts.series = series
        if history_on() and self.reads_rows:
            facts = self.facts
            self.record = open_record(
                facts.kind,
                series,
                plan_hash=facts.plan_hash,
                notify=facts.notify,
                now=facts.now,
                created=facts.kind == "create",
            )

    def record_id(self) -> Any:
        """The primary key of the record being written, None while there is none."""
        return None if self.record is None else self.record.pk

    def mark_edited(self, pks: Iterable[Any]) -> None:
        """Rows a service changed otherwise than by date or status (a template's values
        copied onto them): the record names them "edited"."""
        self.edited.update(pks)

    def finish(self) -> None:
        """Compare the rows with their state on entry; record the people's notices and,
        when the site keeps a history, complete the record with every row touched."""
        if not self.reads_rows:
            self._finish_created()
            return
        history = self.record is not None and self.record.pk is not None
        if not self.series or (not self.before and not history):
            return
        rows = read_rows_by_pk(list(self.before)) if self.before else []
        found = list(rows)
        if history:
            self._add_edited(found)
            known = {row.pk for row in found}
            ids = set(self.series) | {row.series_id for row in found if row.series_id is not None}
            now = None if self.all_rows else self.facts.now
            found += [row for row in read_rows(sorted(ids), now=now) if row.pk not in known]
        series = _fresh_series({row.series_id for row in found} | set(self.series))
        after = states_of(found, series)
        self.changes = date_changes(self.before, after)
        self._enrolled_follow(rows, series)
        self._tell_people(rows, series)
        if history:
            assert self.record is not None
            self.record.kind = self.facts.kind
            self.record.plan_hash = self.facts.plan_hash
            self.record = close_record(
                self.record,
                changes=row_changes(self.before, after, edited=self.edited),
                series=series,
                touched=set(self.series)
                | {state.series_id for state in self.before.values() if state.series_id}
                | {state.series_id for state in after.values() if state.series_id},
            )
        if self.record is not None and self.record.pk is None:
            self.record = None  # it changed nothing: close_record removed it
        if self.record is not None:
            # The record is complete: its deliveries, in the same transaction.
            queue_deliveries(self.record, changes=self.changes, series=self.facts.series)

    def _finish_created(self) -> None:
        """The record of an operation that only created rows: written whole, in one INSERT."""
        if not self.series or not history_on():
            return
        facts = self.facts
        self.record = open_record(
            facts.kind,
            facts.series,
            plan_hash=facts.plan_hash,
            notify=facts.notify,
            now=facts.now,
            save=False,
        )
        after = states_of(self.created, self.series)
        self.record = close_record(
            self.record,
            changes=row_changes({}, after),
            series=self.series,
            touched=set(self.series),
            inserted=False,
        )
        if self.record.pk is None:
            self.record = None
        else:
            queue_deliveries(self.record, changes=[], series=facts.series)

    def _add_edited(self, found: list[Any]) -> None:
        """Edited rows not read on entry (past ones): read now, the same before and after."""
        missing = [pk for pk in self.edited if pk not in self.before]
        if not missing:
            return
        extra = read_rows_by_pk(missing)
        series = _fresh_series({row.series_id for row in extra})
        self.before.update(states_of(extra, series))
        found += extra

    def _tell_people(self, rows: list[Any], series: dict[int, EventSeries]) -> None:
        if not self.changes or self.facts.notify == "none":
            return
        model = get_event_model()
        changed = {c.pk for c in self.changes}
        people = model.people_booked_among([row for row in rows if row.pk in changed])
        if not people:
            return
        told = record_notices(
            self.facts, self.changes, people, series, get_adapter(), operation=self.record
        )
        if told is not None:
            self.record = told
            self.notices_written = True

    def _enrolled_follow(self, rows: list[Any], series: dict[int, EventSeries]) -> None:
        """Enrolled users follow the operation: the starts of moved dates kept beside their
        states, and the users booked on the dates it restored (one host call); those
        holding a restored date already (through the enrolment, their own booking) or
        who skipped it are left alone.
        """
        follow_moves(
            {
                str(change.pk): change.after.start
                for change in self.changes
                if change.after is not None and change.after.start != change.before.start
            }
        )
        restored = {change.pk for change in self.changes if change.kind == "restored"}
        if restored:
            book_enrolled_rows(
                [row for row in rows if row.pk in restored], series, now=self.facts.now
            )


def _fresh_series(ids: set[int | None]) -> dict[int, EventSeries]:
    return {
        one.pk: one
        for one in EventSeries.objects.select_related("recurrence_rule").filter(
            pk__in=[pk for pk in ids if pk is not None]
        )
    }


def host_tells_people() -> bool:
    """Whether the host says who is booked (it overrides ``people_booked_among``)."""
    hook: Any = getattr(get_event_model(), "people_booked_among", None)
    default: Any = RecurringEventMixin.people_booked_among
    return getattr(hook, "__func__", None) is not default.__func__


def people_told() -> bool:
    """Whether the operation being written (or planned) tells the people booked on its dates.

    True when it was asked to (``notify="all"``) and the host says who is booked:
    then a booked date may move like an unbooked one, since its people hear of it.
    """
    operation = _current.get()
    mode = operation.facts.notify if operation is not None else _planned_notify.get()
    return mode == "all" and host_tells_people()


@contextmanager
def planning_for(notify: object) -> Iterator[None]:
    """Compute a plan as an operation told ``notify`` would apply it (:func:`people_told`)."""
    token = _planned_notify.set(notify_mode(notify))
    try:
        yield
    finally:
        _planned_notify.reset(token)


_current: contextvars.ContextVar[DatesOperation | None] = contextvars.ContextVar(
    "revel_recurring_dates_operation", default=None
)
_planned_notify: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "revel_recurring_planned_notify", default=None
)


def current_operation() -> DatesOperation | None:
    """The operation being written in this context, or None."""
    return _current.get()


@contextmanager
def dates_operation(
    kind: str,
    series: EventSeries | Iterable[EventSeries],
    *,
    notify: object = None,
    plan_hash: str = "",
    now: dt.datetime | None = None,
    all_rows: bool = False,
    reads_rows: bool = True,
) -> Iterator[DatesOperation]:
    """Run an operation's writes; call it inside the change's transaction, under its lock.

    ``kind`` names the operation (one of :data:`~revel_recurring.records.kinds.KINDS`);
    ``notify`` is "all", "none" or None (the site's default). The first series
    given is the record's own; an operation that creates its series gives none
    and calls :meth:`DatesOperation.watch` once the series is saved. Inside
    another operation this only adds ``series`` to it (one record). When the
    site keeps a history, the record is inserted on entry and completed on
    leaving with every row touched (``all_rows``: past ones too; ``reads_rows``
    False: an operation that only creates rows names them instead, through
    :meth:`DatesOperation.add_created`, and its record is written whole on
    leaving). An exception
    leaves nothing recorded and nothing sent: the transaction rolls back, and
    the after-commit signal is never queued.
    """
    several = [series] if isinstance(series, EventSeries) else list(series)
    outer = _current.get()
    if outer is not None:
        outer.watch(several)
        yield outer
        return
    acting = current_acting()
    facts = OperationFacts(
        kind=kind,
        series=several[0] if several else EventSeries(),
        plan_hash=plan_hash,
        notify=notify_mode(notify),
        now=now or timezone.now(),
        acting={
            "actor": acting.actor[:255],
            "actor_name": acting.actor_name[:200],
            "face": acting.face[:16],
            "batch_id": acting.batch_id,
        },
    )
    operation = DatesOperation(facts=facts, all_rows=all_rows, reads_rows=reads_rows)
    operation.watch(several)
    token = _current.set(operation)
    try:
        with recording(operation.record_id), listening_for_locks(operation.watch_locked):
            yield operation
    finally:
        _current.reset(token)
    operation.finish()
    if operation.changes and kind != "delete":  # a deletion has its own signals
        transaction.on_commit(lambda: _announce(operation))


@contextmanager
def series_operation(
    kind: str,
    series: EventSeries,
    *,
    notify: object = None,
    plan_hash: str = "",
    now: dt.datetime | None = None,
    all_rows: bool = False,
) -> Iterator[DatesOperation]:
    """:func:`dates_operation` around a verb whose steps lock the series themselves.

    Call it inside the verb's transaction. The operation opens on the first series
    a step locks (``lock_series`` tells it), so its rows are read under the lock
    and everything the steps write lands in one record; a verb that locks nothing
    (it had nothing to do) records nothing. Inside another operation it joins it.
    """
    if _current.get() is not None:
        with dates_operation(kind, series, notify=notify, now=now) as joined:
            yield joined
        return
    with dates_operation(
        kind, (), notify=notify, plan_hash=plan_hash, now=now, all_rows=all_rows
    ) as operation:
        yield operation


def _announce(operation: DatesOperation) -> None:
    """``series_dates_changed``, after commit; a failing receiver is logged, never raised."""
    facts = operation.facts
    for receiver, result in series_dates_changed.send_robust(
        sender=EventSeries,
        kind=facts.kind,
        series=facts.series,
        plan_hash=facts.plan_hash,
        changes=[change.as_signal_row() for change in operation.changes],
        operation_id=None if operation.record is None else operation.record.pk,
        people_told=operation.notices_written,
    ):
        if isinstance(result, Exception):
            logger.error(
                "series_dates_changed receiver %r failed for series %s",
                receiver,
                facts.series.pk,
                exc_info=result,
            )
