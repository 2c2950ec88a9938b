"""A change of time or weekday moves the dates (testapp host): by plan and by split."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.plans import plan_recurrence_change
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import client, user_with
from tests.support.factories import VIENNA, make_series
from tests.support.moves import (
    check_change_feed_reports_rescheduled,
    check_feeds_expand_the_rows,
    check_patch_moves_booked_when_told,
    check_split_time_change,
    check_split_time_change_told,
    check_split_weekday_change,
    check_time_change_by_plan,
    check_time_change_by_plan_told,
    check_weekday_change_by_plan,
    is_open,
    later_by,
    local,
    open_per_week,
    plan_and_apply,
    plan_and_split,
    rows_of,
)

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
ZONE = "Europe/Vienna"


@pytest.fixture
def api(django_user_model: Any) -> APIClient:
    return client(
        user_with(django_user_model, "organiser", "change_eventseries", "view_eventseries")
    )


def book(row: Event) -> None:
    Seat.objects.create(event=row, label="Ada", quantity=1, booked=1)


def _series() -> Any:
    """Mondays 18:30 in Vienna from next Monday, eight weeks generated."""
    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(0 - today.weekday()) % 7 or 7)
    start = dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)
    series = make_series(dtstart=start, weekdays=[0], window_weeks=8)
    generate_series_events(series)
    return series


def test_with_nobody_told_a_time_change_by_plan_moves_every_unbooked_date(
    api: APIClient, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = _series()
    since = timezone.now()
    check_time_change_by_plan(api, series, book, zone=ZONE)
    check_change_feed_reports_rescheduled(api, series, since=since)
    check_feeds_expand_the_rows(api, series)


def test_with_the_people_told_a_time_change_by_plan_moves_the_booked_dates_too(
    api: APIClient,
) -> None:
    series = _series()
    check_time_change_by_plan_told(api, series, book, zone=ZONE)
    check_feeds_expand_the_rows(api, series)


def test_a_weekday_change_by_plan_moves_every_date_to_its_week(api: APIClient) -> None:
    series = _series()
    check_weekday_change_by_plan(api, series, book, zone=ZONE, weekday=0)
    check_feeds_expand_the_rows(api, series)


def test_with_nobody_told_a_split_with_a_time_change_moves_the_dates_without_doubling_them(
    api: APIClient, settings: Any
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    original, continuation = check_split_time_change(
        api, _series(), book, zone=ZONE, delta=dt.timedelta(minutes=30)
    )
    check_feeds_expand_the_rows(api, original, continuation)


def test_with_the_people_told_a_split_with_a_time_change_moves_the_booked_date_too(
    api: APIClient,
) -> None:
    original, continuation = check_split_time_change_told(
        api, _series(), book, zone=ZONE, delta=dt.timedelta(minutes=30)
    )
    check_feeds_expand_the_rows(api, original, continuation)


def test_a_split_to_another_weekday_moves_the_dates_to_their_weeks(api: APIClient) -> None:
    series = _series()
    continuation = check_split_weekday_change(api, series, zone=ZONE, weekday=0)
    check_feeds_expand_the_rows(api, series, continuation)


def test_moving_the_whole_series_one_hour_later_across_a_dst_switch_keeps_the_wall_clock(
    api: APIClient,
) -> None:
    """32 weeks hold at least one switch of Vienna's clocks whatever today is."""
    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(0 - today.weekday()) % 7 or 7)
    series = make_series(
        dtstart=dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA),
        weekdays=[0],
        window_weeks=32,
    )
    generate_series_events(series)
    before = {row.pk: row for row in rows_of(series)}
    assert (
        len({row.occurrence_start.astimezone(VIENNA).utcoffset() for row in before.values()}) == 2
    )

    plan, applied = plan_and_apply(
        api, series, later_by(series, dt.timedelta(hours=1)), cancel_drift="none"
    )

    assert sorted(map(str, applied["moved"])) == sorted(map(str, before))
    assert plan["new"] == []
    assert applied["created"] == []
    after = {row.pk: row for row in rows_of(series)}
    assert set(after) == set(before)
    for pk, row in after.items():
        wall = row.occurrence_start.astimezone(VIENNA)
        assert (wall.hour, wall.minute) == (19, 30)
        assert wall.date() == before[pk].occurrence_start.astimezone(VIENNA).date()
        assert row.recurrence_id == row.occurrence_start


