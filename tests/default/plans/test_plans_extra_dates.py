"""Extra dates in change plans: planned like the rule's dates, applied as planned.

The weekly Vienna series of tests.support.factories: Mondays 10:00 from 2 March 2026,
generated on 1 March for eight weeks (to 26 April), across the switch to summer
time on Sunday 29 March. ``changes["extra_dates"]`` is the whole new set, as a
PATCH takes it: dates not there yet are added, those left out removed.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring import rules
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.plans import (
    EXTRA_DATES_KEY,
    WINDOW_KEY,
    ExcludedBecause,
    apply_recurrence_plan,
    plan_recurrence_change,
)
from revel_recurring.signals import extra_date_changed, series_recurrence_changed
from tests.default.plans.test_plans import book, ids, snapshot, starts, state_of, tuesday
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, VIENNA, captured, fresh, monday, occurrences, weekly_series

pytestmark = pytest.mark.django_db

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED
# Wednesday evenings the week before Vienna's switch to summer time and the week after.
WEDNESDAY_CET = dt.datetime(2026, 3, 25, 18, 30, tzinfo=VIENNA)
WEDNESDAY_CEST = dt.datetime(2026, 4, 1, 18, 30, tzinfo=VIENNA)
# Beyond the window generated on NOW (26 April).
JUNE = dt.datetime(2026, 6, 17, 18, 30, tzinfo=VIENNA)


def extra(*instants: dt.datetime, **others: Any) -> dict[str, Any]:
    return {EXTRA_DATES_KEY: list(instants), **others}


def stored(*instants: dt.datetime) -> list[str]:
    return rules.normalize_exdates(instants)


def test_added_dates_across_the_switch_are_new_keep_their_wall_clock_and_are_created(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series()
    rows = occurrences(series)
    change = extra(WEDNESDAY_CET, WEDNESDAY_CEST, JUNE)

    plan = plan_recurrence_change(series, change, now=NOW)

    assert plan.changed == {EXTRA_DATES_KEY}
    assert plan.cursor_reset is True
    assert ids(plan.stay) == [row.pk for row in rows]
    assert plan.drift == ()
    assert starts(plan.new) == [WEDNESDAY_CET, WEDNESDAY_CEST]  # June is beyond the window
    assert [date.start.hour for date in plan.new] == [17, 16]  # UTC: CET, then CEST
    assert {date.local.time() for date in plan.new} == {dt.time(18, 30)}
    assert [date.display for date in plan.new] == [
        "Wed 25 Mar 2026 18:30 (Europe/Vienna)",
        "Wed 1 Apr 2026 18:30 (Europe/Vienna)",
    ]
    # The sentence is the new one's: the rule and the dates besides it.
    assert plan.description == "Every week on Monday at 10:00 (Europe/Vienna), and on 3 more dates"
    with (
        captured(series_recurrence_changed) as changed,
        captured(extra_date_changed) as one_by_one,
        django_capture_on_commit_callbacks(execute=True),
    ):
        applied = apply_recurrence_plan(series, plan.hash, change, now=NOW)

    assert [row.starts_at for row in applied.created] == starts(plan.new)
    assert applied.changed == {EXTRA_DATES_KEY}
    assert [(c["changed_fields"], c["cursor_reset"]) for c in changed] == [
        ({EXTRA_DATES_KEY}, True)
    ]
    assert one_by_one == []  # one signal for the whole change
    assert fresh(series).extra_dates == stored(WEDNESDAY_CET, WEDNESDAY_CEST, JUNE)
    assert series.extra_dates == fresh(series).extra_dates  # the caller's instance too
    after = plan_recurrence_change(series, {}, now=NOW)
    assert (after.new, after.drift, after.changed) == ((), (), frozenset())


def test_a_rule_change_and_extra_dates_are_planned_and_applied_together() -> None:
    series = weekly_series()
    change = extra(WEDNESDAY_CET, weekdays=[1])
    plan = plan_recurrence_change(series, change, now=NOW)
    assert plan.changed == {"weekdays", EXTRA_DATES_KEY}
    assert len(plan.drift) == 8
    # Each Monday moves to its week's Tuesday (an extra date is no partner): the
    # extra Wednesday is the one new date.
    assert [row.moves_to for row in plan.drift] == [tuesday(week) for week in range(8)]
    assert starts(plan.new) == [WEDNESDAY_CET]
    applied = apply_recurrence_plan(series, plan.hash, change, cancel_drift="all", now=NOW)
    assert [row.starts_at for row in applied.created] == starts(plan.new)
    assert applied.moved == [row.id for row in plan.drift]
    assert applied.cancelled == []
    assert detect_cadence_drift(fresh(series), now=NOW) == []


@pytest.fixture
def three_extra_dates() -> tuple[Any, Event, Event]:
    """The Mondays with three extra dates: the CET Wednesday free, the CEST one booked, June."""
    series = weekly_series()
    free = add_extra_date(series, WEDNESDAY_CET, now=NOW)
    booked = add_extra_date(series, WEDNESDAY_CEST, now=NOW)
    add_extra_date(series, JUNE, now=NOW)
    assert free is not None
    assert booked is not None
    book(booked, 2)
    return fresh(series), free, booked


def test_a_removed_extra_date_with_an_occurrence_is_drift_with_its_bookings(
    three_extra_dates: tuple[Any, Event, Event],
) -> None:
    series, free, booked = three_extra_dates
    mondays = [row.pk for row in occurrences(series) if row.pk not in (free.pk, booked.pk)]

    plan = plan_recurrence_change(series, extra(), now=NOW)

    assert plan.changed == {EXTRA_DATES_KEY}
    assert ids(plan.drift) == [free.pk, booked.pk]
    assert [row.bookings for row in plan.drift] == [0, 2]
    assert ids(plan.booked_drift) == [booked.pk]
    assert ids(plan.stay) == mondays
    assert plan.new == ()
    # Keeping them is no change at all.
    same = plan_recurrence_change(series, extra(JUNE, WEDNESDAY_CEST, WEDNESDAY_CET), now=NOW)
    assert (same.changed, same.drift, same.cursor_reset) == (frozenset(), (), False)


def test_unbooked_cancels_the_free_removed_date_and_keeps_the_booked_one_by_name(
    three_extra_dates: tuple[Any, Event, Event],
) -> None:
    series, free, booked = three_extra_dates
    plan = plan_recurrence_change(series, extra(), now=NOW)

    applied = apply_recurrence_plan(series, plan.hash, extra(), cancel_drift="unbooked", now=NOW)

    assert applied.cancelled == [free.pk]
    assert [(date.id, date.display) for date in applied.kept_booked] == [
        (booked.pk, "Wed 1 Apr 2026 18:30 (Europe/Vienna)")
    ]
    assert state_of(free) == CALLED_OFF
    assert state_of(booked) != CALLED_OFF
    series = fresh(series)
    assert series.extra_dates == []
    # The cancelled row keeps its exdate; June never had a row, nothing to exclude.
    assert series.exdates == stored(WEDNESDAY_CET)
    assert detect_cadence_drift(series, now=NOW) == [booked.pk]
    assert ids(plan_recurrence_change(series, {}, now=NOW).drift) == [booked.pk]


def test_none_keeps_every_occurrence_of_a_removed_date_and_all_cancels_the_booked_one_too(
    three_extra_dates: tuple[Any, Event, Event],
) -> None:
    series, free, booked = three_extra_dates
    plan = plan_recurrence_change(series, extra(WEDNESDAY_CET), now=NOW)
    assert ids(plan.drift) == [booked.pk]
    kept = apply_recurrence_plan(series, plan.hash, extra(WEDNESDAY_CET), now=NOW)
    assert (kept.cancelled, kept.kept_booked) == ([], [])
    assert state_of(booked) != CALLED_OFF
    assert fresh(series).extra_dates == stored(WEDNESDAY_CET)

    again = plan_recurrence_change(series, extra(WEDNESDAY_CET), now=NOW)
    assert ids(again.drift) == [booked.pk]
    everything = apply_recurrence_plan(
        series, again.hash, extra(WEDNESDAY_CET), cancel_drift="all", now=NOW
    )
    assert everything.cancelled == [booked.pk]
    assert state_of(booked) == CALLED_OFF
    assert state_of(free) != CALLED_OFF


def test_an_added_date_a_cancelled_occurrence_holds_comes_back_excluded() -> None:
    series = weekly_series()
    cancel_occurrence(series, monday(3), now=NOW)
    change = extra(monday(3), weekdays=[1])  # no rule date on Tuesdays: an extra date
    plan = plan_recurrence_change(series, change, now=NOW)
    assert (monday(3), ExcludedBecause.CANCELLED) in [
        (date.start, date.reason) for date in plan.excluded
    ]
    assert monday(3) not in starts(plan.new)
    applied = apply_recurrence_plan(series, plan.hash, change, now=NOW)
    assert [row.starts_at for row in applied.created] == starts(plan.new)
    assert monday(3) in fresh(series).exdate_instants
    assert Event.objects.filter(series=series, recurrence_id=monday(3)).count() == 1


def test_an_added_date_no_occurrence_holds_loses_its_old_exclusion_as_add_date_drops_it() -> None:
    series = weekly_series()
    cancel_occurrence(series, monday(9), now=NOW)  # not generated: an exdate alone
    change = extra(monday(9), weekdays=[1], **{WINDOW_KEY: 10})
    plan = plan_recurrence_change(series, change, now=NOW)
    assert monday(9) in starts(plan.new)
    assert monday(9) not in starts(plan.excluded)
    applied = apply_recurrence_plan(series, plan.hash, change, now=NOW)
    assert [row.starts_at for row in applied.created] == starts(plan.new)
    assert monday(9) not in fresh(series).exdate_instants


def test_a_deleted_occurrence_of_a_re_added_date_is_created_again_as_planned() -> None:
    series = weekly_series()
    event = add_extra_date(series, WEDNESDAY_CET, now=NOW)
    plan = plan_recurrence_change(series, extra(), now=NOW)
    apply_recurrence_plan(series, plan.hash, extra(), now=NOW)
    assert event is not None
    Event.objects.filter(pk=event.pk).delete()  # its slot: a pending exdate, folded after commit
    plan = plan_recurrence_change(series, extra(WEDNESDAY_CET), now=NOW)
    assert starts(plan.new) == [WEDNESDAY_CET]
    applied = apply_recurrence_plan(series, plan.hash, extra(WEDNESDAY_CET), now=NOW)
    assert [row.starts_at for row in applied.created] == [WEDNESDAY_CET]
    assert WEDNESDAY_CET not in fresh(series).exdate_instants


# The hash


# Refused input


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ([dt.datetime(2026, 3, 25, 18, 30)], "aware date and time"),
        ("2026-03-25T18:30:00+01:00", "a list of aware date-times"),
        (
            [WEDNESDAY_CET, WEDNESDAY_CET.astimezone(dt.UTC)],
            "Wed 25 Mar 2026 18:30 (Europe/Vienna) is given twice",
        ),
        ([dt.datetime(2026, 2, 25, 18, 30, tzinfo=VIENNA)], "is in the past"),
        ([monday(3)], "Mon 23 Mar 2026 10:00 (Europe/Vienna) is a date of the series' rule"),
    ],
    ids=["naive", "not a list", "twice", "past", "rule date"],
)
def test_bad_extra_dates_are_refused_keyed_extra_dates_and_nothing_is_written(
    given: Any, message: str
) -> None:
    series = weekly_series()
    before = snapshot(series)
    with pytest.raises(ValidationError) as planned:
        plan_recurrence_change(series, {EXTRA_DATES_KEY: given}, now=NOW)
    assert message in planned.value.message_dict[EXTRA_DATES_KEY][0]
    with pytest.raises(ValidationError) as applied:
        apply_recurrence_plan(series, "0" * 64, {EXTRA_DATES_KEY: given}, now=NOW)
    assert message in applied.value.message_dict[EXTRA_DATES_KEY][0]
    assert snapshot(series) == before


def test_added_dates_are_checked_against_the_new_rule_and_kept_ones_not_at_all() -> None:
    series = weekly_series()
    add_extra_date(series, dt.datetime(2026, 3, 3, 18, 30, tzinfo=VIENNA), now=NOW)
    later = NOW + dt.timedelta(days=5)  # the extra date is past now: kept all the same
    tuesday_evening = tuesday(3).astimezone(VIENNA).replace(hour=18, minute=30)
    kept = [dt.datetime(2026, 3, 3, 18, 30, tzinfo=VIENNA), tuesday_evening]
    plan = plan_recurrence_change(series, extra(*kept), now=later)
    assert tuesday_evening in starts(plan.new)
    # On Tuesdays 18:30 the same date is one of the new rule's: refused.
    evenings = {
        "weekdays": [1],
        "dtstart": tuesday(0).astimezone(VIENNA).replace(hour=18, minute=30),
    }
    with pytest.raises(ValidationError) as refused:
        plan_recurrence_change(series, extra(*kept, **evenings), now=later)
    assert refused.value.message_dict[EXTRA_DATES_KEY] == [
        "Tue 24 Mar 2026 18:30 (Europe/Vienna) is a date of the series' rule already."
    ]
    before_start = {"dtstart": monday(4)}
    with pytest.raises(ValidationError) as early:
        plan_recurrence_change(series, extra(*kept, **before_start), now=later)
    assert "before the series' first date" in early.value.message_dict[EXTRA_DATES_KEY][0]


def test_planning_extra_dates_reads_no_more_than_planning_a_window() -> None:
    series = weekly_series()
    add_extra_date(series, WEDNESDAY_CET, now=NOW)
    counts = []
    for change in ({WINDOW_KEY: 9}, extra(WEDNESDAY_CEST, JUNE)):
        with CaptureQueriesContext(connection) as queries:
            plan = plan_recurrence_change(series, change, now=NOW)
        assert plan.new
        counts.append(len(queries.captured_queries))
    assert counts == [5, 5]
