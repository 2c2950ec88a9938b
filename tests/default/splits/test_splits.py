""" "This and following": split_series on the testapp host (integer pks, seats as bookings)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from revel_recurring import rules
from revel_recurring.exceptions import PlanOutdatedError
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import delete_series
from revel_recurring.services.splits import plan_split, split_series
from revel_recurring.signals import series_split
from tests.hosts.testapp import notifier
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NOW, captured, fresh, make_series, monday, occurrences

pytestmark = pytest.mark.django_db


def booked_series(**rule_fields: Any) -> EventSeries:
    series = make_series(**rule_fields)
    generate_series_events(series, now=NOW)
    return fresh(series)


def slots_of(series: EventSeries, until: dt.datetime) -> list[dt.datetime]:
    rule = RecurrenceRule.objects.get(series=series)
    return rules.occurrences_between(rule.to_spec(), rule.dtstart, until, inclusive=True)


def test_split_across_the_dst_switch_loses_and_doubles_no_date() -> None:
    series = booked_series()
    before = {row.pk: row.recurrence_id for row in occurrences(series)}
    # 30 March is the first Monday after Vienna's switch to summer time.
    result = split_series(series, at=monday(4), now=NOW)
    original, continuation = fresh(series), result.continuation
    assert original.recurrence_rule.until == monday(3)
    assert continuation.recurrence_rule.dtstart == monday(4)
    assert result.last_before == monday(3)
    kept = {row.pk: row.recurrence_id for row in occurrences(original)}
    moved = {row.pk: row.recurrence_id for row in occurrences(continuation)}
    assert set(kept.values()) == {monday(week) for week in range(4)}
    assert set(moved.values()) == {monday(week) for week in range(4, 8)}
    assert kept | moved == before
    # The two rules together give the original rule's dates, each once.
    horizon = monday(30)
    union = slots_of(original, horizon) + slots_of(continuation, horizon)
    assert sorted(union) == [monday(week) for week in range(31)]
    assert all(slot.astimezone(rules.UTC).hour == 8 for slot in slots_of(continuation, horizon))


def test_with_nobody_told_booked_rows_keep_their_ids_and_bookings_and_stay_unless_ticked(
    settings: Any,
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = booked_series()
    booked = occurrences(series)[5]
    Seat.objects.filter(event=booked).update(booked=3)
    result = split_series(series, at=monday(4), recurrence={"weekdays": [3]}, now=NOW)
    moved = Event.objects.get(pk=booked.pk)
    assert moved.series_id == result.continuation.pk
    assert moved.occurrence_status != Event.RECURRING_STATUS_CANCELLED
    assert moved.starts_at == booked.starts_at
    assert Seat.objects.filter(event=moved, booked=3).exists()
    # The booked Monday stays where it is (not ticked); the others went on to the
    # Thursdays of their weeks, the same rows.
    assert detect_cadence_drift(result.continuation, now=NOW) == [booked.pk]
    assert [date.id for date in result.kept_booked] == [booked.pk]
    assert set(result.rescheduled) == set(result.moved) - {booked.pk}
    assert result.cancelled == []
    # Its week's Thursday is created beside it.
    thursdays = [row.starts_at for row in result.created]
    assert thursdays == [booked.starts_at + dt.timedelta(days=3)]


def test_a_count_rule_becomes_until_and_the_halves_hold_the_original_count() -> None:
    series = booked_series(count=6)
    result = split_series(series, at=monday(2), now=NOW)
    original = RecurrenceRule.objects.get(series=series)
    assert (original.count, original.until) == (None, monday(1))
    assert result.continuation.recurrence_rule.count == 4
    union = slots_of(series, monday(40)) + slots_of(result.continuation, monday(40))
    assert sorted(union) == [monday(week) for week in range(6)]


def test_moved_rows_get_the_new_template_fields_unless_edited_by_hand() -> None:
    series = booked_series()
    edited = occurrences(series)[6]
    edited.title = "Special guest"
    edited.save()
    assert Event.objects.get(pk=edited.pk).is_modified
    result = split_series(
        series, at=monday(4), template={"venue": "Hall B"}, name="Yoga (new hall)", now=NOW
    )
    rows = occurrences(result.continuation)
    assert result.continuation.name == "Yoga (new hall)"
    assert {row.venue for row in rows if row.pk != edited.pk} == {"Hall B"}
    assert Event.objects.get(pk=edited.pk).venue == "Studio 2"
    assert {row.venue for row in occurrences(series)} == {"Studio 2"}
    assert Event.objects.get(series=result.continuation, is_template=True).venue == "Hall B"


def test_exdates_go_with_their_dates_and_restore_works_on_the_new_series() -> None:
    series = booked_series()
    cancel_occurrence(series, monday(1), now=NOW)
    cancel_occurrence(series, monday(6), now=NOW)
    result = split_series(series, at=monday(4), now=NOW)
    assert fresh(series).exdate_instants == {monday(1)}
    assert fresh(result.continuation).exdate_instants == {monday(6)}
    restore_occurrence(result.continuation, monday(6), now=NOW)
    assert fresh(result.continuation).exdate_instants == set()


@pytest.mark.parametrize(
    ("at", "phrase"),
    [
        (monday(4) + dt.timedelta(hours=1), "not a date of this series"),
        (monday(0), "first date"),
        (monday(4).replace(tzinfo=None), "UTC offset"),
    ],
)
def test_a_split_date_that_is_not_a_later_slot_is_refused_naming_at(
    at: dt.datetime, phrase: str
) -> None:
    series = booked_series()
    with pytest.raises(ValidationError) as caught:
        split_series(series, at=at, now=NOW)
    assert phrase in " ".join(caught.value.message_dict["at"])


def test_a_split_in_the_past_is_refused() -> None:
    series = booked_series()
    with pytest.raises(ValidationError) as caught:
        split_series(series, at=monday(2), now=monday(3))
    assert "in the past" in caught.value.message_dict["at"][0]


def snapshot(series: EventSeries) -> tuple[object, ...]:
    row = fresh(series)
    rule = RecurrenceRule.objects.get(series=series)
    events = list(
        Event.objects.filter(series=series)
        .order_by("pk")
        .values_list("pk", "series_id", "title", "venue")
    )
    return (
        row.exdates,
        row.next_due_at,
        rule.until,
        rule.count,
        events,
        EventSeries.objects.count(),
    )


@pytest.mark.parametrize(
    "template",
    [{"title": "x" * 300}, {"starts_at": NOW}, {"no_such_field": 1}],
)
def test_a_split_whose_template_is_invalid_writes_nothing(template: dict[str, object]) -> None:
    series = booked_series()
    before = snapshot(series)
    with pytest.raises(ValidationError):
        split_series(series, at=monday(4), template=template, now=NOW)
    assert snapshot(series) == before


def test_splits_keep_the_chain_in_date_order_and_halves_delete_alone() -> None:
    series = booked_series()
    later = split_series(series, at=monday(5), now=NOW).continuation
    earlier = split_series(series, at=monday(3), now=NOW).continuation
    assert fresh(earlier).split_from_id == series.pk
    assert fresh(later).split_from_id == earlier.pk
    last = split_series(later, at=monday(6), now=NOW).continuation
    assert fresh(last).split_from_id == later.pk
    # `later` kept one date (its dtstart): COUNT=1 says so, as UNTIL=DTSTART may not.
    assert (RecurrenceRule.objects.get(series=later).count, slots_of(later, monday(40))) == (
        1,
        [monday(5)],
    )
    slots = sorted(
        row.recurrence_id for s in (series, earlier, later, last) for row in occurrences(s)
    )
    assert slots == [monday(week) for week in range(8)]
    delete_series(fresh(earlier))
    assert EventSeries.objects.filter(pk__in=[series.pk, later.pk, last.pk]).count() == 3
    assert fresh(later).split_from_id is None


def test_one_signal_after_commit_and_one_digest_for_what_was_created(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = booked_series()
    notifier.digests.clear()
    notifier.per_event_notifications.clear()
    with captured(series_split) as calls, django_capture_on_commit_callbacks(execute=True):
        result = split_series(series, at=monday(4), recurrence={"weekdays": [0, 2]}, now=NOW)
    assert len(calls) == 1
    assert calls[0]["continuation"].pk == result.continuation.pk
    assert calls[0]["moved"] == result.moved
    assert len(result.created) == 4
    # One digest, naming the created Wednesdays only: the moved Mondays were not new.
    assert len(notifier.digests) == 1
    assert sorted(e.pk for e in notifier.digests[0].occurrences) == sorted(
        e.pk for e in result.created
    )
    assert notifier.per_event_notifications == []


def test_the_split_plan_is_what_the_split_does() -> None:
    series = booked_series()
    booked = occurrences(series)[6]
    Seat.objects.filter(event=booked).update(booked=2)
    plan = plan_split(series, at=monday(4), recurrence={"weekdays": [0, 3]}, now=NOW)
    moving = {row.pk for row in occurrences(series) if row.recurrence_id >= monday(4)}
    assert {row.id for row in plan.stay} == moving
    assert plan.drift == ()
    assert {row.id: row.bookings for row in plan.stay if row.booked} == {booked.pk: 2}
    result = split_series(
        series, at=monday(4), recurrence={"weekdays": [0, 3]}, plan_hash=plan.hash, now=NOW
    )
    assert set(result.moved) == moving
    assert [row.starts_at for row in result.created] == [date.start for date in plan.new]
    assert all(date.local.weekday() == 3 for date in plan.new)
    assert plan.description.startswith("Every week on Monday and Thursday")


def test_a_split_plan_names_the_moved_dates_the_new_rule_does_not_hold() -> None:
    series = booked_series()
    plan = plan_split(series, at=monday(4), recurrence={"weekdays": [1]}, now=NOW)
    moving = [row.pk for row in occurrences(series) if row.recurrence_id >= monday(4)]
    assert [row.id for row in plan.drift] == moving
    assert all(row.moves_to is not None for row in plan.drift)
    result = split_series(
        series, at=monday(4), recurrence={"weekdays": [1]}, plan_hash=plan.hash, now=NOW
    )
    # Each goes on to its week's Tuesday: nothing is left off the rule.
    assert result.rescheduled == moving
    assert detect_cadence_drift(result.continuation, now=NOW) == []


def test_with_nobody_told_a_split_with_a_plan_hash_applies_the_drift_and_bookings_it_shows(
    settings: Any,
) -> None:
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = booked_series()
    rows = occurrences(series)
    booked, edited = rows[5], rows[6]
    Seat.objects.filter(event__in=[booked, edited]).update(booked=2)
    Event.objects.filter(pk=edited.pk).update(is_modified=True, venue="Room 9")
    plan = plan_split(
        series, at=monday(4), recurrence={"weekdays": [1]}, template={"venue": "Hall B"}, now=NOW
    )
    assert {row.id for row in plan.booked_drift} == {booked.pk, edited.pk}
    result = split_series(
        series,
        at=monday(4),
        recurrence={"weekdays": [1]},
        template={"venue": "Hall B"},
        plan_hash=plan.hash,
        now=NOW,
    )
    # The plan's booked drift, but for the date edited by hand: the split leaves
    # that one alone anyway, and names only what drift detection would find.
    shown = next(row for row in plan.drift if row.id == booked.pk)
    assert [(date.id, date.start, date.display) for date in result.kept_booked] == [
        (booked.pk, shown.start, shown.display)
    ]
    moved = Event.objects.filter(pk__in=result.moved)
    # The dates that went on to their Tuesdays fit the new rule and take its venue;
    # the booked one left in place keeps the old, the one edited by hand its own.
    assert {row.pk: row.venue for row in moved if row.venue != "Room 9"} == {
        row.id: rows[0].venue if row.id == booked.pk else "Hall B"
        for row in plan.drift
        if row.id != edited.pk
    }
    assert Event.objects.get(pk=edited.pk).venue == "Room 9"


def test_a_split_plan_made_stale_by_a_cancel_writes_nothing_and_offers_the_fresh_plan() -> None:
    series = booked_series()
    plan = plan_split(series, at=monday(4), now=NOW)
    cancel_occurrence(series, monday(5), now=NOW)
    before = snapshot(series)
    with pytest.raises(PlanOutdatedError) as caught:
        split_series(series, at=monday(4), plan_hash=plan.hash, now=NOW)
    assert snapshot(series) == before
    fresh_plan = caught.value.plan
    assert fresh_plan is not None
    assert fresh_plan.hash != plan.hash
    assert [date.reason for date in fresh_plan.excluded] == ["cancelled"]
    split_series(series, at=monday(4), plan_hash=fresh_plan.hash, now=NOW)
    assert EventSeries.objects.filter(split_from=series).exists()


def test_a_split_plan_depends_on_the_template_changes_and_name() -> None:
    series = booked_series()
    plain = plan_split(series, at=monday(4), now=NOW)
    assert (
        plan_split(series, at=monday(4), template={"venue": "Hall B"}, now=NOW).hash != plain.hash
    )
    assert plan_split(series, at=monday(4), name="Other", now=NOW).hash != plain.hash
    assert plan_split(series, at=monday(4), now=NOW).hash == plain.hash
    with pytest.raises(PlanOutdatedError):
        split_series(series, at=monday(4), name="Other", plan_hash=plain.hash, now=NOW)


def test_the_continuation_is_generated_as_far_as_the_original_was() -> None:
    series = booked_series()
    generate_series_events(series, until=monday(12), now=NOW)
    result = split_series(series, at=monday(4), recurrence={"weekdays": [0, 2]}, now=NOW)
    wednesdays = [row.recurrence_id for row in result.created]
    # The Mondays 4..12 moved; the Wednesdays after them up to the original's cursor exist.
    assert wednesdays == [monday(week) + dt.timedelta(days=2) for week in range(4, 12)]


def test_moved_dates_the_new_rule_does_not_hold_keep_their_old_details() -> None:
    series = booked_series()
    result = split_series(
        series, at=monday(4), recurrence={"weekdays": [0, 3]}, template={"venue": "Hall B"}, now=NOW
    )
    # Mondays still fit Mon/Thu: they take the new venue. Then a Thursday-only
    # continuation: the Mondays are drift and keep the old one.
    assert {row.venue for row in occurrences(result.continuation)} == {"Hall B"}
    # Every other week from the split: the dates of the weeks between have no date of
    # the new rule in their period, stay as drift and keep the old venue.
    other = booked_series(name="Tuesday yoga")
    moved = split_series(
        other, at=monday(4), recurrence={"interval": 2}, template={"venue": "Hall B"}, now=NOW
    )
    rows = {row.pk: row.venue for row in occurrences(moved.continuation)}
    left = set(detect_cadence_drift(moved.continuation, now=NOW))
    assert left
    assert {rows[pk] for pk in left} == {"Studio 2"}
    assert {rows[pk] for pk in moved.moved if pk not in left} == {"Hall B"}


@pytest.mark.parametrize("end", [{"count": 12}, {"until": monday(11)}])
def test_split_at_every_slot_from_the_last_backwards(end: dict[str, Any]) -> None:
    # Each split after the first is one slot before the continuation the one
    # before it made: the continuation gets that one date (COUNT=1).
    series = booked_series(window_weeks=16, **end)
    for week in range(11, 0, -1):
        split_series(series, at=monday(week), now=NOW)
    chain = [fresh(series)]
    while (follower := EventSeries.objects.filter(split_from=chain[-1]).first()) is not None:
        chain.append(follower)
    assert len(chain) == 12
    horizon = monday(40)
    assert [slots_of(half, horizon) for half in chain] == [[monday(week)] for week in range(12)]
    assert [RecurrenceRule.objects.get(series=half).count for half in chain] == [1] * 12
    dates = [[row.recurrence_id for row in occurrences(half)] for half in chain]
    assert dates == [[monday(week)] for week in range(12)]