def test_the_plan_hash_changes_when_a_move_would_change() -> None:
    """Tuesdays to Mondays: a Tuesday moves to the Monday of its week while that Monday is
    still to come; once it has passed, the same rows have no partner that week."""
    today = timezone.now().astimezone(VIENNA).date()
    monday = today + dt.timedelta(days=(0 - today.weekday()) % 7 or 7)
    start = dt.datetime.combine(monday + dt.timedelta(days=1), dt.time(18, 30), tzinfo=VIENNA)
    # Three dates: the new dates do not depend on where the window ends.
    series = make_series(dtstart=start, weekdays=[1], window_weeks=8, count=3)
    generate_series_events(series)
    # The rule's Mondays start after its first Tuesday: the second week's is the first.
    second = rows_of(series)[1]
    later_monday = monday + dt.timedelta(weeks=1)
    morning = dt.datetime.combine(later_monday, dt.time(8, 0), tzinfo=VIENNA)
    evening = dt.datetime.combine(later_monday, dt.time(20, 0), tzinfo=VIENNA)
    change = {"weekdays": [0]}

    early = plan_recurrence_change(series, change, now=morning)
    late = plan_recurrence_change(series, change, now=evening)

    moves_early = {row.id: row.moves_to for row in early.drift}
    moves_late = {row.id: row.moves_to for row in late.drift}
    assert set(moves_early) == set(moves_late)
    assert moves_early[second.pk] is not None
    assert moves_late[second.pk] is None
    assert [date.start for date in early.new] == [date.start for date in late.new]
    assert early.hash != late.hash


def test_with_nobody_told_a_patch_moves_the_unbooked_dates_and_names_the_booked_ones_it_leaves(
    api: APIClient, settings: Any
) -> None:
    """No ticks: a PATCH moves what nobody booked and cancels nothing."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = _series()
    before = rows_of(series)
    book(before[3])

    answer = api.patch(
        f"/api/recurring/series/{series.pk}/",
        {"recurrence": {"weekdays": [2]}},
        format="json",
    )

    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert sorted(str(row["id"]) for row in body["moved"]) == sorted(
        str(row.pk) for row in before if row.pk != before[3].pk
    )
    assert [str(row["id"]) for row in body["drift"]] == [str(before[3].pk)]
    assert body["drift"][0]["bookings"] == 1
    after = {row.pk: row for row in rows_of(series)}
    assert all(is_open(row) for row in after.values())
    assert after[before[3].pk].occurrence_start == before[3].occurrence_start
    for row in before:
        if row.pk != before[3].pk:
            assert after[row.pk].occurrence_start.astimezone(VIENNA).weekday() == 2


def test_with_the_people_told_a_patch_moves_the_booked_dates_too(api: APIClient) -> None:
    check_patch_moves_booked_when_told(api, _series(), book, zone=ZONE, weekday=0)


def test_a_date_cancelled_at_the_old_time_stays_cancelled_at_the_new_time(
    api: APIClient,
) -> None:
    series = _series()
    before = rows_of(series)
    cancel_occurrence(series, before[2].occurrence_start)

    plan, _applied = plan_and_apply(api, series, later_by(series, dt.timedelta(minutes=30)))

    assert [str(row["id"]) for row in plan["cancelled_moves"]] == [str(before[2].pk)]
    after = {row.pk: row for row in rows_of(series)}
    assert set(after) == {row.pk for row in before}, "nothing made again on the cancelled day"
    assert not is_open(after[before[2].pk])
    assert after[before[2].pk].occurrence_start == before[2].occurrence_start + dt.timedelta(
        minutes=30
    )
    series.refresh_from_db()
    assert after[before[2].pk].recurrence_id in series.exdate_instants
    assert before[2].recurrence_id not in series.exdate_instants


def test_a_split_to_another_weekday_leaves_the_old_cancelled_dates_with_the_original(
    api: APIClient,
) -> None:
    series = _series()
    before = rows_of(series)
    cancel_occurrence(series, before[3].occurrence_start)
    at = before[1].recurrence_id

    _plan, done = plan_and_split(api, series, at, {"weekdays": [3]}, cancel_drift="unbooked")

    continuation = EventSeries.objects.get(pk=done["continuation"]["id"])
    assert before[3].pk in {row.pk for row in rows_of(series)}
    assert {local(row, ZONE).weekday() for row in rows_of(continuation)} == {3}
    assert all(is_open(row) for row in rows_of(continuation))
    week = before[3].occurrence_start.isocalendar()[:2]
    assert open_per_week(continuation, since=at)[week] == 1
    assert done["moved_cancelled"] == []


def test_moving_24_weeks_takes_as_many_queries_as_moving_4() -> None:
    """One operation, a fixed number of statements: never one per moved row."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from revel_recurring.services.plans import apply_recurrence_plan

    today = timezone.now().astimezone(VIENNA).date()
    day = today + dt.timedelta(days=(0 - today.weekday()) % 7 or 7)
    counts = {}
    for weeks in (4, 24):
        series = make_series(
            dtstart=dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA),
            weekdays=[0],
            window_weeks=weeks,
            name=f"{weeks} weeks",
        )
        generate_series_events(series)
        change = {"weekdays": [2]}
        plan = plan_recurrence_change(series, change)
        with CaptureQueriesContext(connection) as queries:
            applied = apply_recurrence_plan(series, plan.hash, change)
        assert len(applied.moved) == weeks
        counts[weeks] = len(queries)

    assert counts[4] == counts[24], counts
