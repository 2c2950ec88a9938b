"""Reverting an operation (services.revert): its inverse as a plan, applied by hash, or refused.

A revert puts the rows back exactly (same ids, starts, slots, statuses), the rule and
the schedule settings from the record's ``before``, removes the rows the operation
created, and refuses, writing nothing, when something it depends on changed since.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.exceptions import PlanOutdatedError, RevertRefusedError
from revel_recurring.models import (
    DeletedSeries,
    EventSeries,
    OccurrenceChange,
    PendingExdate,
    PersonNotice,
    RecurrenceRule,
    SeriesOperation,
)
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.editing import update_series
from revel_recurring.services.plans import (
    HOLIDAYS_KEY,
    WINDOW_KEY,
    apply_recurrence_plan,
    plan_recurrence_change,
)
from revel_recurring.services.recurrence import update_series_recurrence
from revel_recurring.services.revert import apply_revert, plan_revert
from revel_recurring.services.splits import plan_split, split_series
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NOW, monday, weekly_series
from tests.support.holidays import AUSTRIA_SKIP
from tests.support.revert import last_operation

pytestmark = pytest.mark.django_db

TUESDAYS = {"weekdays": [1]}
# The course ends after its first Monday: the dates after it drift with nowhere to go.
ENDED = {"until": dt.datetime(2026, 3, 5, tzinfo=dt.UTC)}
LATER = NOW + dt.timedelta(days=1)


def rows_of(*series: EventSeries) -> list[tuple[Any, ...]]:
    """Every non-template row of ``series``: id, series, slot, start, end, status."""
    return list(
        Event.objects.filter(series__in=series, is_template=False)
        .order_by("pk")
        .values_list("pk", "series_id", "recurrence_id", "starts_at", "ends_at", "state")
    )


def rule_of(series: EventSeries) -> dict[str, Any]:
    return EventSeries.objects.get(pk=series.pk).recurrence_rule.field_values()


def schedule_of(series: EventSeries) -> tuple[Any, ...]:
    stored = EventSeries.objects.get(pk=series.pk)
    return (
        stored.exdates,
        stored.extra_dates,
        stored.generation_window_weeks,
        stored.holiday_policy,
        stored.last_generated_until,
        stored.last_occurrence_index,
    )


def book(event: Event) -> None:
    seat = Seat.objects.filter(event=event).order_by("pk").first()
    if seat is None:
        seat = Seat.objects.create(event=event, label="Row 1", quantity=10)
    seat.booked = 1
    seat.save(update_fields=["booked"])


def everything() -> tuple[Any, ...]:
    """What a refused revert must leave alone: rows, series, rules, records, change log."""
    return (
        list(Event.objects.order_by("pk").values()),
        list(EventSeries.objects.order_by("pk").values()),
        list(RecurrenceRule.objects.order_by("pk").values()),
        SeriesOperation.objects.count(),
        OccurrenceChange.objects.count(),
    )


def tuesday_plan(series: EventSeries) -> SeriesOperation:
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    apply_recurrence_plan(series, plan.hash, TUESDAYS, cancel_drift="all", now=NOW)
    return last_operation(series, "plan")


def test_reverting_a_plan_puts_back_the_rows_and_the_rule() -> None:
    series = weekly_series()
    rows, rule, schedule = rows_of(series), rule_of(series), schedule_of(series)
    operation = tuesday_plan(series)
    assert rows_of(series) != rows

    plan = plan_revert(operation, now=LATER)
    assert plan.kind == "plan"
    assert plan.rows
    assert {row.action for row in plan.rows} <= {"restore", "remove"}
    assert any(change.name == "weekdays" for change in plan.settings)
    result = apply_revert(operation, plan_hash=plan.hash, now=LATER)

    assert rows_of(series) == rows
    assert rule_of(series) == rule
    assert schedule_of(series) == schedule
    revert = SeriesOperation.objects.get(pk=result.operation_id)
    assert revert.kind == "revert"
    assert revert.reverts_id == operation.pk


def test_reverting_a_cancel_stale_restores_the_dates() -> None:
    series = weekly_series()
    update_series_recurrence(series, rule_changes=ENDED, now=NOW)
    rows, schedule = rows_of(series), schedule_of(series)
    cancel_stale_occurrences(series, now=NOW)
    operation = last_operation(series, "cancel_stale")
    assert rows_of(series) != rows

    plan = plan_revert(operation, now=LATER)
    apply_revert(operation, plan_hash=plan.hash, now=LATER)

    assert rows_of(series) == rows
    assert schedule_of(series) == schedule


def test_reverting_a_split_gives_the_rows_back_and_deletes_the_continuation() -> None:
    series = weekly_series()
    rows, rule, schedule = rows_of(series), rule_of(series), schedule_of(series)
    at = monday(3)
    split = plan_split(series, at=at, recurrence=TUESDAYS, now=NOW)
    result = split_series(series, at=at, recurrence=TUESDAYS, plan_hash=split.hash, now=NOW)
    continuation = result.continuation
    operation = last_operation(series, "split")

    plan = plan_revert(operation, now=LATER)
    assert plan.removes_series == continuation.pk
    apply_revert(operation, plan_hash=plan.hash, now=LATER)

    assert rows_of(series) == rows
    assert rule_of(series) == rule
    assert schedule_of(series) == schedule
    assert not EventSeries.objects.filter(pk=continuation.pk).exists()
    assert DeletedSeries.latest(series_pk=continuation.pk) is not None


def test_a_booking_on_a_date_the_revert_would_remove_refuses_it() -> None:
    series = weekly_series()
    wider = {WINDOW_KEY: 10}
    plan = plan_recurrence_change(series, wider, now=NOW)
    apply_recurrence_plan(series, plan.hash, wider, now=NOW)
    operation = last_operation(series, "plan")
    created = [row for row in plan_revert(operation, now=LATER).rows if row.action == "remove"]
    assert len(created) == 2
    book(Event.objects.get(pk=created[-1].id))
    before = everything()

    with pytest.raises(RevertRefusedError) as refused:
        plan_revert(operation, now=LATER)

    assert "holds bookings" in str(refused.value)
    assert refused.value.message_dict.keys() == {"operation"}
    assert everything() == before


def test_reverting_a_wider_window_removes_the_dates_it_created() -> None:
    series = weekly_series()
    rows, schedule = rows_of(series), schedule_of(series)
    wider = {WINDOW_KEY: 10}
    plan = plan_recurrence_change(series, wider, now=NOW)
    apply_recurrence_plan(series, plan.hash, wider, now=NOW)
    operation = last_operation(series, "plan")

    revert = plan_revert(operation, now=LATER)
    result = apply_revert(operation, plan_hash=revert.hash, now=LATER)

    assert len(result.removed) == 2
    assert rows_of(series) == rows
    assert schedule_of(series) == schedule
    # Their slots are excluded nowhere: generation may create them again.
    assert not PendingExdate.objects.filter(series=series).exists()


def test_a_later_operation_refuses_the_revert_and_nothing_is_written() -> None:
    series = weekly_series()
    operation = tuesday_plan(series)
    plan = plan_revert(operation, now=LATER)
    cancel_occurrence(series, monday(6) + dt.timedelta(days=1), now=LATER)
    before = everything()
    with pytest.raises(RevertRefusedError) as refused:
        apply_revert(operation, plan_hash=plan.hash, now=LATER)
    assert "after this operation" in str(refused.value)
    assert everything() == before


def test_reverting_the_later_operation_first_lets_the_earlier_one_revert() -> None:
    series = weekly_series()
    rows, rule = rows_of(series), rule_of(series)
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    apply_recurrence_plan(series, plan.hash, TUESDAYS, cancel_drift="none", now=NOW)
    operation = last_operation(series, "plan")
    cancel_stale_occurrences(series, now=LATER)
    later = last_operation(series, "cancel_stale")
    with pytest.raises(RevertRefusedError, match="revert that first"):
        plan_revert(operation, now=LATER)
    undo_later = plan_revert(later, now=LATER)
    apply_revert(later, plan_hash=undo_later.hash, now=LATER)

    undo = plan_revert(operation, now=LATER)
    apply_revert(operation, plan_hash=undo.hash, now=LATER)

    assert rows_of(series) == rows
    assert rule_of(series) == rule


def test_a_revert_applies_once() -> None:
    series = weekly_series()
    operation = tuesday_plan(series)
    plan = plan_revert(operation, now=LATER)
    apply_revert(operation, plan_hash=plan.hash, now=LATER)
    with pytest.raises(RevertRefusedError, match="reverted already"):
        plan_revert(operation, now=LATER)


def test_a_stale_hash_answers_the_fresh_plan() -> None:
    series = weekly_series()
    operation = tuesday_plan(series)
    plan = plan_revert(operation, now=LATER)
    row = next(row for row in plan.rows if row.action == "restore")
    # A booking on a date the revert moves back: it still applies, but not unseen.
    book(Event.objects.get(pk=row.id))
    before = everything()
    with pytest.raises(PlanOutdatedError) as stale:
        apply_revert(operation, plan_hash=plan.hash, now=LATER)
    assert stale.value.plan.hash != plan.hash
    assert everything() == before


def test_reverting_a_move_puts_the_dates_back_on_mondays() -> None:
    series = weekly_series()
    rows, rule, schedule = rows_of(series), rule_of(series), schedule_of(series)
    update_series(series, rule_changes=TUESDAYS, now=NOW)
    operation = last_operation(series, "move")
    assert rows_of(series) != rows

    apply_revert(operation, plan_hash=plan_revert(operation, now=LATER).hash, now=LATER)

    assert (rows_of(series), rule_of(series), schedule_of(series)) == (rows, rule, schedule)


def test_reverting_a_holiday_policy_change_restores_easter_monday() -> None:
    series = weekly_series()
    rows, schedule = rows_of(series), schedule_of(series)
    change = {HOLIDAYS_KEY: AUSTRIA_SKIP}
    plan = plan_recurrence_change(series, change, now=NOW)
    apply_recurrence_plan(series, plan.hash, change, cancel_drift="all", now=NOW)
    operation = last_operation(series, "holidays")
    assert rows_of(series) != rows  # Easter Monday (6 April 2026) is cancelled

    revert = plan_revert(operation, now=LATER)
    assert "holiday_country" in {change.name for change in revert.settings}
    apply_revert(operation, plan_hash=revert.hash, now=LATER)

    assert rows_of(series) == rows
    assert schedule_of(series) == schedule
    assert EventSeries.objects.get(pk=series.pk).holiday_country == ""


def test_a_revert_plan_reads_in_bounded_queries(
    django_assert_max_num_queries: Any,
) -> None:
    small, large = weekly_series(window_weeks=4), weekly_series(name="Long", window_weeks=40)
    operations = []
    for series in (small, large):
        update_series_recurrence(series, rule_changes=ENDED, now=NOW)
        cancel_stale_occurrences(series, now=NOW)
        operations.append(last_operation(series, "cancel_stale"))
    assert len(plan_revert(operations[1], now=LATER).rows) >= 30

    with CaptureQueriesContext(connection) as few:
        plan_revert(operations[0], now=LATER)
    with django_assert_max_num_queries(len(few)):
        plan_revert(operations[1], now=LATER)


def test_the_people_on_dates_a_revert_moves_are_told_once(book_person: Any) -> None:
    series = weekly_series(auto_publish=True)
    moved = Event.objects.filter(series=series, is_template=False).order_by("starts_at")[2]
    book_person(moved, "ana@example.com", name="Ana")
    plan = plan_recurrence_change(series, TUESDAYS, notify="none", now=NOW)
    apply_recurrence_plan(series, plan.hash, TUESDAYS, cancel_drift="all", notify="none", now=NOW)
    operation = last_operation(series, "plan")
    assert not PersonNotice.objects.exists()

    revert = plan_revert(operation, now=LATER)
    result = apply_revert(operation, plan_hash=revert.hash, notify="all", now=LATER)

    notice = PersonNotice.objects.get()
    assert notice.address == "ana@example.com"
    assert notice.operation_id == result.operation_id
    assert SeriesOperation.objects.filter(kind="revert").count() == 1


def test_reverting_the_later_of_two_splits_gives_the_first_continuation_back_its_place() -> None:
    series = weekly_series()
    rows, rule = rows_of(series), rule_of(series)
    late = split_series(series, at=monday(5), recurrence=TUESDAYS, now=NOW).continuation
    early = split_series(series, at=monday(2), now=NOW).continuation
    assert EventSeries.objects.get(pk=late.pk).split_from_id == early.pk
    operation = last_operation(series, "split")

    apply_revert(operation, plan_hash=plan_revert(operation, now=LATER).hash, now=LATER)

    assert not EventSeries.objects.filter(pk=early.pk).exists()
    assert EventSeries.objects.get(pk=late.pk).split_from_id == series.pk
    assert rule_of(series) != rule  # back to the first split's end, not the start
    assert [row[0] for row in rows_of(series, late)] == [row[0] for row in rows]
