"""Change plans (services.plans): what a plan says, and that only the plan seen is applied.

The property that a plan equals its effect for random rules, states and changes
is in test_plans_properties.py; two clients racing on PostgreSQL in
test_plans_postgres.py; the studio host (UUID keys, Booking rows) in
tests/studio/plans/test_plans.py; what a plan does with extra dates in
test_plans_extra_dates.py.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.context import replacing_template
from revel_recurring.describe import describe_spec
from revel_recurring.exceptions import InvalidArgumentError, PlanOutdatedError, SeriesNotReadyError
from revel_recurring.models import EventSeries, PendingExdate, RecurrenceRule
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences, detect_cadence_drift
from revel_recurring.services.extra_dates import add_extra_date, remove_extra_date
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import pause_series
from revel_recurring.services.plans import (
    EXTRA_DATES_KEY,
    WINDOW_KEY,
    ExcludedBecause,
    RecurrencePlan,
    apply_recurrence_plan,
    plan_recurrence_change,
)
from revel_recurring.services.recurrence import update_series_recurrence
from revel_recurring.signals import occurrence_cancelled, series_recurrence_changed
from tests.hosts.testapp import notifier
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import (
    NOW,
    UTC,
    VIENNA,
    captured,
    fresh,
    make_series,
    monday,
    occurrences,
    weekly_series,
)

pytestmark = pytest.mark.django_db

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED
TUESDAYS = {"weekdays": [1]}
# The course ends after its first Monday: the seven after it have no date of the rule
# in their week to move to, so they stay drift (cancelled as cancel_drift says).
ENDED = {"until": dt.datetime(2026, 3, 5, tzinfo=UTC)}
LATER = NOW + dt.timedelta(weeks=2)
# Extra dates beyond every window below: a Wednesday evening in June, and the next.
JUNE = dt.datetime(2026, 6, 17, 18, 30, tzinfo=VIENNA)
LATE_JUNE = JUNE + dt.timedelta(weeks=1)


def tuesday(week: int) -> dt.datetime:
    return monday(week) + dt.timedelta(days=1)


def book(event: Event, *places: int) -> None:
    """Take ``places`` on the event's seats, one number per seat (more seats made as needed)."""
    seats = list(Seat.objects.filter(event=event).order_by("pk"))
    for number in range(len(seats), len(places)):
        seats.append(Seat.objects.create(event=event, label=f"Extra {number}", quantity=10))
    for seat, taken in zip(seats, places, strict=False):
        seat.booked = taken
        seat.save(update_fields=["booked"])


def ids(rows: Any) -> list[Any]:
    return [row.id for row in rows]


def starts(dates: Any) -> list[dt.datetime]:
    return [date.start for date in dates]


def state_of(event: Event) -> str:
    return Event.objects.values_list("state", flat=True).get(pk=event.pk)


def snapshot(series: EventSeries) -> tuple[Any, ...]:
    """Every column a plan or its apply could write: the series, its rule, rows, pending slots."""
    stored = EventSeries.objects.get(pk=series.pk)
    rule = RecurrenceRule.objects.filter(series=stored).values().first()
    columns = {f.attname: getattr(stored, f.attname) for f in EventSeries._meta.concrete_fields}
    rows = list(Event.objects.filter(series=series).order_by("pk").values())
    seats = list(Seat.objects.filter(event__series=series).order_by("pk").values())
    pending = list(PendingExdate.objects.filter(series=series).order_by("pk").values())
    return columns, rule, rows, seats, pending


@pytest.fixture(autouse=True)
def _clear_digests() -> Any:
    notifier.digests.clear()
    notifier.per_event_notifications.clear()
    yield
    notifier.digests.clear()
    notifier.per_event_notifications.clear()


# What a plan says


def test_a_weekday_change_moves_every_monday_to_the_tuesday_of_its_week() -> None:
    series = weekly_series()
    rows = occurrences(series)
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert plan.series_id == series.pk
    assert plan.changed == {"weekdays"}
    assert plan.stay == ()
    assert ids(plan.drift) == [row.pk for row in rows]
    assert [row.start for row in plan.drift] == [monday(week) for week in range(8)]
    # Each Monday's partner is its week's Tuesday: the row moves there, slot and all,
    # and the Tuesdays are no new dates beside them.
    assert [row.moves_to for row in plan.drift] == [tuesday(week) for week in range(8)]
    assert [row.new_slot for row in plan.drift] == [tuesday(week) for week in range(8)]
    assert ids(plan.moves) == [row.pk for row in rows]
    assert plan.new == ()
    assert plan.cancelled_moves == ()
    assert plan.excluded == ()
    assert plan.timezone == "Europe/Vienna"
    assert plan.generation_window_weeks == 8
    assert plan.horizon == NOW + dt.timedelta(weeks=8)


def test_planning_writes_nothing() -> None:
    series = weekly_series()
    book(occurrences(series)[2], 1)
    before = snapshot(series)
    with captured(series_recurrence_changed) as changed:
        plan_recurrence_change(series, {**TUESDAYS, WINDOW_KEY: 12}, now=NOW)
    assert snapshot(series) == before
    assert changed == []


def test_the_new_rule_is_described_and_spelled_as_it_will_be_stored() -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, {"interval": 2, "weekdays": [0, 2]}, now=NOW)
    assert plan.description == "Every 2 weeks on Monday and Wednesday at 10:00 (Europe/Vienna)"
    assert plan.rrule_string.splitlines() == [
        "DTSTART;TZID=Europe/Vienna:20260302T100000",
        "RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE",
    ]
    apply_recurrence_plan(series, plan.hash, {"interval": 2, "weekdays": [0, 2]}, now=NOW)
    rule = fresh(series).recurrence_rule
    assert rule is not None
    assert rule.rrule_string == plan.rrule_string
    assert describe_spec(rule.to_spec()) == plan.description


