"""Series lifecycle services: create, change the cadence, pause/resume, delete."""

from __future__ import annotations

import datetime as dt
from typing import Any
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError

from revel_recurring.exceptions import SeriesHasBookingsError
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import (
    create_recurring_series,
    delete_series,
    pause_series,
    resume_series,
    update_series_recurrence,
)
from revel_recurring.signals import series_paused, series_recurrence_changed, series_resumed
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import (
    FIRST_MONDAY,
    NEW_YORK,
    NOW,
    UTC,
    VIENNA,
    captured,
    fresh,
    monday,
    occurrences,
    template_of,
    weekly_series,
)

pytestmark = pytest.mark.django_db


# create_recurring_series


def test_create_makes_rule_series_draft_template_and_first_window() -> None:
    series = weekly_series()
    template = template_of(series)
    assert template.state == Event.RECURRING_STATUS_DRAFT
    assert template.starts_at == FIRST_MONDAY
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.rrule_string.startswith("DTSTART;TZID=Europe/Vienna")
    created = occurrences(series)
    assert [e.recurrence_id for e in created] == [monday(week) for week in range(8)]
    assert all(e.state == Event.RECURRING_STATUS_DRAFT for e in created)
    assert fresh(series).last_generated_until == NOW + dt.timedelta(weeks=8)
    assert fresh(series).next_due_at == monday(8) - dt.timedelta(weeks=8)


def test_create_without_generation_leaves_the_window_to_the_beat() -> None:
    series = weekly_series(generate=False)
    assert occurrences(series) == []
    assert fresh(series).next_due_at is not None
    assert fresh(series).last_generated_until is None


def test_create_with_invalid_rule_creates_nothing() -> None:
    with pytest.raises(ValidationError) as excinfo:
        weekly_series(weekdays=[7])
    assert "weekdays" in excinfo.value.message_dict
    assert not RecurrenceRule.objects.exists()
    assert not EventSeries.objects.exists()
    assert not Event.objects.exists()


def _create_with_extra_dates(*extra: dt.datetime) -> EventSeries:
    return create_recurring_series(
        rule_data={"frequency": "WEEKLY", "dtstart": FIRST_MONDAY, "timezone": "Europe/Vienna"},
        template_data={"title": "Monday yoga", "ends_at": FIRST_MONDAY + dt.timedelta(hours=1)},
        name="Monday yoga",
        extra_dates=extra,
        now=NOW,
    )


def test_create_adds_the_extra_dates_after_the_first_window() -> None:
    wednesday = dt.datetime(2026, 3, 11, 18, 30, tzinfo=VIENNA)
    series = _create_with_extra_dates(wednesday)
    assert fresh(series).extra_dates == ["2026-03-11T17:30:00Z"]
    assert wednesday in [e.recurrence_id for e in occurrences(series)]


def test_create_with_a_refused_extra_date_creates_nothing() -> None:
    with pytest.raises(ValidationError) as excinfo:
        _create_with_extra_dates(dt.datetime(2026, 2, 28, 18, 30, tzinfo=VIENNA))
    # Keyed where the caller sent it (the service adding one date keys it `instant`).
    assert list(excinfo.value.message_dict) == ["extra_dates"]
    assert not EventSeries.objects.exists()
    assert not Event.objects.exists()


def test_create_with_unknown_rule_field_is_refused() -> None:
    with pytest.raises(ValidationError) as excinfo:
        weekly_series(byhour=3)
    assert "byhour" in excinfo.value.message_dict
    assert not RecurrenceRule.objects.exists()


def test_create_with_invalid_template_creates_nothing() -> None:
    with pytest.raises(ValidationError) as excinfo:
        create_recurring_series(
            rule_data={"frequency": "DAILY", "dtstart": FIRST_MONDAY, "timezone": "Europe/Vienna"},
            template_data={"title": "", "capacity": -1},
            name="Broken",
            now=NOW,
        )
    assert {"title", "capacity"} <= set(excinfo.value.message_dict)
    assert not RecurrenceRule.objects.exists()
    assert not EventSeries.objects.exists()


def test_create_refuses_managed_template_fields() -> None:
    with pytest.raises(ValidationError) as excinfo:
        create_recurring_series(
            rule_data={"frequency": "DAILY", "dtstart": FIRST_MONDAY, "timezone": "Europe/Vienna"},
            template_data={"title": "x", "state": "on_sale", "is_modified": True, "nope": 1},
            name="Broken",
            now=NOW,
        )
    assert {"state", "is_modified", "nope"} == set(excinfo.value.message_dict)


