"""A 10,000-row record: written in a bounded number of statements, read back page by page."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from revel_recurring.models import OperationRow, SeriesOperation
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import create_recurring_series
from revel_recurring.services.toolbox.history import ROWS_PER_PAGE
from tests.hosts.testapp.models import Event
from tests.support.drift import drift_without_partners
from tests.support.factories import VIENNA

pytestmark = pytest.mark.django_db

DATES = 10_000


def _rows_per_insert() -> int:
    fields = [f for f in OperationRow._meta.concrete_fields if not f.primary_key]
    return min(ROWS_PER_PAGE, connection.ops.bulk_batch_size(fields, [None] * ROWS_PER_PAGE))


def test_a_cancel_stale_over_ten_thousand_dates_is_recorded_in_bounded_statements(
    settings: Any,
) -> None:
    settings.REVEL_RECURRING_MAX_WINDOW_WEEKS = 1500
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 10**9
    start = (
        (timezone.now() + dt.timedelta(days=2))
        .astimezone(VIENNA)
        .replace(hour=9, minute=0, second=0, microsecond=0)
    )
    series = create_recurring_series(
        name="Every day for ever",
        rule_data={"frequency": "DAILY", "dtstart": start, "timezone": "Europe/Vienna"},
        template_data={"title": "Daily", "capacity": 5, "ends_at": start + dt.timedelta(hours=1)},
        auto_publish=True,
        generate=False,
    )
    generate_series_events(series, until=start + dt.timedelta(days=DATES - 1))
    drift_without_partners(series, keep=0)

    # Django keeps the last 9,000 statements: a full log would capture none.
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as captured:
        cancel_stale_occurrences(series)

    record = SeriesOperation.objects.get(kind="cancel_stale")
    assert record.row_count == DATES - 1  # every date after the first
    cancelled = Event.objects.filter(series=series, state=Event.RECURRING_STATUS_CANCELLED)
    assert cancelled.count() == record.row_count
    # The record's own statements: one INSERT of the record, one of its series,
    # its rows in pages, one UPDATE; the host's bookings asked once per page.
    tables = ("operationrow", "seriesoperation", "operationseries")
    own = [q for q in captured.captured_queries if any(t in q["sql"] for t in tables)]
    pages = math.ceil(record.row_count / _rows_per_insert())
    assert len(own) <= pages + 3, len(own)
    counted = [q for q in captured.captured_queries if "COALESCE((SELECT SUM" in q["sql"]]
    assert len(counted) == math.ceil(record.row_count / ROWS_PER_PAGE)

    # Read back a page at a time: one query each, in position order.
    seen, last = 0, 0
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as reading:
        while True:
            page = list(record.rows.filter(position__gt=last).order_by("position")[:1000])
            if not page:
                break
            assert page[0].position == last + 1
            seen, last = seen + len(page), page[-1].position
    assert seen == record.row_count
    assert len(reading.captured_queries) == math.ceil(seen / 1000) + 1
    assert set(record.rows.values_list("change", flat=True)) == {"cancelled"}