def test_excluded_dates_say_whether_a_date_was_cancelled_or_is_an_exdate() -> None:
    series = weekly_series()
    rows = occurrences(series)
    cancel_occurrence(series, monday(2), now=NOW)
    Event.objects.filter(pk=rows[4].pk).delete()  # its slot is a pending exdate
    cancel_occurrence(series, monday(9), now=NOW)  # not generated yet: an exdate alone
    plan = plan_recurrence_change(series, {WINDOW_KEY: 10}, now=NOW)
    assert [(date.start, date.reason) for date in plan.excluded] == [
        (monday(2), ExcludedBecause.CANCELLED),
        (monday(4), ExcludedBecause.EXDATE),
        (monday(9), ExcludedBecause.EXDATE),
    ]
    assert plan.excluded[0].display == "Mon 16 Mar 2026 10:00 (Europe/Vienna)"
    assert starts(plan.new) == [monday(8)]
    assert ids(plan.stay) == [rows[week].pk for week in (0, 1, 3, 5, 6, 7)]
    assert plan.drift == ()
    # On Tuesdays the excluded Mondays are no date of the rule at all. A cancellation
    # keeps to its day: the cancelled Monday stays where it is, and its week's Tuesday
    # is a new date like the others.
    on_tuesdays = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert on_tuesdays.excluded == ()
    assert on_tuesdays.cancelled_moves == ()
    assert [row.id for row in on_tuesdays.cancelled_off] == [rows[2].pk]
    assert tuesday(2) in starts(on_tuesdays.new)


def test_the_cursor_resets_when_the_schedule_changes_and_a_cursor_was_written() -> None:
    generated = weekly_series()
    assert plan_recurrence_change(generated, TUESDAYS, now=NOW).cursor_reset is True
    assert plan_recurrence_change(generated, {WINDOW_KEY: 9}, now=NOW).cursor_reset is True
    assert plan_recurrence_change(generated, {}, now=NOW).cursor_reset is False
    # Values equal to the current ones are no change.
    same = {"weekdays": [], "interval": 1, WINDOW_KEY: 8}
    assert plan_recurrence_change(generated, same, now=NOW).changed == frozenset()
    never = weekly_series(name="Never generated", generate=False)
    assert fresh(never).last_generated_until is None
    assert plan_recurrence_change(never, TUESDAYS, now=NOW).cursor_reset is False
    plan = plan_recurrence_change(generated, TUESDAYS, now=NOW)
    applied = apply_recurrence_plan(generated, plan.hash, TUESDAYS, now=NOW)
    assert applied.cursor_reset is True
    assert applied.changed == {"weekdays"}


def test_a_window_change_only_keeps_every_date_and_plans_the_weeks_it_adds() -> None:
    series = weekly_series()
    rows = occurrences(series)
    plan = plan_recurrence_change(series, {WINDOW_KEY: 10}, now=NOW)
    assert plan.changed == {WINDOW_KEY}
    assert plan.cursor_reset is True
    assert ids(plan.stay) == [row.pk for row in rows]
    assert plan.drift == ()
    assert starts(plan.new) == [monday(8), monday(9)]
    assert plan.generation_window_weeks == 10
    assert plan.horizon == NOW + dt.timedelta(weeks=10)
    applied = apply_recurrence_plan(series, plan.hash, {WINDOW_KEY: 10}, now=NOW)
    assert [row.starts_at for row in applied.created] == [monday(8), monday(9)]
    assert fresh(series).generation_window_weeks == 10


def test_no_change_plans_no_drift_and_what_generation_would_create_now() -> None:
    series = weekly_series()  # weeks 0..7 generated at NOW; two weeks later 8 and 9 are due
    plan = plan_recurrence_change(series, {}, now=LATER)
    assert plan.changed == frozenset()
    assert plan.cursor_reset is False
    assert plan.drift == ()
    assert ids(plan.stay) == [row.pk for row in occurrences(series)[2:]]
    assert starts(plan.new) == [monday(8), monday(9)]
    created = generate_series_events(series, now=LATER)
    assert [row.occurrence_start for row in created] == starts(plan.new)


def test_a_row_moved_by_hand_is_judged_by_the_slot_it_stands_for() -> None:
    series = weekly_series()
    rows = occurrences(series)
    moved_an_hour, moved_to_tuesday = rows[2], rows[5]
    moved_an_hour.starts_at += dt.timedelta(hours=1)
    moved_an_hour.save()
    moved_to_tuesday.starts_at = tuesday(5)
    moved_to_tuesday.save()

    unchanged = plan_recurrence_change(series, {}, now=NOW)
    assert moved_an_hour.pk in ids(unchanged.stay)
    assert unchanged.drift == ()

    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert ids(plan.drift) == [row.pk for row in rows]  # on a Tuesday, but for a Monday
    by_id = {row.id: row for row in plan.drift}
    assert by_id[moved_to_tuesday.pk].is_modified is True
    assert by_id[moved_to_tuesday.pk].start == tuesday(5)
    assert by_id[moved_to_tuesday.pk].slot == monday(5)
    assert by_id[rows[0].pk].is_modified is False


