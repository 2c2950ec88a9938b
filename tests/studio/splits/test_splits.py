"""Splitting a lesson series on the studio host: UUID lesson keys, pupils' bookings follow."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.exceptions import PlanOutdatedError
from revel_recurring.models import EventSeries
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.splits import plan_split, split_series
from tests.hosts.studio.models import Booking, Hall, Lesson, User
from tests.studio.conftest import API, BERLIN, MakeSeries, lessons

pytestmark = pytest.mark.django_db


def test_with_nobody_told_a_split_moves_booked_lessons_with_their_uuid_and_pupils(
    make_series: MakeSeries, pupil: User
) -> None:
    """Nobody told: the booked lesson changes series but keeps its date (not ticked)."""
    series = make_series(generation_window_weeks=6)
    rows = lessons(series)
    at = rules.to_utc(rows[3].begins)
    Booking.objects.create(lesson=rows[4], pupil=pupil)
    plan = plan_split(
        series, at=at, recurrence={"weekdays": [4]}, template={"room": "Hall 2"}, notify="none"
    )
    assert [row.id for row in plan.drift] == [row.pk for row in rows[3:]]
    assert {row.id: row.bookings for row in plan.drift if row.booked} == {rows[4].pk: 1}

    result = split_series(
        series,
        at=at,
        recurrence={"weekdays": [4]},
        template={"room": "Hall 2"},
        plan_hash=plan.hash,
        notify="none",
    )
    assert [date.id for date in result.kept_booked] == [rows[4].pk]
    moved = Lesson.objects.get(pk=rows[4].pk)
    assert moved.series_id == result.continuation.pk
    assert Booking.objects.get(pupil=pupil).lesson_id == rows[4].pk
    # A Thursday lesson on a Friday rule is drift: still the old room until decided.
    assert moved.room == "Hall 1"
    assert {lesson.room for lesson in result.created} == {"Hall 2"}
    # The free Thursdays moved on to their Fridays (same UUIDs, the new room): only the
    # booked one drifts, and its Friday is new beside it.
    assert set(detect_cadence_drift(result.continuation)) == {rows[4].pk}
    others = Lesson.objects.filter(pk__in=[row.pk for row in rows[3:] if row != rows[4]])
    assert {lesson.begins.astimezone(BERLIN).weekday() for lesson in others} == {4}
    assert len(result.created) == 1
    assert all(lesson.begins.astimezone(BERLIN).weekday() == 4 for lesson in result.created)
    original = EventSeries.objects.get(pk=series.pk)
    assert original.recurrence_rule.until == rules.to_utc(rows[2].begins)
    assert EventSeries.objects.get(split_from=original).pk == result.continuation.pk


def test_an_edit_after_the_plan_outdates_it_and_nothing_is_written(
    make_series: MakeSeries, pupil: User
) -> None:
    series = make_series(generation_window_weeks=4)
    rows = lessons(series)
    at = rules.to_utc(rows[2].begins)
    plan = plan_split(series, at=at)
    rows[3].begins += dt.timedelta(hours=1)
    rows[3].save()
    with pytest.raises(PlanOutdatedError):
        split_series(series, at=at, plan_hash=plan.hash)
    assert not EventSeries.objects.filter(split_from=series).exists()


def test_the_change_feed_of_each_half_says_where_the_moved_lessons_went(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(generation_window_weeks=5)
    rows = lessons(series)
    since = (timezone.now() - dt.timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    continuation = split_series(series, at=rules.to_utc(rows[2].begins)).continuation
    moved = {str(row.pk) for row in rows[2:]}

    left = api.get(f"{API}{series.pk}/occurrences/", {"modified_since": since}).json()["results"]
    gone = {row["id"]: row for row in left if row["deleted"]}
    assert set(gone) == moved
    assert {row["moved_to"] for row in gone.values()} == {continuation.pk}
    assert all(row["moved_to"] is None for row in left if not row["deleted"])

    arrived = api.get(f"{API}{continuation.pk}/occurrences/", {"modified_since": since}).json()[
        "results"
    ]
    assert moved <= {row["id"] for row in arrived if not row["deleted"]}


def test_a_propagatable_foreign_key_can_change_at_a_split(
    make_series: MakeSeries, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A host whose organisers may move a class to another hall (a foreign key).
    monkeypatch.setattr(Lesson, "PROPAGATABLE_FIELDS", ("title", "room", "hall"))
    hall = Hall.objects.create(name="Hall B", street="Hauptstraße 2")
    series = make_series(generation_window_weeks=4)
    rows = lessons(series)
    result = split_series(series, at=rules.to_utc(rows[2].begins), template={"hall": hall})
    template = Lesson.objects.get(series=result.continuation, is_template=True)
    assert template.hall_id == hall.pk
    assert {lesson.hall_id for lesson in lessons(result.continuation)} == {hall.pk}
    assert {lesson.hall_id for lesson in lessons(series)} == {None}


def test_a_count_rule_split_on_the_studio_host_keeps_the_number_of_lessons(
    make_series: MakeSeries,
) -> None:
    series = make_series(count=6, generation_window_weeks=8)
    rows = lessons(series)
    assert len(rows) == 6
    result = split_series(series, at=rules.to_utc(rows[2].begins))
    original = EventSeries.objects.get(pk=series.pk).recurrence_rule
    assert (original.count, original.until) == (None, rules.to_utc(rows[1].begins))
    assert result.continuation.recurrence_rule.count == 4
    halves = lessons(series) + lessons(result.continuation)
    assert sorted(lesson.pk for lesson in halves) == sorted(row.pk for row in rows)
