"""The record of a 10,000-row operation, on any test host: written in pages, read in pages.

:func:`check_a_big_record_is_bounded` makes a series of the host (its folder's
``history_series`` fixture), ends its rule after its first date and writes
:data:`ROWS` more rows an hour apart, built from the template as generation builds
them, so every one is off the rule with no partner to move to. One
``cancel_stale_occurrences`` then cancels them all in one operation, and its
record (``services/toolbox/history.py``) must be written in a number of
statements that grows with the pages, not the rows; reading its rows back
(``history.operation_rows``, what the API and the admin page) costs the same few
statements on the first page as on the last. ``bench/history.py`` times the same.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.history import operation_rows
from revel_recurring.models import EventSeries, OperationRow, SeriesOperation, get_event_model
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.toolbox.history import ROWS_PER_PAGE
from tests.support.drift import drift_without_partners
from tests.support.history_checks import MakeSeries

#: The rows the operation cancels: the issue's "operation over 10,000 rows".
ROWS = 10_000
#: Statements of a record beside its pages: the record's INSERT and UPDATE and the
#: INSERT of its series links.
RECORD_CONSTANT = 3
#: The cancel's own statements per row (each row saved, so the host's signals run,
#: and its change-feed entry): what the cancel costs without any record.
CANCEL_PER_ROW = 2
#: The cancel's statements beside its rows and the record's (lock, reads, exdates).
CANCEL_CONSTANT = 40
#: The tables the record is written into.
RECORD_TABLES = ("seriesoperation", "operationseries", "operationrow")


def stale_rows(series: EventSeries, count: int) -> list[Any]:
    """End ``series``' rule after its first date and add ``count`` rows an hour apart after
    its last one: every row but the first is off the rule (drift), in one bulk INSERT."""
    model = get_event_model()
    drift_without_partners(series, keep=1)
    template = model._base_manager.get(series=series, is_template=True)
    start_field = model.RECURRING_START_FIELD
    last = (
        model._base_manager.filter(series=series, is_template=False)
        .order_by(f"-{start_field}")
        .values_list(start_field, flat=True)
        .first()
    )
    assert last is not None
    first = last.replace(minute=7, second=0, microsecond=0) + dt.timedelta(days=1)
    rows = []
    for index in range(1, count + 1):
        slot = first + dt.timedelta(hours=index)
        row = template.prepare_occurrence(
            start=slot,
            occurrence_index=series.last_occurrence_index + index,
            status=model.RECURRING_STATUS_OPEN,
        )
        row.recurrence_id = slot
        rows.append(row)
    model._base_manager.bulk_create(rows, batch_size=1000)
    EventSeries.objects.filter(pk=series.pk).update(
        last_occurrence_index=series.last_occurrence_index + count
    )
    return rows


class Statements:
    """Every statement's SQL run inside ``connection.execute_wrapper`` (no cap on how many:
    CaptureQueriesContext keeps the last 9,000 only)."""

    def __init__(self) -> None:
        self.sql: list[str] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.sql.append(sql)
        return execute(sql, params, many, context)


def rows_per_insert(rows: int) -> int:
    """Rows of a record per INSERT on this backend: :data:`ROWS_PER_PAGE`, or fewer where
    the backend takes fewer parameters a statement (SQLite: 999 at most)."""
    fields = [field for field in OperationRow._meta.concrete_fields if not field.primary_key]
    return min(ROWS_PER_PAGE, connection.ops.bulk_batch_size(fields, [None] * rows))


def _writes_record(sql: str) -> bool:
    head = sql.lstrip().upper()
    if not head.startswith(("INSERT", "UPDATE")):
        return False
    lowered = sql.lower()
    return any(f"revel_recurring_{table}" in lowered for table in RECORD_TABLES)


def _page_reads(record: SeriesOperation, total: int, size: int) -> list[int]:
    """Statements to read the first, a middle and the last page of ``record``'s rows."""
    counts = []
    for page in (0, total // size // 2, -(-total // size) - 1):
        with CaptureQueriesContext(connection) as read:
            rows = list(operation_rows(record.pk)[page * size : (page + 1) * size])
        assert rows, page
        assert rows[0].position == page * size + 1
        counts.append(len(read.captured_queries))
    return counts


def check_a_big_record_is_bounded(make_series: MakeSeries, *, rows: int = ROWS) -> SeriesOperation:
    series = make_series(name="History of ten thousand")
    stale_rows(series, rows)
    series = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk)
    seen = set(SeriesOperation.objects.values_list("pk", flat=True))

    cancel = Statements()
    with connection.execute_wrapper(cancel):
        done = cancel_stale_occurrences(series, include_booked=True, notify="none")

    cancelled = len(done.cancelled)
    assert cancelled >= rows
    [record] = SeriesOperation.objects.exclude(pk__in=seen)
    assert record.kind == "cancel_stale"
    assert record.row_count == cancelled
    assert OperationRow.objects.filter(operation=record).count() == cancelled
    pages = -(-cancelled // rows_per_insert(cancelled))
    record_writes = [sql for sql in cancel.sql if _writes_record(sql)]
    row_inserts = [sql for sql in record_writes if "revel_recurring_operationrow" in sql.lower()]
    # The rows go in one INSERT per page; the record itself in a fixed few statements.
    assert len(row_inserts) == pages, (len(row_inserts), pages)
    assert len(record_writes) <= pages + RECORD_CONSTANT, len(record_writes)
    # Nothing of the record is asked row by row: beside the cancel's own statements
    # per row, at most two per page (the rows' INSERT, the host's bookings read, one
    # per ROWS_PER_PAGE rows).
    statements = len(cancel.sql)
    host_pages = -(-cancelled // ROWS_PER_PAGE)
    bound = CANCEL_PER_ROW * cancelled + pages + host_pages + RECORD_CONSTANT + CANCEL_CONSTANT
    assert statements <= bound, (statements, bound)

    # Read back page by page: the same statements for the first page as the last.
    for size in (100, ROWS_PER_PAGE):
        first, middle, last = _page_reads(record, cancelled, size)
        assert first == middle == last == 1, (size, first, middle, last)
    return record