def test_bookings_are_the_hosts_count_of_places_taken() -> None:
    series = weekly_series()
    rows = occurrences(series)
    book(rows[1], 2, 3)  # two seats: five places
    book(rows[4], 1)
    book(rows[6], 0)  # a seat with nothing taken is no booking
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert [row.bookings for row in plan.drift] == [0, 5, 0, 0, 1, 0, 0, 0]
    assert ids(plan.booked_drift) == [rows[1].pk, rows[4].pk]
    unchanged = plan_recurrence_change(series, {}, now=NOW)
    assert [row.bookings for row in unchanged.stay] == [0, 5, 0, 0, 1, 0, 0, 0]


def _paused(series: EventSeries) -> None:
    pause_series(series, now=NOW)


def _without_template(series: EventSeries) -> None:
    with replacing_template(series.pk):  # the only way a template goes on its own
        Event.objects.filter(series=series, is_template=True).delete()


@pytest.mark.parametrize("stop", [_paused, _without_template], ids=["paused", "without-template"])
def test_a_series_that_cannot_generate_plans_no_new_dates_but_still_its_drift(
    stop: Callable[[EventSeries], None],
) -> None:
    series = weekly_series()
    stop(series)
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert plan.new == ()
    assert len(plan.drift) == 8
    applied = apply_recurrence_plan(series, plan.hash, TUESDAYS, now=NOW)
    assert applied.created == []
    assert len(occurrences(series)) == 8
    assert fresh(series).recurrence_rule.weekdays == [1]


def test_a_series_without_rule_has_nothing_to_plan() -> None:
    series = EventSeries.objects.create(name="No rule")
    with pytest.raises(SeriesNotReadyError):
        plan_recurrence_change(series, TUESDAYS, now=NOW)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"colour": "red"}, "colour"),
        ({"weekdays": [7]}, "weekdays"),
        ({"weekdays": "monday"}, "weekdays"),
        ({"interval": 0}, "interval"),
        ({WINDOW_KEY: 0}, WINDOW_KEY),
        ({WINDOW_KEY: 53}, WINDOW_KEY),
        ({WINDOW_KEY: "8"}, WINDOW_KEY),
    ],
)
def test_a_bad_change_is_refused_keyed_by_field_and_nothing_is_written(
    changes: dict[str, Any], field: str
) -> None:
    series = weekly_series()
    before = snapshot(series)
    with pytest.raises(ValidationError) as planned:
        plan_recurrence_change(series, changes, now=NOW)
    assert field in planned.value.error_dict
    with pytest.raises(ValidationError) as applied:
        apply_recurrence_plan(series, "0" * 64, changes, now=NOW)
    assert field in applied.value.error_dict
    assert snapshot(series) == before


def test_across_the_summer_time_switch_a_weekday_change_keeps_the_wall_clock() -> None:
    series = weekly_series()  # Mondays 10:00 Vienna; summer time from Sunday 29 March 2026
    rows = occurrences(series)
    change = {"weekdays": [2]}
    plan = plan_recurrence_change(series, change, now=NOW)
    targets = [row.moves_to for row in plan.drift]
    assert all(target is not None for target in targets)
    local = [target.astimezone(VIENNA) for target in targets if target is not None]
    assert {when.time() for when in local} == {dt.time(10)}
    assert {when.weekday() for when in local} == {2}
    assert [target.hour for target in targets if target is not None] == [9, 9, 9, 9, 8, 8, 8, 8]
    assert plan.new == ()
    applied = apply_recurrence_plan(series, plan.hash, change, now=NOW)
    assert applied.created == []
    assert applied.moved == [row.pk for row in rows]
    after = occurrences(series)
    assert [row.pk for row in after] == [row.pk for row in rows]
    assert [row.starts_at for row in after] == targets
    assert [row.recurrence_id for row in after] == targets
    assert [
        (when.weekday(), when.time())
        for when in (row.starts_at.astimezone(VIENNA) for row in after)
    ] == [(2, dt.time(10))] * 8


# Applying


def test_applying_sends_one_change_signal_and_one_digest(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series()
    # Every other week, twelve weeks ahead: the odd weeks' Mondays have no date of
    # the new rule in their fortnight (they are cancelled), weeks 8 and 10 are new.
    change = {"interval": 2, WINDOW_KEY: 12}
    plan = plan_recurrence_change(series, change, now=NOW)
    notifier.per_event_notifications.clear()  # the template's, when the series was created
    with (
        captured(series_recurrence_changed) as changed,
        captured(occurrence_cancelled) as cancelled,
        django_capture_on_commit_callbacks(execute=True),
    ):
        applied = apply_recurrence_plan(series, plan.hash, change, cancel_drift="all", now=NOW)
    assert len(changed) == 1
    assert changed[0]["changed_fields"] == {"interval", WINDOW_KEY}
    assert changed[0]["cursor_reset"] is True
    assert changed[0]["series"].pk == series.pk
    assert len(cancelled) == len(applied.cancelled) == 4
    assert applied.moved == []
    (digest,) = notifier.digests
    assert digest.count == len(applied.created) == 2
    assert notifier.per_event_notifications == []  # the digest, not one message per date


def test_applying_with_generate_false_leaves_the_new_dates_to_the_next_run() -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    applied = apply_recurrence_plan(series, plan.hash, TUESDAYS, generate=False, now=NOW)
    assert applied.created == []
    created = generate_series_events(series, now=NOW)
    assert [row.occurrence_start for row in created] == starts(plan.new)


def test_the_caller_instance_sees_the_applied_window_and_rule() -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, {**TUESDAYS, WINDOW_KEY: 10}, now=NOW)
    apply_recurrence_plan(series, plan.hash, {**TUESDAYS, WINDOW_KEY: 10}, now=NOW)
    assert series.generation_window_weeks == 10
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == [1]
    assert series.last_generated_until == fresh(series).last_generated_until