def test_create_with_invalid_window_creates_nothing() -> None:
    with pytest.raises(ValidationError) as excinfo:
        weekly_series(window_weeks=53)
    assert "generation_window_weeks" in excinfo.value.message_dict
    assert not EventSeries.objects.exists()


def test_failing_host_hook_during_first_window_creates_nothing() -> None:
    with (
        mock.patch.object(Event, "clone_related", side_effect=RuntimeError("tier copy failed")),
        pytest.raises(RuntimeError),
    ):
        weekly_series()
    assert not RecurrenceRule.objects.exists()
    assert not EventSeries.objects.exists()
    assert not Event.objects.exists()


# update_series_recurrence


def test_changing_weekdays_resets_cursor_and_keeps_occurrences(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series()
    before = [(e.pk, e.starts_at) for e in occurrences(series)]
    with (
        captured(series_recurrence_changed) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        update_series_recurrence(series, rule_changes={"weekdays": [1]}, now=NOW)
    assert series.last_generated_until is None
    assert fresh(series).last_generated_until is None
    assert fresh(series).recurrence_rule.weekdays == [1]
    assert "BYDAY=TU" in fresh(series).recurrence_rule.rrule_string
    # The same rows, each moved to its week's Tuesday.
    assert [(e.pk, e.starts_at) for e in occurrences(series)] == [
        (pk, start + dt.timedelta(days=1)) for pk, start in before
    ]
    assert len(calls) == 1
    assert calls[0]["series"].pk == series.pk
    assert calls[0]["changed_fields"] == {"weekdays"}
    assert calls[0]["cursor_reset"] is True


def test_changing_the_window_resets_cursor() -> None:
    series = weekly_series()
    update_series_recurrence(series, generation_window_weeks=4, now=NOW)
    assert fresh(series).generation_window_weeks == 4
    assert fresh(series).last_generated_until is None


@pytest.mark.parametrize(
    "changes",
    [
        {"interval": 2},
        {"dtstart": FIRST_MONDAY + dt.timedelta(hours=1)},
        {"until": dt.datetime(2026, 6, 1, tzinfo=UTC)},
        {"count": 20},
        {"timezone": "Europe/Berlin"},
        {"frequency": "DAILY"},
        {"weekdays": [0, 3]},
    ],
)
def test_every_schedule_field_change_resets_cursor(changes: dict[str, Any]) -> None:
    series = weekly_series()
    update_series_recurrence(series, rule_changes=changes, now=NOW)
    assert fresh(series).last_generated_until is None


def test_monthly_field_changes_reset_cursor() -> None:
    series = weekly_series()
    update_series_recurrence(
        series,
        rule_changes={
            "frequency": "MONTHLY",
            "monthly_type": "NTH_WEEKDAY",
            "nth_weekday": 1,
            "weekday": 0,
        },
        now=NOW,
    )
    generate_series_events(series, now=NOW)
    assert fresh(series).last_generated_until is not None
    for changes in (
        {"nth_weekday": 2},
        {"weekday": 1},
        {"monthly_type": "DAY_OF_MONTH", "day_of_month": 5, "nth_weekday": None, "weekday": None},
    ):
        generate_series_events(series, now=NOW)
        assert fresh(series).last_generated_until is not None
        update_series_recurrence(series, rule_changes=changes, now=NOW)
        assert fresh(series).last_generated_until is None, changes
    generate_series_events(series, now=NOW)
    update_series_recurrence(series, rule_changes={"day_of_month": 6}, now=NOW)
    assert fresh(series).last_generated_until is None


def test_unchanged_values_reset_nothing(django_capture_on_commit_callbacks: Any) -> None:
    series = weekly_series(weekdays=[0, 3])
    cursor = fresh(series).last_generated_until
    due = fresh(series).next_due_at
    with (
        captured(series_recurrence_changed) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        update_series_recurrence(
            series,
            rule_changes={
                # the same instant written in another zone, weekdays reordered
                "dtstart": FIRST_MONDAY.astimezone(NEW_YORK),
                "weekdays": [3, 0],
                "interval": 1,
                "timezone": "Europe/Vienna",
                "frequency": "WEEKLY",
            },
            generation_window_weeks=8,
            now=NOW,
        )
    assert fresh(series).last_generated_until == cursor
    assert fresh(series).next_due_at == due
    assert calls == []


def test_auto_publish_alone_resets_nothing(django_capture_on_commit_callbacks: Any) -> None:
    series = weekly_series()
    cursor = fresh(series).last_generated_until
    with (
        captured(series_recurrence_changed) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        update_series_recurrence(series, auto_publish=True, now=NOW)
    assert fresh(series).auto_publish is True
    assert fresh(series).last_generated_until == cursor
    assert calls[0]["changed_fields"] == {"auto_publish"}
    assert calls[0]["cursor_reset"] is False


def test_frequency_change_clears_fields_the_new_frequency_does_not_use() -> None:
    series = weekly_series(weekdays=[0, 2])
    update_series_recurrence(series, rule_changes={"frequency": "DAILY"}, now=NOW)
    rule = fresh(series).recurrence_rule
    assert rule.frequency == "DAILY"
    assert rule.weekdays == []


def test_monthly_to_weekly_clears_monthly_fields() -> None:
    series = weekly_series()
    update_series_recurrence(
        series,
        rule_changes={"frequency": "MONTHLY", "monthly_type": "DAY_OF_MONTH", "day_of_month": 2},
        now=NOW,
    )
    update_series_recurrence(series, rule_changes={"frequency": "WEEKLY", "weekdays": [4]}, now=NOW)
    rule = fresh(series).recurrence_rule
    assert (rule.monthly_type, rule.day_of_month, rule.weekdays) == ("", None, [4])


def test_invalid_change_is_keyed_by_field_and_writes_nothing() -> None:
    series = weekly_series()
    cursor = fresh(series).last_generated_until
    with pytest.raises(ValidationError) as excinfo:
        update_series_recurrence(
            series, rule_changes={"interval": 0, "weekdays": [9]}, auto_publish=True, now=NOW
        )
    assert {"interval", "weekdays"} <= set(excinfo.value.message_dict)
    current = fresh(series)
    assert current.recurrence_rule.interval == 1
    assert current.auto_publish is False
    assert current.last_generated_until == cursor


def test_explicit_unused_field_with_new_frequency_is_an_error() -> None:
    series = weekly_series()
    with pytest.raises(ValidationError) as excinfo:
        update_series_recurrence(
            series, rule_changes={"frequency": "DAILY", "weekdays": [1]}, now=NOW
        )
    assert "weekdays" in excinfo.value.message_dict


def test_invalid_window_is_keyed_by_field() -> None:
    series = weekly_series()
    with pytest.raises(ValidationError) as excinfo:
        update_series_recurrence(series, generation_window_weeks=0, now=NOW)
    assert "generation_window_weeks" in excinfo.value.message_dict


def test_rule_change_recomputes_next_due_at_and_generation_follows_new_rule() -> None:
    series = weekly_series()
    update_series_recurrence(series, rule_changes={"weekdays": [1]}, now=NOW)
    tuesday = monday(0) + dt.timedelta(days=1)
    assert fresh(series).next_due_at == tuesday - dt.timedelta(weeks=8)
    # The Mondays moved to the Tuesdays: generation has nothing to add in the window,
    # and a week later it adds the next Tuesday.
    assert [e.starts_at for e in occurrences(series)][:2] == [
        tuesday,
        tuesday + dt.timedelta(weeks=1),
    ]
    assert generate_series_events(fresh(series), now=NOW) == []
    created = generate_series_events(fresh(series), now=NOW + dt.timedelta(weeks=1))
    assert [e.starts_at for e in created] == [monday(8) + dt.timedelta(days=1)]  # summer time
    assert len(occurrences(series)) == 9


def test_cursor_reset_never_materializes_the_past() -> None:
    series = weekly_series()
    later = NOW + dt.timedelta(weeks=3)
    update_series_recurrence(series, rule_changes={"weekdays": [1]}, now=later)
    created = generate_series_events(fresh(series), now=later)
    assert created
    assert min(e.starts_at for e in created) >= later


# pause_series / resume_series


def test_pause_and_resume_flip_is_active_only(django_capture_on_commit_callbacks: Any) -> None:
    series = weekly_series()
    before = fresh(series)
    rows = [(e.pk, e.starts_at, e.state) for e in occurrences(series)]
    with (
        captured(series_paused) as paused,
        captured(series_resumed) as resumed,
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert pause_series(series, now=NOW) is True
        assert pause_series(series, now=NOW) is False
        assert fresh(series).is_active is False
        assert series.is_active is False
        assert resume_series(series, now=NOW) is True
        assert resume_series(series, now=NOW) is False
    after = fresh(series)
    assert after.is_active is True
    assert after.last_generated_until == before.last_generated_until
    assert after.exdates == before.exdates
    assert [(e.pk, e.starts_at, e.state) for e in occurrences(series)] == rows
    assert [c["series"].pk for c in paused] == [series.pk]
    assert [c["series"].pk for c in resumed] == [series.pk]


def test_paused_series_is_not_generated() -> None:
    series = weekly_series(window_weeks=2)
    pause_series(series, now=NOW)
    assert generate_series_events(fresh(series), now=NOW + dt.timedelta(weeks=4)) == []


def test_resuming_after_a_long_pause_never_materializes_past_dates() -> None:
    series = weekly_series(window_weeks=2)
    pause_series(series, now=NOW)
    later = NOW + dt.timedelta(weeks=6)
    resume_series(series, now=later)
    assert fresh(series).next_due_at is not None
    assert fresh(series).next_due_at <= later
    created = generate_series_events(fresh(series), now=later)
    assert created
    assert all(e.starts_at >= later for e in created)
    slots = [e.recurrence_id for e in occurrences(series)]
    assert monday(3) not in slots  # missed while paused, stays missed


# delete_series


def test_delete_removes_series_template_occurrences_and_rule() -> None:
    series = weekly_series()
    rule_id = series.recurrence_rule_id
    Seat.objects.create(event=occurrences(series)[0], label="A", quantity=5)
    with mock.patch("revel_recurring.receivers.record_pending_exdates") as record_pending_exdates:
        deleted = delete_series(series)
    assert deleted == 9
    record_pending_exdates.assert_not_called()  # deleting the series records no exdate
    assert not Event.objects.exists()
    assert not Seat.objects.exists()
    assert not EventSeries.objects.filter(pk=series.pk).exists()
    assert not RecurrenceRule.objects.filter(pk=rule_id).exists()


def test_delete_refuses_while_an_occurrence_has_bookings() -> None:
    series = weekly_series()
    booked = occurrences(series)[3]
    Seat.objects.create(event=booked, label="A", quantity=5, booked=2)
    with pytest.raises(SeriesHasBookingsError) as refused:
        delete_series(series)
    # Named as the organiser reads it: the wall clock in the rule's zone, not an id.
    assert str(refused.value) == (
        "Series 'Monday yoga' cannot be deleted: Mon 23 Mar 2026 10:00 (Europe/Vienna) "
        "has bookings. Cancel or refund those bookings first, or pause the series instead."
    )
    assert [date.id for date in refused.value.booked] == [booked.pk]
    assert EventSeries.objects.filter(pk=series.pk).exists()
    assert Event.objects.filter(series=series).count() == 9
    assert RecurrenceRule.objects.filter(pk=series.recurrence_rule_id).exists()


def test_deleting_one_occurrence_still_records_its_slot(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series()
    victim = occurrences(series)[2]
    with django_capture_on_commit_callbacks(execute=True):
        victim.delete()
    assert monday(2) in fresh(series).exdate_instants


def test_delete_series_without_rule_or_occurrences() -> None:
    series = EventSeries.objects.create(name="Empty")
    assert delete_series(series) == 0
    assert not EventSeries.objects.exists()


def test_create_keeps_template_start_when_given() -> None:
    start = dt.datetime(2026, 3, 2, 10, 0, tzinfo=VIENNA)
    series = create_recurring_series(
        rule_data={"frequency": "DAILY", "dtstart": start, "timezone": "Europe/Vienna", "count": 3},
        template_data={
            "title": "Daily",
            "starts_at": start,
            "ends_at": start + dt.timedelta(hours=2),
        },
        name="Daily",
        now=NOW,
    )
    created = occurrences(series)
    assert len(created) == 3
    assert all(e.ends_at - e.starts_at == dt.timedelta(hours=2) for e in created)
    assert fresh(series).next_due_at is None


def test_create_refuses_a_start_typed_in_another_zone_than_the_rule() -> None:
    london = dt.datetime(2026, 3, 2, 10, 0, tzinfo=ZoneInfo("Europe/London"))

    with pytest.raises(ValidationError) as caught:
        create_recurring_series(
            rule_data={"frequency": "WEEKLY", "dtstart": london, "timezone": "Europe/Vienna"},
            template_data={"title": "Yoga"},
            name="Yoga",
            now=NOW,
        )

    assert list(caught.value.message_dict) == ["dtstart"]
    assert not EventSeries.objects.exists()


def test_moving_the_start_in_another_zone_than_the_rule_is_refused() -> None:
    series = weekly_series()
    new_york = dt.datetime(2026, 3, 9, 10, 0, tzinfo=NEW_YORK)

    with pytest.raises(ValidationError) as caught:
        update_series_recurrence(series, rule_changes={"dtstart": new_york}, now=NOW)

    assert list(caught.value.message_dict) == ["dtstart"]
