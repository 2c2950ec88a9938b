"""`revel_recurring.exclusions`: which instants of a series are excluded between two bounds."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.exclusions import (
    FOLDED,
    Exclusion,
    ExclusionReason,
    Exclusions,
    excluded_between,
    excluded_for_series,
    read_pending,
)
from revel_recurring.models import EventSeries, PendingExdate
from tests.support.factories import UTC, VIENNA, make_series

pytestmark = pytest.mark.django_db

EXDATE = ExclusionReason.EXDATE
PENDING = ExclusionReason.PENDING_EXDATE


def _series(*exdates: dt.datetime, pending: tuple[dt.datetime, ...] = ()) -> EventSeries:
    series = make_series()
    series.exdates = list(exdates)
    series.save()
    PendingExdate.objects.bulk_create(
        [PendingExdate(series_id=series.pk, instant=instant) for instant in pending]
    )
    return EventSeries.objects.get(pk=series.pk)


def _at(day: int, hour: int = 10) -> dt.datetime:
    return dt.datetime(2026, 3, day, hour, tzinfo=UTC)


def test_both_bounds_are_inclusive_and_none_leaves_an_end_open() -> None:
    before, start, inside, end, after = _at(1), _at(2), _at(3), _at(4), _at(5)
    series = _series(before, start, end, pending=(inside, after))

    excluded = excluded_between(series, start, end)

    assert list(excluded) == [start, inside, end]
    assert list(excluded_between(series, None, end)) == [before, start, inside, end]
    assert list(excluded_between(series, start)) == [start, inside, end, after]
    assert list(excluded_between(series)) == [before, start, inside, end, after]
    assert (excluded.start, excluded.end) == (start, end)


def test_an_instant_excluded_by_an_exdate_and_a_pending_row_is_listed_once_as_an_exdate() -> None:
    both, pending_only, exdate_only = _at(2), _at(3), _at(4)
    series = _series(both, exdate_only, pending=(both, pending_only))

    excluded = excluded_between(series)

    assert len(excluded) == 3
    assert excluded[both] == Exclusion(both, EXDATE)
    assert excluded.reason(pending_only) is PENDING
    assert excluded.reason(exdate_only) is EXDATE
    assert excluded.reason(_at(5)) is None
    assert excluded.instants == frozenset({both, pending_only, exdate_only})


def test_the_first_reason_wins_whatever_the_order_given() -> None:
    instant = _at(2)

    forwards = Exclusions([Exclusion(instant, EXDATE), Exclusion(instant, PENDING)])
    backwards = Exclusions([Exclusion(instant, PENDING), Exclusion(instant, EXDATE)])

    assert forwards[instant].reason is backwards[instant].reason is EXDATE
    assert list(ExclusionReason) == [EXDATE, PENDING, ExclusionReason.HOLIDAY]


def test_instants_are_utc_across_the_fall_back_and_bounds_compare_as_instants() -> None:
    # Vienna falls back on 25 October 2026: 02:30 happens twice, an hour apart.
    first = dt.datetime(2026, 10, 25, 2, 30, tzinfo=VIENNA)
    second = dt.datetime(2026, 10, 25, 2, 30, fold=1, tzinfo=VIENNA)
    assert first.astimezone(UTC) == dt.datetime(2026, 10, 25, 0, 30, tzinfo=UTC)
    assert second.astimezone(UTC) == dt.datetime(2026, 10, 25, 1, 30, tzinfo=UTC)
    series = _series(first, pending=(second,))

    excluded = excluded_between(series)
    # A bound on Vienna's clock: the second 02:00 (CET) is 01:00 UTC, after the
    # first 02:30 (00:30 UTC) and before the second (01:30 UTC).
    later = excluded_between(series, dt.datetime(2026, 10, 25, 2, 0, fold=1, tzinfo=VIENNA))

    assert list(excluded) == [first.astimezone(UTC), second.astimezone(UTC)]
    assert all(instant.tzinfo is UTC for instant in excluded)
    assert [e.reason for e in excluded.values()] == [EXDATE, PENDING]
    assert list(later) == [second.astimezone(UTC)]
    # Asked in any zone, an instant is found: aware datetimes compare as instants.
    assert dt.datetime(2026, 10, 25, 0, 30, tzinfo=dt.timezone(dt.timedelta(hours=5))) not in (
        excluded
    )
    assert dt.datetime(2026, 10, 25, 5, 30, tzinfo=dt.timezone(dt.timedelta(hours=5))) in excluded


def test_a_spring_forward_slot_is_stored_and_found_as_its_instant() -> None:
    # 29 March 2026 02:30 does not exist in Vienna; the rule maths moves it to 03:30 CEST.
    shifted = dt.datetime(2026, 3, 29, 3, 30, tzinfo=VIENNA)
    series = _series(shifted)

    assert list(excluded_between(series)) == [dt.datetime(2026, 3, 29, 1, 30, tzinfo=UTC)]


def test_one_series_costs_one_query_and_none_when_its_pending_rows_are_given() -> None:
    series = _series(_at(2), pending=(_at(3),))

    with CaptureQueriesContext(connection) as read:
        excluded = excluded_between(series)
    with CaptureQueriesContext(connection) as given:
        folded = excluded_between(series, pending=FOLDED)
    with CaptureQueriesContext(connection) as passed:
        passed_in = excluded_between(series, pending=[_at(4)])

    assert (len(read), len(given), len(passed)) == (1, 0, 0)
    assert list(excluded) == [_at(2), _at(3)]
    assert list(folded) == [_at(2)]
    assert [(i, e.reason) for i, e in passed_in.items()] == [(_at(2), EXDATE), (_at(4), PENDING)]


@pytest.mark.parametrize("count", [3, 12])
def test_many_series_cost_one_query(count: int) -> None:
    series_list = [
        _series(_at(2), pending=(_at(3 + number % 5), _at(20))) for number in range(count)
    ]
    fresh = list(EventSeries.objects.filter(pk__in=[s.pk for s in series_list]))

    with CaptureQueriesContext(connection) as queries:
        excluded = excluded_for_series(fresh, _at(1), _at(10))

    assert len(queries) == 1
    assert set(excluded) == {s.pk for s in series_list}
    for number, series in enumerate(series_list):
        assert list(excluded[series.pk]) == [_at(2), _at(3 + number % 5)]


def test_no_series_and_given_pending_rows_cost_no_query() -> None:
    series = _series(_at(2), pending=(_at(3),))

    with CaptureQueriesContext(connection) as queries:
        assert excluded_for_series([]) == {}
        given = excluded_for_series([series], pending={})
        assert read_pending([]) == {}

    assert len(queries) == 0
    assert list(given[series.pk]) == [_at(2)]


def test_read_pending_keys_every_series_asked_and_keeps_rows_outside_no_bound() -> None:
    with_rows = _series(pending=(_at(3), _at(3)))
    without = _series()

    found = read_pending([with_rows.pk, without.pk])

    assert found == {with_rows.pk: [_at(3), _at(3)], without.pk: []}
    assert read_pending([with_rows.pk], _at(4)) == {with_rows.pk: []}


def test_a_naive_bound_is_refused() -> None:
    series = _series()

    with pytest.raises(ValueError, match="aware"):
        excluded_between(series, dt.datetime(2026, 3, 2, 10))