# Booked drift


@pytest.fixture
def drifting() -> tuple[EventSeries, list[Event], RecurrencePlan]:
    """Eight Mondays, the rule ending after the first: weeks 1..7 drift with nowhere to move,
    weeks 1 and 3 booked, week 5 moved by hand."""
    series = weekly_series()
    rows = occurrences(series)
    book(rows[1], 2)
    book(rows[3], 1)
    rows[5].starts_at = tuesday(5)
    rows[5].save()
    plan = plan_recurrence_change(series, ENDED, now=NOW)
    assert ids(plan.drift) == [row.pk for row in rows[1:]]
    assert plan.moves == ()
    return series, rows, plan


def test_unbooked_cancels_the_free_drift_and_names_the_booked_dates_kept(
    drifting: tuple[EventSeries, list[Event], RecurrencePlan],
) -> None:
    series, rows, plan = drifting
    applied = apply_recurrence_plan(series, plan.hash, ENDED, cancel_drift="unbooked", now=NOW)
    assert applied.cancelled == [rows[week].pk for week in (2, 4, 6, 7)]
    assert [date.id for date in applied.kept_booked] == [rows[1].pk, rows[3].pk]
    assert applied.kept_booked[0].display == "Mon 9 Mar 2026 10:00 (Europe/Vienna)"
    assert ids(applied.kept_modified) == [rows[5].pk]
    assert [state_of(row) for row in rows] == [
        CALLED_OFF if week in (2, 4, 6, 7) else "planned" for week in range(8)
    ]
    assert fresh(series).exdate_instants == {monday(week) for week in (2, 4, 6, 7)}
    assert detect_cadence_drift(fresh(series), now=NOW) == [rows[1].pk, rows[3].pk]


def test_all_cancels_the_booked_drift_too_but_never_a_row_moved_by_hand(
    drifting: tuple[EventSeries, list[Event], RecurrencePlan],
) -> None:
    series, rows, plan = drifting
    applied = apply_recurrence_plan(series, plan.hash, ENDED, cancel_drift="all", now=NOW)
    assert applied.cancelled == [rows[week].pk for week in (1, 2, 3, 4, 6, 7)]
    assert applied.kept_booked == []
    assert ids(applied.kept_modified) == [rows[5].pk]
    assert state_of(rows[5]) == "planned"
    assert state_of(rows[1]) == state_of(rows[3]) == CALLED_OFF


def test_none_cancels_nothing_and_still_names_the_rows_moved_by_hand(
    drifting: tuple[EventSeries, list[Event], RecurrencePlan],
) -> None:
    series, rows, plan = drifting
    applied = apply_recurrence_plan(series, plan.hash, ENDED, now=NOW)
    assert applied.cancelled == []
    assert applied.kept_booked == []
    assert ids(applied.kept_modified) == [rows[5].pk]
    assert CALLED_OFF not in {state_of(row) for row in rows}


def test_named_ids_cancel_exactly_those_booked_or_not(
    drifting: tuple[EventSeries, list[Event], RecurrencePlan],
) -> None:
    series, rows, plan = drifting
    named = [rows[1].pk, rows[2].pk]  # one booked, one free
    applied = apply_recurrence_plan(series, plan.hash, ENDED, cancel_drift=named, now=NOW)
    assert applied.cancelled == named
    assert applied.kept_booked == []
    assert ids(applied.kept_modified) == [rows[5].pk]
    assert [state_of(row) == CALLED_OFF for row in rows] == [week in (1, 2) for week in range(8)]


def test_ids_given_as_text_name_the_same_dates(
    drifting: tuple[EventSeries, list[Event], RecurrencePlan],
) -> None:
    series, rows, plan = drifting
    applied = apply_recurrence_plan(
        series, plan.hash, ENDED, cancel_drift=[str(rows[3].pk)], now=NOW
    )
    assert applied.cancelled == [rows[3].pk]


# Booked moves: the same modes, for dates that have a partner to move to


@pytest.mark.parametrize(
    ("mode", "moving"),
    [
        ("none", (0, 2, 4, 5, 6, 7)),
        ("unbooked", (0, 2, 4, 5, 6, 7)),
        ("all", tuple(range(8))),
        ("ids", (1, 2)),
    ],
)
def test_with_nobody_told_free_dates_move_under_every_mode_booked_ones_only_when_ticked(
    mode: str, moving: tuple[int, ...]
) -> None:
    series = weekly_series()
    rows = occurrences(series)
    book(rows[1], 2)
    book(rows[3], 1)
    plan = plan_recurrence_change(series, TUESDAYS, notify="none", now=NOW)
    assert ids(plan.moves) == [row.pk for row in rows]
    assert ids(plan.booked_drift) == [rows[1].pk, rows[3].pk]
    cancel: Any = [rows[1].pk, rows[2].pk] if mode == "ids" else mode
    applied = apply_recurrence_plan(
        series, plan.hash, TUESDAYS, cancel_drift=cancel, notify="none", now=NOW
    )
    assert applied.moved == [rows[week].pk for week in moving]
    assert applied.cancelled == []
    booked_staying = [] if mode in ("all", "ids") else [rows[1].pk, rows[3].pk]
    assert [date.id for date in applied.kept_booked] == booked_staying
    after = {row.pk: row for row in occurrences(series)}
    assert [after[row.pk].starts_at for row in rows] == [
        tuesday(week) if week in moving else monday(week) for week in range(8)
    ]
    assert CALLED_OFF not in {state_of(row) for row in rows}
    # A Tuesday is created beside each Monday that stays: the plan's ``new`` are those
    # beside the booked Mondays, which stay unless ticked.
    assert [row.starts_at for row in applied.created] == [
        tuesday(week) for week in range(8) if week not in moving
    ]
    assert [(date.start, date.beside) for date in plan.new] == [
        (tuesday(1), rows[1].pk),
        (tuesday(3), rows[3].pk),
    ]


