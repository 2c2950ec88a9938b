"""Rolling-window materialization (issue 3): window, cursor, idempotency, copying."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from revel_recurring.context import replacing_template
from revel_recurring.exceptions import GenerationWindowError
from revel_recurring.models import EventSeries, PendingExdate
from revel_recurring.services.generation import generate_series_events, preview_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NOW, UTC, VIENNA, fresh, make_series, occurrences, weekly_series

pytestmark = pytest.mark.django_db

# Sunday 2026-03-01 00:00 UTC; the series' first Monday 10:00 Vienna is 2026-03-02 09:00Z.


def mondays(first: dt.datetime, count: int) -> list[dt.datetime]:
    local = first.astimezone(VIENNA)
    return [
        (local.replace(tzinfo=None) + dt.timedelta(weeks=i)).replace(tzinfo=VIENNA).astimezone(UTC)
        for i in range(count)
    ]


def test_first_run_fills_the_window_from_dtstart_inclusive() -> None:
    series = make_series()
    created = generate_series_events(series, now=NOW)
    # Horizon 2026-04-26 00:00Z: Mondays 2 Mar .. 20 Apr are inside it.
    assert [e.starts_at for e in created] == mondays(dt.datetime(2026, 3, 2, 10, tzinfo=VIENNA), 8)
    series.refresh_from_db()
    assert series.last_generated_until == NOW + dt.timedelta(weeks=8)


def test_local_wall_clock_is_kept_across_the_spring_switch() -> None:
    series = make_series()
    created = generate_series_events(series, now=NOW)
    assert {e.starts_at.astimezone(VIENNA).time() for e in created} == {dt.time(10)}
    # Vienna moves to summer time on 29 March 2026: UTC hour 9 before, 8 after.
    assert [e.starts_at.hour for e in created] == [9, 9, 9, 9, 8, 8, 8, 8]


def test_second_run_creates_nothing() -> None:
    series = make_series()
    assert len(generate_series_events(series, now=NOW)) == 8
    assert generate_series_events(series, now=NOW) == []
    assert generate_series_events(series, now=NOW + dt.timedelta(hours=12)) == []
    assert len(occurrences(series)) == 8


def test_window_rolls_forward_one_occurrence_per_week() -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    created = generate_series_events(series, now=NOW + dt.timedelta(weeks=1))
    assert [e.starts_at for e in created] == [dt.datetime(2026, 4, 27, 8, tzinfo=UTC)]


def test_occurrence_on_horizon_is_generated_once() -> None:
    series = make_series()
    slot = dt.datetime(2026, 4, 27, 8, tzinfo=UTC)  # Monday 27 April 10:00 Vienna
    now = slot - dt.timedelta(weeks=8)
    first = generate_series_events(series, now=now)
    assert first[-1].starts_at == slot
    series.refresh_from_db()
    assert series.last_generated_until == slot
    assert generate_series_events(series, now=now + dt.timedelta(minutes=1)) == []
    assert Event.objects.filter(series=series, recurrence_id=slot).count() == 1


def test_shrunk_window_keeps_the_cursor_and_generation_resumes() -> None:
    series = make_series(window_weeks=8)
    generate_series_events(series, now=NOW)
    series.generation_window_weeks = 2
    series.save(update_fields=["generation_window_weeks"])
    assert generate_series_events(series, now=NOW) == []
    series.refresh_from_db()
    assert series.last_generated_until == NOW + dt.timedelta(weeks=8)
    # Six weeks later the 2-week window reaches past the old 8-week horizon again.
    later = NOW + dt.timedelta(weeks=7)
    created = generate_series_events(series, now=later)
    assert [e.starts_at for e in created] == [dt.datetime(2026, 4, 27, 8, tzinfo=UTC)]
    assert len(occurrences(series)) == 9


def test_past_occurrences_are_never_materialized_on_first_run() -> None:
    series = make_series(dtstart=dt.datetime(2025, 1, 6, 10, tzinfo=VIENNA))
    created = generate_series_events(series, now=NOW)
    assert created
    assert min(e.starts_at for e in created) >= NOW


def test_past_occurrences_are_not_materialized_after_cursor_reset_or_pause() -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
    series.refresh_from_db()
    later = NOW + dt.timedelta(weeks=20)
    created = generate_series_events(series, now=later)
    assert created
    assert all(e.starts_at >= later for e in created)
    # Long pause: cursor stays at an old horizon, resumed months later.
    series.refresh_from_db()
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=NOW)
    series.refresh_from_db()
    much_later = NOW + dt.timedelta(weeks=40)
    created = generate_series_events(series, now=much_later)
    assert created
    assert all(e.starts_at >= much_later for e in created)


def test_occurrence_exactly_at_now_is_materialized() -> None:
    series = make_series()
    slot = dt.datetime(2026, 3, 2, 9, tzinfo=UTC)
    created = generate_series_events(series, now=slot)
    assert created[0].starts_at == slot


def test_backfill_materializes_past_occurrences() -> None:
    series = make_series(dtstart=dt.datetime(2026, 1, 5, 10, tzinfo=VIENNA))
    created = generate_series_events(series, now=NOW, backfill=True)
    assert created[0].starts_at == dt.datetime(2026, 1, 5, 9, tzinfo=UTC)
    assert len(created) == 8 + 8  # 8 Mondays in Jan/Feb, 8 in the window


def test_explicit_until_extends_the_horizon() -> None:
    series = make_series()
    created = generate_series_events(series, now=NOW, until=NOW + dt.timedelta(weeks=12))
    assert len(created) == 12


def test_until_before_the_cursor_creates_nothing_and_never_moves_it_back() -> None:
    series = make_series()
    generate_series_events(series, now=NOW, until=NOW + dt.timedelta(weeks=12))
    series.refresh_from_db()
    cursor, due = series.last_generated_until, series.next_due_at
    assert cursor == NOW + dt.timedelta(weeks=12)
    for until in (NOW + dt.timedelta(weeks=3), cursor, NOW - dt.timedelta(days=2000)):
        assert generate_series_events(series, now=NOW, until=until) == []
        # The caller's instance and the row agree: the cursor did not move.
        assert (series.last_generated_until, series.next_due_at) == (cursor, due)
        series.refresh_from_db()
        assert (series.last_generated_until, series.next_due_at) == (cursor, due)
    assert len(occurrences(series)) == 12
    # A week later the daily window (8 weeks) is still below the cursor: nothing.
    assert generate_series_events(series, now=NOW + dt.timedelta(weeks=1)) == []
    assert fresh(series).last_generated_until == cursor


def test_backfill_up_to_an_until_before_the_cursor_keeps_the_cursor() -> None:
    series = make_series(dtstart=dt.datetime(2026, 1, 5, 10, tzinfo=VIENNA))
    generate_series_events(series, now=NOW)
    cursor = fresh(series).last_generated_until
    created = generate_series_events(
        series, now=NOW, until=NOW + dt.timedelta(weeks=1), backfill=True
    )
    assert len(created) == 8  # the Mondays of January and February
    assert fresh(series).last_generated_until == cursor


def test_until_beyond_max_window_is_refused(settings: object) -> None:
    series = make_series()
    with pytest.raises(GenerationWindowError, match="52 weeks"):
        generate_series_events(series, now=NOW, until=NOW + dt.timedelta(weeks=53))
    assert occurrences(series) == []


def test_until_limit_follows_setting(settings: object) -> None:
    settings.REVEL_RECURRING_MAX_WINDOW_WEEKS = 10
    series = make_series()
    with pytest.raises(GenerationWindowError, match="10 weeks"):
        generate_series_events(series, now=NOW, until=NOW + dt.timedelta(weeks=11))


def test_exdates_are_skipped() -> None:
    series = make_series()
    skipped = dt.datetime(2026, 3, 16, 10, tzinfo=VIENNA)
    series.exdates = [skipped]
    series.save()
    created = generate_series_events(series, now=NOW)
    assert skipped not in {e.starts_at for e in created}
    assert len(created) == 7


def test_moved_occurrence_is_not_recreated() -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    moved = occurrences(series)[1]
    original = moved.starts_at
    moved.starts_at = original + dt.timedelta(days=1, hours=2)
    moved.save()
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
    series.refresh_from_db()
    assert generate_series_events(series, now=NOW) == []
    assert not Event.objects.filter(series=series, starts_at=original).exists()
    assert Event.objects.get(pk=moved.pk).recurrence_id == original


def test_deleted_occurrence_is_recorded_as_exdate_and_not_recreated() -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    victim = occurrences(series)[2]
    slot = victim.recurrence_id
    victim.delete()  # the slot is pending (its after-commit fold never ran in this test)
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)
    series.refresh_from_db()
    assert generate_series_events(series, now=NOW) == []
    assert len(occurrences(series)) == 7
    assert slot in series.exdate_instants  # generation folded it in
    assert not PendingExdate.objects.exists()


def test_deleted_occurrence_shows_in_exdates_once_the_delete_commits(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    victim = occurrences(series)[2]
    with django_capture_on_commit_callbacks(execute=True):
        victim.delete()
    series.refresh_from_db()
    assert victim.recurrence_id in series.exdate_instants
    assert not PendingExdate.objects.exists()


def test_indices_continue_monotonically_across_runs() -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    occurrences(series)[3].delete()
    generate_series_events(series, now=NOW + dt.timedelta(weeks=2))
    # New occurrences continue after the series' maximum, so index order is
    # start order even with a gap left by a deleted occurrence.
    indices = [e.occurrence_index for e in occurrences(series)]
    assert indices == [1, 2, 3, 5, 6, 7, 8, 9, 10]


def test_index_of_a_deleted_newest_occurrence_is_not_reused() -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    occurrences(series)[-1].delete()  # index 8
    generate_series_events(series, now=NOW + dt.timedelta(weeks=1))
    assert [e.occurrence_index for e in occurrences(series)][-2:] == [7, 9]


@pytest.mark.parametrize(("auto_publish", "state"), [(True, "on_sale"), (False, "planned")])
def test_auto_publish_decides_the_status(auto_publish: bool, state: str) -> None:
    series = make_series(auto_publish=auto_publish)
    created = generate_series_events(series, now=NOW)
    assert {e.state for e in occurrences(series)} == {state}
    assert created


def test_template_fields_are_copied_and_time_fields_shifted() -> None:
    series = make_series()
    template = series.get_template()
    created = generate_series_events(series, now=NOW)
    for number, event in enumerate(occurrences(series), start=1):
        assert (event.title, event.venue, event.capacity) == ("Monday yoga", "Studio 2", 20)
        assert event.ends_at - event.starts_at == dt.timedelta(hours=1, minutes=30)
        assert event.starts_at - event.doors_open_at == dt.timedelta(minutes=30)
        assert event.recurrence_id == event.starts_at
        assert event.occurrence_index == number
        assert (event.is_template, event.is_modified) == (False, False)
        assert event.pk != template.pk
    assert len(created) == 8


def test_seats_are_cloned_for_every_occurrence() -> None:
    series = make_series(seats=2)
    generate_series_events(series, now=NOW)
    for event in occurrences(series):
        assert sorted(event.seats.values_list("label", "quantity", "booked")) == [
            ("Row 1", 10, 0),
            ("Row 2", 11, 0),
        ]
    assert Seat.objects.count() == 2 + 8 * 2


@pytest.mark.parametrize(
    "change",
    [{"is_active": False}, {"recurrence_rule": None}],
    ids=["inactive", "no-rule"],
)
def test_series_not_ready_generates_nothing(change: dict[str, object]) -> None:
    series = make_series()
    for name, value in change.items():
        setattr(series, name, value)
    series.save()
    assert generate_series_events(series, now=NOW) == []
    assert occurrences(series) == []


def test_series_without_template_generates_nothing_and_keeps_cursor() -> None:
    series = make_series()
    with replacing_template(series.pk):  # deleting a template alone is refused
        Event.objects.filter(series=series).delete()
    assert generate_series_events(series, now=NOW) == []
    series.refresh_from_db()
    assert series.last_generated_until is None


def test_series_without_template_is_disarmed_until_a_template_exists(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = make_series()
    with replacing_template(series.pk):  # deleting a template alone is refused
        Event.objects.filter(series=series).delete()
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    assert series.next_due_at is None  # not picked up by every daily pass
    assert not EventSeries.objects.due(now=NOW + dt.timedelta(days=3)).exists()
    with django_capture_on_commit_callbacks(execute=True):
        Event.objects.create(
            series=series,
            is_template=True,
            title="Back",
            starts_at=dt.datetime(2026, 3, 2, 9, tzinfo=UTC),
        )
    assert list(EventSeries.objects.due().values_list("pk", flat=True)) == [series.pk]
    assert len(generate_series_events(series, now=NOW)) == 8


def test_backfill_on_a_generated_series_fills_the_past() -> None:
    series = make_series(dtstart=dt.datetime(2026, 1, 5, 10, tzinfo=VIENNA))
    generate_series_events(series, now=NOW)
    assert min(e.starts_at for e in occurrences(series)) >= NOW
    created = generate_series_events(series, now=NOW, backfill=True)
    # The eight January/February Mondays; the window's Mondays exist already.
    assert [e.starts_at.date() for e in created][:2] == [dt.date(2026, 1, 5), dt.date(2026, 1, 12)]
    assert len(created) == 8
    assert len(occurrences(series)) == 16


def test_locked_state_wins_over_a_stale_instance() -> None:
    series = make_series()
    EventSeries.objects.filter(pk=series.pk).update(is_active=False)
    assert series.is_active  # the caller's copy is stale
    assert generate_series_events(series, now=NOW) == []


def test_count_exhausted_rule_has_no_next_due() -> None:
    series = make_series(count=3)
    created = generate_series_events(series, now=NOW)
    assert len(created) == 3
    series.refresh_from_db()
    assert series.next_due_at is None


def test_next_due_is_next_slot_minus_window() -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    next_slot = dt.datetime(2026, 4, 27, 8, tzinfo=UTC)
    assert series.next_due_at == next_slot - dt.timedelta(weeks=8)


def test_preview_lists_the_slots_without_writing() -> None:
    series = make_series()
    slots = preview_series_events(series, now=NOW)
    assert slots == mondays(dt.datetime(2026, 3, 2, 10, tzinfo=VIENNA), 8)
    assert occurrences(series) == []


def test_naive_until_is_a_recurrence_error_not_a_raw_exception() -> None:
    series = make_series()
    with pytest.raises(GenerationWindowError, match="aware"):
        generate_series_events(series, until=dt.datetime(2026, 4, 1), now=NOW)
    with pytest.raises(GenerationWindowError, match="aware"):
        preview_series_events(series, until=dt.datetime(2026, 4, 1), now=NOW)


def test_saving_the_instance_generation_was_given_keeps_indices_monotonic() -> None:
    # create_recurring_series (and any caller of generate_series_events) keeps the
    # instance it passed in; a later save() of it must not rewind the counter.
    series = weekly_series(window_weeks=2)
    assert series.last_occurrence_index == 2
    series.description = "Bring a mat"
    series.save()
    generate_series_events(fresh(series), now=NOW + dt.timedelta(weeks=1))
    assert [e.occurrence_index for e in occurrences(series)] == [1, 2, 3]
