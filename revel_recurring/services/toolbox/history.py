"""Writing a series' history: one record per operation, its series and its rows.

:func:`open_record` inserts the record when the outermost operation starts (so
the writers inside point to it: the occurrence change log), with who acts and
through what (:func:`~revel_recurring.context.current_acting`) and the series'
rule and settings before; :func:`close_record` fills it in when the operation
ends: the settings after, one :class:`~revel_recurring.models.OperationSeries`
per series touched and one :class:`~revel_recurring.models.OperationRow` per row
touched, written in pages with the people booked on each row asked of the host
once per page. :func:`note_generated` is the daily pass's summary: one record per
chunk, no rows. All of it runs in the change's own transaction.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...conf import recurring_settings
from ...context import current_acting
from ...mixins import RecurringEventMixin
from ...models import (
    EventSeries,
    OperationRow,
    OperationSeries,
    SeriesOperation,
    get_event_model,
)
from ...records.rows import RowChange
from ...records.snapshot import settings_snapshot

#: Rows of a record written per INSERT, and asked of the host per call.
ROWS_PER_PAGE = 1000


def history_on() -> bool:
    """Whether the site keeps a history (``REVEL_RECURRING_HISTORY``)."""
    return bool(recurring_settings.HISTORY)


def _name(series: EventSeries) -> str:
    return str(series.name)[:200]


def open_record(
    kind: str,
    series: EventSeries,
    *,
    plan_hash: str = "",
    notify: str = "all",
    now: dt.datetime,
    created: bool = False,
    save: bool = True,
) -> SeriesOperation:
    """Insert the record of an operation starting on ``series``: one INSERT (none when
    not ``save``: the caller inserts it whole through :func:`close_record`).

    ``before`` is the series' rule and settings as the locked instance holds them
    (None when the operation ``created`` the series).
    """
    acting = current_acting()
    record = SeriesOperation(
        kind=kind,
        series=series,
        series_ref=series.pk,
        series_name=_name(series),
        plan_hash=plan_hash,
        notify=notify,
        created_at=now,
        actor=acting.actor[:255],
        actor_name=acting.actor_name[:200],
        face=acting.face[:16],
        batch_id=acting.batch_id,
        before=None if created else settings_snapshot(series),
    )
    if save:
        record.save(force_insert=True)
    return record


def _host_counts() -> bool:
    model: Any = get_event_model()
    for hook in ("count_bookings_among", "booked_among"):
        mine = getattr(model, hook, None)
        default = getattr(RecurringEventMixin, hook)
        if getattr(mine, "__func__", None) is not default.__func__:
            return True
    return False


def booked_counts(pks: Sequence[Any]) -> dict[Any, int] | None:
    """How many people the host says are booked on each of ``pks``; None when it does not say.

    One call to ``count_bookings_among`` per :data:`ROWS_PER_PAGE` rows, with rows
    carrying their primary key only (the hook's contract). Hosts that override
    neither that hook nor ``booked_among`` do not say.
    """
    if not pks or not _host_counts():
        return None
    model: Any = get_event_model()
    counts: dict[Any, int] = {}
    for start in range(0, len(pks), ROWS_PER_PAGE):
        page = [model(pk=pk) for pk in pks[start : start + ROWS_PER_PAGE]]
        counts.update(model.count_bookings_among(page))
    return counts


def _row(record: SeriesOperation, position: int, change: RowChange, booked: Any) -> OperationRow:
    before, after = change.before, change.after
    return OperationRow(
        operation=record,
        position=position,
        occurrence_pk=str(change.pk)[:255],
        change=change.change,
        series_before=None if before is None else before.series_id,
        series_after=None if after is None else after.series_id,
        slot_before=None if before is None else before.recurrence_id,
        slot_after=None if after is None else after.recurrence_id,
        start_before=None if before is None else before.start,
        start_after=None if after is None else after.start,
        status_before="" if before is None else before.status,
        status_after="" if after is None else after.status,
        booked=booked,
    )


def close_record(
    record: SeriesOperation,
    *,
    changes: Sequence[RowChange],
    series: Mapping[int, EventSeries],
    touched: Iterable[int],
    inserted: bool = True,
) -> SeriesOperation:
    """Fill in ``record``: its series, its rows in pages, the settings after, its row count.

    ``series`` holds the series as they are now (primary key -> series; a deleted
    one is missing); ``touched`` every series the operation watched or whose rows
    it moved (a split: both halves). ``after`` is None when the record's own
    series is gone. An operation that changed nothing is kept too: someone
    asked for it (a later revert of earlier dates must know it happened).
    ``inserted`` False: ``record`` is not saved yet; it is inserted here, whole.
    """
    own = series.get(record.series_ref or 0)
    after = None if own is None else settings_snapshot(own)
    if not inserted:
        record.after = after
        record.row_count = len(changes)
        record.save(force_insert=True)
    names = {pk: _name(one) for pk, one in series.items()}
    if record.series_ref is not None:
        names.setdefault(record.series_ref, record.series_name)
    links = sorted({pk for pk in touched if pk is not None} | {record.series_ref or 0} - {0})
    OperationSeries.objects.bulk_create(
        [
            OperationSeries(
                operation=record,
                series_ref=pk,
                series_name=names.get(pk)
                or (record.series_name if pk == record.series_ref else ""),
            )
            for pk in links
        ]
    )
    # A deleted row is not asked about: the host's bookings went with it.
    counts = booked_counts([change.pk for change in changes if change.after is not None])
    rows = [
        _row(
            record,
            position,
            change,
            None if counts is None or change.after is None else counts.get(change.pk, 0),
        )
        for position, change in enumerate(changes, start=1)
    ]
    OperationRow.objects.bulk_create(rows, batch_size=ROWS_PER_PAGE)
    record.after = after
    record.row_count = len(rows)
    if not inserted:
        return record
    fields = ["after", "row_count", "kind", "plan_hash"]
    if own is not None and own.name != record.series_name:
        record.series_name = _name(own)
        fields.append("series_name")
    SeriesOperation.objects.filter(pk=record.pk).update(
        **{name: getattr(record, name) for name in fields}
    )
    return record


def note_generated(
    holder: list[Any] | None, created: Mapping[int, tuple[str, int]], *, now: dt.datetime
) -> SeriesOperation | None:
    """The daily pass's summary of a chunk: series id -> (name, dates created).

    One INSERT for the record and one for its links when ``holder`` holds no
    record yet (the chunk's first); else the links are added to the record it
    holds and its summary updated (a series generated after the chunk, on its own).
    Nothing when nothing was created or the site keeps no history.
    """
    made = {pk: value for pk, value in created.items() if value[1] > 0}
    if not made or not history_on():
        return None
    record = holder[0] if holder else None
    summary = {str(pk): count for pk, (_, count) in sorted(made.items())}
    if record is None:
        first = min(made)
        acting = current_acting()
        record = SeriesOperation.objects.create(
            kind="generate",
            series_id=first,
            series_ref=first,
            series_name=made[first][0][:200],
            notify="none",
            created_at=now,
            face="task" if acting.face == "code" else acting.face,
            actor=acting.actor[:255],
            actor_name=acting.actor_name[:200],
            summary=summary,
        )
        if holder is not None:
            holder.append(record)
    else:
        record.summary = {**(record.summary or {}), **summary}
        SeriesOperation.objects.filter(pk=record.pk).update(summary=record.summary)
    OperationSeries.objects.bulk_create(
        [
            OperationSeries(operation=record, series_ref=pk, series_name=name[:200], created=count)
            for pk, (name, count) in sorted(made.items())
        ]
    )
    return record


__all__ = [
    "ROWS_PER_PAGE",
    "booked_counts",
    "close_record",
    "history_on",
    "note_generated",
    "open_record",
]