@pytest.mark.parametrize(
    ("mode", "moving"),
    [
        ("none", tuple(range(8))),
        ("unbooked", tuple(range(8))),
        ("all", tuple(range(8))),
        ("ids", (1, 2)),
    ],
)
def test_with_the_people_told_booked_dates_move_like_free_ones_unless_unticked(
    mode: str, moving: tuple[int, ...]
) -> None:
    """The people told (the default): every mode moves the booked Mondays too, with
    nothing new beside them; a list of ids still moves exactly the dates it names."""
    series = weekly_series()
    rows = occurrences(series)
    book(rows[1], 2)
    book(rows[3], 1)
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert ids(plan.booked_drift) == [rows[1].pk, rows[3].pk]
    assert plan.new == ()
    cancel: Any = [rows[1].pk, rows[2].pk] if mode == "ids" else mode
    applied = apply_recurrence_plan(series, plan.hash, TUESDAYS, cancel_drift=cancel, now=NOW)
    assert applied.moved == [rows[week].pk for week in moving]
    assert (applied.cancelled, applied.kept_booked) == ([], [])
    after = {row.pk: row for row in occurrences(series)}
    assert [after[row.pk].starts_at for row in rows] == [
        tuesday(week) if week in moving else monday(week) for week in range(8)
    ]
    assert [row.starts_at for row in applied.created] == [
        tuesday(week) for week in range(8) if week not in moving
    ]


@pytest.mark.parametrize("which", ["moved by hand", "not drifting"])
def test_naming_a_date_the_plan_does_not_cancel_is_refused_and_writes_nothing(which: str) -> None:
    series = weekly_series()
    rows = occurrences(series)
    rows[5].starts_at += dt.timedelta(hours=1)
    rows[5].save()
    change = {"weekdays": [0, 1]} if which == "not drifting" else TUESDAYS
    plan = plan_recurrence_change(series, change, now=NOW)
    before = snapshot(series)
    with pytest.raises(ValidationError) as refused:
        apply_recurrence_plan(
            series, plan.hash, change, cancel_drift=[rows[5].pk, rows[0].pk], now=NOW
        )
    assert "cancel_drift" in refused.value.error_dict
    assert snapshot(series) == before


def test_an_unknown_cancel_mode_is_refused() -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    before = snapshot(series)
    with pytest.raises(InvalidArgumentError):
        apply_recurrence_plan(series, plan.hash, TUESDAYS, cancel_drift="booked", now=NOW)
    assert snapshot(series) == before


def test_a_booking_taken_after_the_plan_keeps_its_date_under_unbooked() -> None:
    series = weekly_series()
    rows = occurrences(series)
    plan = plan_recurrence_change(series, ENDED, now=NOW)
    assert plan.booked_drift == ()
    # "unbooked" compares the hash without the bookings: asked again under the row locks.
    book(rows[6], 1)
    applied = apply_recurrence_plan(series, plan.hash, ENDED, cancel_drift="unbooked", now=NOW)
    assert [date.id for date in applied.kept_booked] == [rows[6].pk]
    assert state_of(rows[6]) == "planned"
    assert len(applied.cancelled) == 6


@pytest.mark.parametrize("ticked", ["all", "ids"])
@pytest.mark.parametrize("fate", ["cancelled", "moved"])
def test_a_date_booked_after_the_plan_outdates_an_apply_that_cancels_or_moves_booked_dates(
    ticked: str, fate: str
) -> None:
    series = weekly_series()
    rows = occurrences(series)
    # The rule ending early leaves dates to cancel; Tuesdays, dates to move.
    change, drifting = (ENDED, rows[1:]) if fate == "cancelled" else (TUESDAYS, rows)
    plan = plan_recurrence_change(series, change, now=NOW)
    assert plan.booked_drift == ()
    book(rows[6], 1)
    before = snapshot(series)
    cancel: Any = "all" if ticked == "all" else [row.pk for row in drifting]
    with pytest.raises(PlanOutdatedError) as outdated:
        apply_recurrence_plan(series, plan.hash, change, cancel_drift=cancel, now=NOW)
    assert snapshot(series) == before
    assert state_of(rows[6]) == "planned"
    fresh_plan = outdated.value.plan
    assert fresh_plan is not None
    assert ids(fresh_plan.booked_drift) == [rows[6].pk]
    assert fresh_plan.hash == plan_recurrence_change(series, change, now=NOW).hash
    # The fresh plan, seen with its booking, cancels or moves it.
    applied = apply_recurrence_plan(series, fresh_plan.hash, change, cancel_drift=cancel, now=NOW)
    if fate == "cancelled":
        assert rows[6].pk in applied.cancelled
        assert state_of(rows[6]) == CALLED_OFF
    else:
        assert rows[6].pk in applied.moved
        assert state_of(rows[6]) == "planned"
        assert Event.objects.get(pk=rows[6].pk).starts_at == tuesday(6)


