"""Booked dates are never cancelled or deleted silently (services, on tests/hosts/testapp).

The host says which occurrences hold bookings through ``booked_among`` (batched)
or ``has_bookings`` (one row, the fallback); every service asks once per call.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.exceptions import OccurrenceHasBookingsError, SeriesHasBookingsError
from revel_recurring.mixins import RecurringEventMixin
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences, detect_cadence_drift
from revel_recurring.services.lifecycle import delete_series
from tests.hosts.testapp.models import Event, Seat
from tests.support.drift import drift_without_partners
from tests.support.factories import NOW, fresh, monday, occurrences, weekly_series

pytestmark = pytest.mark.django_db

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED


def book(event: Event) -> None:
    Seat.objects.create(event=event, label="Paid", quantity=5, booked=2)


def ended_at_its_start() -> EventSeries:
    """Eight Mondays whose rule ends at its start (Monday 2 March, ``count=1``): the seven
    after it drift with nowhere to move."""
    series = weekly_series()
    drift_without_partners(series, keep=0, now=NOW)
    return fresh(series)


def test_default_booked_among_falls_back_to_has_bookings_per_event() -> None:
    rows = occurrences(weekly_series())
    book(rows[1])
    book(rows[6])
    default = RecurringEventMixin.booked_among.__func__  # type: ignore[attr-defined]
    with CaptureQueriesContext(connection) as queries:
        assert default(Event, rows) == {rows[1].pk, rows[6].pk}
    assert len(queries) == len(rows)  # one has_bookings() each: why hosts override it


@pytest.mark.parametrize("weeks", [4, 12])
def test_testapp_booked_among_is_one_query_whatever_the_number_of_events(weeks: int) -> None:
    rows = occurrences(weekly_series(frequency="DAILY", window_weeks=weeks))
    book(rows[3])
    with CaptureQueriesContext(connection) as queries:
        assert Event.booked_among(rows) == {rows[3].pk}
    assert len(queries) == 1
    with CaptureQueriesContext(connection) as none:
        assert Event.booked_among([]) == set()
    assert len(none) == 0


def test_cancel_stale_keeps_booked_dates_and_names_them() -> None:
    series = ended_at_its_start()
    mondays = occurrences(series)
    book(mondays[2])
    book(mondays[5])

    result = cancel_stale_occurrences(series, now=NOW)

    kept = {mondays[2].pk, mondays[5].pk}
    # The first Monday is the rule's one date: it stays.
    assert result.cancelled == [e.pk for e in mondays[1:] if e.pk not in kept]
    assert [(date.id, date.start, date.display) for date in result.kept_booked] == [
        (mondays[2].pk, monday(2), "Mon 16 Mar 2026 10:00 (Europe/Vienna)"),
        (mondays[5].pk, monday(5), "Mon 6 Apr 2026 10:00 (Europe/Vienna)"),
    ]
    states = {e.pk: e.state for e in occurrences(series)}
    assert [pk for pk, state in states.items() if state != CALLED_OFF] == sorted(
        {mondays[0].pk, *kept}
    )
    assert monday(2) not in fresh(series).exdate_instants
    assert detect_cadence_drift(series, now=NOW) == [mondays[2].pk, mondays[5].pk]


def test_cancel_stale_with_include_booked_cancels_booked_dates_too() -> None:
    series = ended_at_its_start()
    mondays = occurrences(series)
    book(mondays[2])

    result = cancel_stale_occurrences(series, include_booked=True, now=NOW)

    assert result.cancelled == [e.pk for e in mondays[1:]]
    assert result.kept_booked == []
    assert all(e.state == CALLED_OFF for e in occurrences(series)[1:])


def test_cancel_stale_includes_only_the_booked_ids_it_is_given() -> None:
    series = ended_at_its_start()
    mondays = occurrences(series)
    book(mondays[2])
    book(mondays[5])

    result = cancel_stale_occurrences(series, include_booked=[mondays[5].pk], now=NOW)

    assert mondays[5].pk in result.cancelled
    assert [date.id for date in result.kept_booked] == [mondays[2].pk]
    assert Event.objects.get(pk=mondays[2].pk).state != CALLED_OFF


def test_cancel_stale_asks_the_host_once() -> None:
    series = ended_at_its_start()
    for event in occurrences(series):
        book(event)
    with CaptureQueriesContext(connection) as queries:
        result = cancel_stale_occurrences(series, now=NOW)
    assert result.cancelled == []
    assert len(result.kept_booked) == 7  # the first Monday is on the rule
    seat_reads = [q for q in queries.captured_queries if "testapp_seat" in q["sql"]]
    assert len(seat_reads) == 1


def test_cancelling_one_booked_occurrence_is_refused_without_include_booked() -> None:
    series = weekly_series()
    booked = occurrences(series)[2]
    book(booked)

    with pytest.raises(OccurrenceHasBookingsError) as refused:
        cancel_occurrence(series, booked.starts_at, now=NOW)

    assert str(refused.value).startswith(
        "Mon 16 Mar 2026 10:00 (Europe/Vienna) of series 'Monday yoga' has bookings"
    )
    assert refused.value.field == "include_booked"
    assert Event.objects.get(pk=booked.pk).state != CALLED_OFF
    assert fresh(series).exdates == []

    cancelled = cancel_occurrence(series, booked.starts_at, include_booked=True, now=NOW)

    assert cancelled is not None
    assert cancelled.pk == booked.pk
    assert Event.objects.get(pk=booked.pk).state == CALLED_OFF
    # Cancelling it again changes nothing, so it needs no confirmation.
    assert cancel_occurrence(series, booked.starts_at, now=NOW) is not None


def test_delete_series_names_every_booked_date_in_the_rules_zone() -> None:
    series = weekly_series(name="Yoga")
    rows = occurrences(series)
    book(rows[0])
    book(rows[4])
    with pytest.raises(SeriesHasBookingsError) as refused:
        delete_series(series)
    assert str(refused.value) == (
        "Series 'Yoga' cannot be deleted: Mon 2 Mar 2026 10:00 (Europe/Vienna), "
        "Mon 30 Mar 2026 10:00 (Europe/Vienna) have bookings. Cancel or refund those "
        "bookings first, or pause the series instead."
    )
    assert str(rows[0].pk) not in str(refused.value).split(":")[0]


def test_delete_series_names_ten_dates_and_counts_the_rest() -> None:
    series = weekly_series(name="Daily", frequency="DAILY", window_weeks=2)
    rows = occurrences(series)
    for event in rows[:13]:
        book(event)
    with pytest.raises(SeriesHasBookingsError) as refused:
        delete_series(series)
    message = str(refused.value)
    assert message.count("(Europe/Vienna)") == 10
    assert "and 3 more dates have bookings" in message
    assert len(refused.value.booked) == 13


def _delete_queries(weeks: int) -> CaptureQueriesContext:
    series = weekly_series(name=f"Daily {weeks}", frequency="DAILY", window_weeks=weeks)
    assert len(occurrences(series)) >= 7 * weeks - 1
    with CaptureQueriesContext(connection) as queries:
        delete_series(series)
    assert not EventSeries.objects.filter(pk=series.pk).exists()
    return queries


def test_delete_series_asks_the_host_once_whatever_the_number_of_events(
    django_assert_max_num_queries: Any,
) -> None:
    small, large = _delete_queries(4), _delete_queries(20)
    for queries in (small, large):
        # The seat table itself, not testapp_seatholder (deleted by the cascade as well).
        seat_reads = [q for q in queries.captured_queries if re.search(r"testapp_seat\b", q["sql"])]
        assert len(seat_reads) == 2  # booked_among, then the cascade's delete
    # Only Django's delete batches (100 rows each) grow with the events.
    assert len(large) - len(small) <= 2
    series = weekly_series(name="Daily 52", frequency="DAILY", window_weeks=52)
    with CaptureQueriesContext(connection) as queries:  # was 366+ for this series
        delete_series(series)
    # The history's record of the deletion writes its rows a page per INSERT (a
    # page as large as the backend's parameter limit allows: one on most backends).
    pages = [q for q in queries.captured_queries if "revel_recurring_operationrow" in q["sql"]]
    assert len(pages) <= 5
    assert len(queries) - len(pages) <= len(small) + 4


def test_delete_refused_for_bookings_asks_the_host_once() -> None:
    series = weekly_series(name="Daily", frequency="DAILY", window_weeks=20)
    book(occurrences(series)[-1])
    with CaptureQueriesContext(connection) as queries, pytest.raises(SeriesHasBookingsError):
        delete_series(series)
    seat_reads = [q for q in queries.captured_queries if "testapp_seat" in q["sql"]]
    assert len(seat_reads) == 1
    assert len(queries) <= 10