def test_whether_a_date_is_booked_is_hashed_not_how_many_bookings_it_holds() -> None:
    series = weekly_series()
    rows = occurrences(series)
    book(rows[2], 1)
    plan = plan_recurrence_change(series, ENDED, now=NOW)
    book(rows[2], 4)
    assert plan_recurrence_change(series, ENDED, now=NOW).hash == plan.hash
    applied = apply_recurrence_plan(series, plan.hash, ENDED, cancel_drift="all", now=NOW)
    assert len(applied.cancelled) == 7


def test_a_date_freed_after_the_plan_outdates_it_for_all_but_not_for_unbooked() -> None:
    series = weekly_series()
    rows = occurrences(series)
    book(rows[2], 1)
    plan = plan_recurrence_change(series, ENDED, now=NOW)
    book(rows[2], 0)
    with pytest.raises(PlanOutdatedError):
        apply_recurrence_plan(series, plan.hash, ENDED, cancel_drift="all", now=NOW)
    applied = apply_recurrence_plan(series, plan.hash, ENDED, cancel_drift="unbooked", now=NOW)
    assert len(applied.cancelled) == 7


# The hash: only the state the plan saw is changed


def _another_change(series: EventSeries, rows: list[Event]) -> None:
    update_series_recurrence(series, rule_changes={"interval": 2}, now=NOW)


def _another_window(series: EventSeries, rows: list[Event]) -> None:
    update_series_recurrence(series, generation_window_weeks=9, now=NOW)


def _cancel(series: EventSeries, rows: list[Event]) -> None:
    cancel_occurrence(series, monday(3), now=NOW)


def _cancel_ahead(series: EventSeries, rows: list[Event]) -> None:
    cancel_occurrence(series, monday(11), now=NOW)  # no row yet: the exdate alone


def _restore(series: EventSeries, rows: list[Event]) -> None:
    restore_occurrence(series, monday(2), now=NOW)  # cancelled before the plan


def _move(series: EventSeries, rows: list[Event]) -> None:
    rows[4].starts_at += dt.timedelta(minutes=15)
    rows[4].save()


def _retitle(series: EventSeries, rows: list[Event]) -> None:
    rows[6].title = "Yoga outdoors"
    rows[6].save()


def _delete(series: EventSeries, rows: list[Event]) -> None:
    Event.objects.filter(pk=rows[7].pk).delete()


def _generate_later(series: EventSeries, rows: list[Event]) -> None:
    assert len(generate_series_events(series, now=LATER)) == 2


def _pause(series: EventSeries, rows: list[Event]) -> None:
    pause_series(series, now=NOW)


def _publish(series: EventSeries, rows: list[Event]) -> None:
    rows[5].state = Event.RECURRING_STATUS_OPEN  # the host opens it for sale: not an edit
    rows[5].save(update_fields=["state"])


def _auto_publish(series: EventSeries, rows: list[Event]) -> None:
    update_series_recurrence(series, auto_publish=True, now=NOW)  # new dates open, not drafts


def _add_date(series: EventSeries, rows: list[Event]) -> None:
    add_extra_date(series, LATE_JUNE, now=NOW)  # no row, no new date of any plan


def _remove_date(series: EventSeries, rows: list[Event]) -> None:
    remove_extra_date(series, JUNE, now=NOW)


INTERVENTIONS: dict[str, Callable[[EventSeries, list[Event]], None]] = {
    "another rule change": _another_change,
    "another window": _another_window,
    "a cancellation": _cancel,
    "a cancellation ahead": _cancel_ahead,
    "a restore": _restore,
    "a start moved by hand": _move,
    "a title edited by hand": _retitle,
    "a row deleted": _delete,
    "a generation run": _generate_later,
    "a pause": _pause,
    "auto-publish switched on": _auto_publish,
    "a date opened by the host": _publish,
    "an extra date added": _add_date,
    "an extra date removed": _remove_date,
}


@pytest.mark.parametrize(
    "change",
    [TUESDAYS, {}, {WINDOW_KEY: 10}, {EXTRA_DATES_KEY: [JUNE, monday(5) + dt.timedelta(days=2)]}],
    ids=["weekday", "none", "window", "extra dates"],
)
@pytest.mark.parametrize("name", list(INTERVENTIONS))
def test_anything_committed_after_the_plan_outdates_it_and_nothing_is_written(
    name: str, change: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    series = weekly_series()
    rows = occurrences(series)
    cancel_occurrence(series, monday(2), now=NOW)
    add_extra_date(series, JUNE, now=NOW)
    plan = plan_recurrence_change(series, change, now=LATER)
    INTERVENTIONS[name](fresh(series), rows)
    before = snapshot(series)
    with (
        captured(series_recurrence_changed) as changed,
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(PlanOutdatedError) as outdated,
    ):
        apply_recurrence_plan(series, plan.hash, change, cancel_drift="all", now=LATER)
    assert snapshot(series) == before
    assert changed == []
    assert notifier.digests == []
    assert outdated.value.field == "plan_hash"
    current = plan_recurrence_change(series, change, now=LATER)
    assert outdated.value.plan == current
    assert current.hash != plan.hash
    applied = apply_recurrence_plan(series, current.hash, change, now=LATER)
    assert [row.starts_at for row in applied.created] == starts(current.new)


def test_an_unchanged_state_applies_once_and_the_same_hash_is_outdated_after() -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    again = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert again == plan
    applied = apply_recurrence_plan(series, plan.hash, TUESDAYS, now=NOW)
    assert applied.plan == plan
    with pytest.raises(PlanOutdatedError) as outdated:
        apply_recurrence_plan(series, plan.hash, TUESDAYS, now=NOW)
    assert outdated.value.plan.changed == frozenset()  # Tuesdays already
    assert outdated.value.plan.new == ()


def test_the_hash_is_the_same_at_another_moment_while_nothing_it_covers_moves() -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    a_minute_later = plan_recurrence_change(series, TUESDAYS, now=NOW + dt.timedelta(minutes=1))
    assert a_minute_later.hash == plan.hash
    apply_recurrence_plan(series, plan.hash, TUESDAYS, now=NOW + dt.timedelta(minutes=1))


def test_a_date_entering_the_window_after_the_plan_outdates_it() -> None:
    series = weekly_series()
    # Sundays besides the Mondays: the Mondays stay, the Sundays are new (with the
    # Mondays alone gone, each would move to its week's Sunday instead).
    sundays = {"weekdays": [0, 6]}
    plan = plan_recurrence_change(series, sundays, now=NOW)
    # Sunday 26 April 10:00 Vienna enters the eight weeks at 08:00 UTC on 1 March,
    # before any row starts (the first is Monday 2 March): only the outcome differs.
    later = NOW + dt.timedelta(hours=8, minutes=30)
    assert starts(plan_recurrence_change(series, sundays, now=later).new)[-1] not in starts(
        plan.new
    )
    before = snapshot(series)
    with pytest.raises(PlanOutdatedError) as outdated:
        apply_recurrence_plan(series, plan.hash, sundays, now=later)
    assert snapshot(series) == before
    assert starts(outdated.value.plan.new)[-1] == monday(8) - dt.timedelta(days=1)


def test_a_change_overwritten_by_the_planned_one_still_outdates_it() -> None:
    series = weekly_series(generate=False)  # no rows, no cursor: only the rule differs
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    update_series_recurrence(series, rule_changes={"weekdays": [2]}, now=NOW)
    before = snapshot(series)
    with pytest.raises(PlanOutdatedError) as outdated:
        apply_recurrence_plan(series, plan.hash, TUESDAYS, generate=False, now=NOW)
    assert snapshot(series) == before
    assert outdated.value.plan.new == plan.new  # the same outcome, from another rule


def test_a_template_gone_after_a_plan_with_nothing_new_outdates_it() -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, {}, now=NOW)
    assert plan.new == ()
    with replacing_template(series.pk):
        Event.objects.filter(series=series, is_template=True).delete()
    with pytest.raises(PlanOutdatedError):
        apply_recurrence_plan(series, plan.hash, {}, now=NOW)


def test_a_row_moved_before_now_still_holds_its_slot() -> None:
    series = weekly_series()
    moved = occurrences(series)[2]
    moved.starts_at = monday(2) - dt.timedelta(days=1)
    moved.save()
    now = monday(2) - dt.timedelta(hours=12)  # after its new start, before its slot
    plan = plan_recurrence_change(series, {WINDOW_KEY: 9}, now=now)
    assert moved.pk not in ids((*plan.stay, *plan.drift))  # started already
    assert monday(2) not in starts(plan.new)
    applied = apply_recurrence_plan(series, plan.hash, {WINDOW_KEY: 9}, now=now)
    assert [row.starts_at for row in applied.created] == starts(plan.new)


WEDNESDAY = monday(3) + dt.timedelta(days=2, hours=8)  # Wednesday 25 March 18:00 Vienna


@pytest.mark.parametrize(
    ("planned", "applied"),
    [
        (TUESDAYS, {"weekdays": [2]}),
        (TUESDAYS, {**TUESDAYS, WINDOW_KEY: 10}),
        (TUESDAYS, {}),
        (TUESDAYS, {**TUESDAYS, "interval": 2}),
        (TUESDAYS, {**TUESDAYS, "until": dt.datetime(2026, 7, 1, tzinfo=UTC)}),
        ({EXTRA_DATES_KEY: [WEDNESDAY, JUNE]}, {EXTRA_DATES_KEY: [WEDNESDAY]}),
        ({EXTRA_DATES_KEY: [WEDNESDAY, JUNE]}, {EXTRA_DATES_KEY: [WEDNESDAY, JUNE, LATE_JUNE]}),
        ({EXTRA_DATES_KEY: [WEDNESDAY, JUNE]}, {}),
        ({EXTRA_DATES_KEY: [JUNE]}, {EXTRA_DATES_KEY: []}),
    ],
    ids=[
        "other weekday",
        "window added",
        "nothing",
        "interval added",
        "until added",
        "an extra date left out",
        "an extra date beyond the window added",
        "no extra dates",
        "no extra date at all",
    ],
)
def test_changes_other_than_the_planned_ones_are_outdated(
    planned: dict[str, Any], applied: dict[str, Any]
) -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, planned, now=NOW)
    before = snapshot(series)
    with pytest.raises(PlanOutdatedError) as outdated:
        apply_recurrence_plan(series, plan.hash, applied, now=NOW)
    assert snapshot(series) == before
    assert outdated.value.plan == plan_recurrence_change(series, applied, now=NOW)


@pytest.mark.parametrize("given", ["", "   ", None, 42])
def test_a_missing_hash_is_refused(given: Any) -> None:
    series = weekly_series()
    with pytest.raises(ValidationError) as refused:
        apply_recurrence_plan(series, given, TUESDAYS, now=NOW)
    assert "plan_hash" in refused.value.error_dict


# Queries


def _daily(count: int, *, interval: int = 1) -> EventSeries:
    series = make_series(
        name=f"Daily {count}",
        frequency="DAILY",
        dtstart=dt.datetime(2026, 3, 1, 7, 0, tzinfo=UTC),
        window_weeks=52,
        count=count,
        interval=interval,
    )
    generate_series_events(series, now=NOW)
    return series


def _plan_queries(
    series: EventSeries, changes: dict[str, Any], notify: str | None = None
) -> tuple[int, RecurrencePlan]:
    with CaptureQueriesContext(connection) as queries:
        plan = plan_recurrence_change(series, changes, notify=notify, now=NOW)
    return len(queries.captured_queries), plan


def test_a_plan_reads_in_a_constant_number_of_queries_whatever_the_number_of_dates() -> None:
    small, large = _daily(30), _daily(364)
    for series in (small, large):
        for position, row in enumerate(occurrences(series)):
            if position % 5 == 1:
                book(row, 1, 2)
    # Every other day, half as many dates: every date of the new rule exists already.
    small_queries, small_plan = _plan_queries(small, {"interval": 2, "count": 15})
    large_queries, large_plan = _plan_queries(large, {"interval": 2, "count": 182})
    assert len(small_plan.stay) + len(small_plan.drift) == 30
    assert len(large_plan.stay) + len(large_plan.drift) == 364
    assert len(large_plan.drift) == 182
    assert sum(row.bookings for row in large_plan.drift) == 3 * sum(
        1 for position in range(1, 364, 2) if position % 5 == 1
    )
    assert (small_plan.new, large_plan.new) == ((), ())
    # Four reads, and one question of who would be told (people_told: booked drift).
    assert small_queries == large_queries == 5
    # An hour later: every date moves to its day's new time, read with the rows.
    # Planned for nobody told, so the booked dates stay unless ticked.
    later = {"dtstart": dt.datetime(2026, 3, 1, 8, 0, tzinfo=UTC)}
    small_queries, small_plan = _plan_queries(small, later, notify="none")
    large_queries, large_plan = _plan_queries(large, later, notify="none")
    assert (len(small_plan.moves), len(large_plan.moves)) == (30, 364)
    # New dates only beside the booked ones, which stay unless ticked; the template is
    # read once to weigh them.
    for plan in (small_plan, large_plan):
        assert {date.beside for date in plan.new} == {row.id for row in plan.booked_drift}
    assert small_queries == large_queries == 5
    # Every day instead of every other: every date stays, the days between are new,
    # and the template is read once to weigh them.
    small, large = _daily(15, interval=2), _daily(182, interval=2)
    small_queries, small_plan = _plan_queries(small, {"interval": 1, "count": 30})
    large_queries, large_plan = _plan_queries(large, {"interval": 1, "count": 364})
    assert (len(small_plan.stay), len(large_plan.stay)) == (15, 182)
    assert (len(small_plan.new), len(large_plan.new)) == (15, 182)
    assert small_queries == large_queries == 5


def test_a_cancelled_row_moved_before_now_still_names_its_slot_cancelled() -> None:
    series = weekly_series()
    moved = occurrences(series)[2]
    moved.starts_at = monday(2) - dt.timedelta(days=1)
    moved.save()
    cancel_occurrence(series, monday(2), now=NOW)
    now = monday(2) - dt.timedelta(hours=12)  # after its new start, before its slot
    plan = plan_recurrence_change(series, {}, now=now)
    assert [(date.start, date.reason) for date in plan.excluded] == [
        (monday(2), ExcludedBecause.CANCELLED)
    ]


def test_folding_a_pending_exdate_in_is_no_change() -> None:
    series = weekly_series()
    Event.objects.filter(pk=occurrences(series)[3].pk).delete()  # a pending exdate
    plan = plan_recurrence_change(series, TUESDAYS, now=NOW)
    assert cancel_stale_occurrences(series, now=NOW).cancelled == []  # folds it in
    assert not PendingExdate.objects.filter(series=series).exists()
    assert monday(3) in fresh(series).exdate_instants
    applied = apply_recurrence_plan(series, plan.hash, TUESDAYS, now=NOW)
    assert applied.plan == plan


@pytest.mark.parametrize("how", ["plan of no change", "patch of the end"])
def test_a_cancelled_date_on_the_rule_stays_cancelled_where_it_is(how: str) -> None:
    # Mondays and Fridays, one week ahead from Wednesday 4 March: Friday 6 and Monday 9
    # are generated, Friday 13 (in Monday 9's week) not yet. Monday 9 is cancelled: its
    # own exdate must not make it "off the rule", nor Friday 13 its partner.
    now = dt.datetime(2026, 3, 4, tzinfo=UTC)
    series = weekly_series(now=now, window_weeks=1, weekdays=[0, 4])
    _friday, monday_9 = occurrences(series)
    cancel_occurrence(series, monday_9.starts_at, now=now)
    if how == "plan of no change":
        plan = plan_recurrence_change(series, {}, now=now)
        assert plan.cancelled_moves == ()
        applied = apply_recurrence_plan(series, plan.hash, {}, now=now)
        assert applied.moved == []
    else:
        update_series_recurrence(
            series, rule_changes={"until": dt.datetime(2026, 12, 31, tzinfo=UTC)}, now=now
        )
    after = Event.objects.get(pk=monday_9.pk)
    assert (after.starts_at, after.state) == (monday_9.starts_at, CALLED_OFF)
    assert fresh(series).exdate_instants == {monday_9.starts_at}
