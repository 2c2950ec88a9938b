"""update_series: every editable value of a series under one lock, in one transaction.

Runs on every backend of the suite; the last test needs PostgreSQL's row locks.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.exceptions import GenerationTooLargeError, PlanOutdatedError
from revel_recurring.models import EventSeries, RecurrenceRule
from revel_recurring.services.editing import update_series
from revel_recurring.services.lifecycle import pause_series
from revel_recurring.services.plans import plan_recurrence_change
from revel_recurring.services.toolbox.locking import lock_series
from revel_recurring.signals import series_paused, series_recurrence_changed, series_resumed
from tests.support.concurrency import Background, held_in_transaction, wait_until_blocked
from tests.support.factories import NOW, captured, fresh, monday, occurrences, weekly_series

pytestmark = pytest.mark.django_db

SERIES_TABLE = EventSeries._meta.db_table


def _series_locks(queries: list[dict[str, Any]]) -> int:
    """How many statements took the series row lock (lock_series' statement on each backend)."""
    if connection.features.has_select_for_update:
        marker = "FOR NO KEY UPDATE" if connection.vendor == "postgresql" else "FOR UPDATE"
        return sum(1 for q in queries if SERIES_TABLE in q["sql"] and marker in q["sql"].upper())
    # SQLite: the no-op UPDATE that takes the database's write lock.
    return sum(
        1
        for q in queries
        if q["sql"].startswith(f'UPDATE "{SERIES_TABLE}" SET "is_active" = "{SERIES_TABLE}"')
    )


def _rule(series: EventSeries) -> RecurrenceRule:
    return RecurrenceRule.objects.get(pk=fresh(series).recurrence_rule_id)


def test_everything_is_written_under_one_series_lock() -> None:
    series = weekly_series()
    pause_series(series, now=NOW)
    with CaptureQueriesContext(connection) as queries:
        result = update_series(
            series,
            name="Tuesday yoga",
            description="Bring a mat.",
            is_active=True,
            auto_publish=True,
            generation_window_weeks=4,
            rule_changes={"weekdays": [1]},
            now=NOW,
        )
    assert _series_locks(queries.captured_queries) == 1
    stored = fresh(series)
    assert (stored.name, stored.description, stored.is_active, stored.auto_publish) == (
        "Tuesday yoga",
        "Bring a mat.",
        True,
        True,
    )
    assert stored.generation_window_weeks == 4
    assert _rule(series).weekdays == [1]
    assert result.changed == {
        "name",
        "description",
        "is_active",
        "auto_publish",
        "generation_window_weeks",
        "weekdays",
    }
    assert result.cursor_reset is True


def test_a_rule_error_leaves_the_new_name_unwritten() -> None:
    series = weekly_series()
    with pytest.raises(ValidationError) as caught:
        update_series(series, name="Renamed", rule_changes={"interval": 0}, now=NOW)
    assert "interval" in caught.value.message_dict
    assert fresh(series).name == "Monday yoga"
    assert _rule(series).interval == 1


def test_a_slug_another_series_holds_leaves_the_rule_unchanged() -> None:
    other = weekly_series(name="Friday run")
    series = weekly_series()
    with pytest.raises(ValidationError) as caught:
        update_series(series, slug=other.slug, rule_changes={"interval": 2}, now=NOW)
    assert list(caught.value.message_dict) == ["slug"]
    assert _rule(series).interval == 1
    assert fresh(series).slug == "monday-yoga"


def test_a_late_refusal_rolls_back_the_rule_the_flags_and_the_name(settings: Any) -> None:
    # The size check runs after the rule was saved and the series resumed.
    series = weekly_series()
    pause_series(series, now=NOW)
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1
    with pytest.raises(GenerationTooLargeError):
        update_series(
            series, name="Renamed", is_active=True, rule_changes={"weekdays": [1]}, now=NOW
        )
    stored = fresh(series)
    assert (stored.name, stored.is_active) == ("Monday yoga", False)
    assert _rule(series).weekdays == []


def test_signals_go_out_after_commit_the_rule_change_first(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    series = weekly_series()
    pause_series(series, now=NOW)
    sent: list[tuple[str, Any]] = []

    def record(name: str) -> Callable[..., None]:
        return lambda sender, **kwargs: sent.append((name, kwargs))

    receivers = {series_recurrence_changed: record("changed"), series_resumed: record("resumed")}
    for signal, receiver in receivers.items():
        signal.connect(receiver)
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            update_series(
                series, name="Renamed", is_active=True, rule_changes={"interval": 2}, now=NOW
            )
        assert sent == []  # nothing before the commit
        for callback in callbacks:
            callback()
    finally:
        for signal, receiver in receivers.items():
            signal.disconnect(receiver)
    assert [name for name, _ in sent] == ["changed", "resumed"]
    assert sent[0][1]["changed_fields"] == {"interval"}
    assert sent[0][1]["cursor_reset"] is True
    assert all(kwargs["series"].pk == series.pk for _, kwargs in sent)


def test_a_plain_column_change_sends_nothing_and_keeps_the_cursor(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    series = weekly_series()
    cursor = fresh(series).last_generated_until
    with (
        captured(series_recurrence_changed) as changed,
        captured(series_paused) as paused,
        django_capture_on_commit_callbacks(execute=True),
    ):
        result = update_series(series, name="Renamed", description="New text", now=NOW)
    assert changed == paused == []
    assert result.changed == {"name", "description"}
    assert result.cursor_reset is False
    assert fresh(series).last_generated_until == cursor


def test_current_values_change_nothing() -> None:
    series = weekly_series()
    before = fresh(series).updated_at
    result = update_series(
        series,
        name="Monday yoga",
        is_active=True,
        auto_publish=False,
        generation_window_weeks=8,
        rule_changes={"interval": 1},
        now=NOW,
    )
    assert result.changed == frozenset()
    assert fresh(series).updated_at == before


def test_an_empty_slug_is_filled_from_the_name() -> None:
    series = weekly_series()
    update_series(series, name="Evening run", slug="", now=NOW)
    assert fresh(series).slug == "evening-run"
    assert series.slug == "evening-run"


def test_resuming_an_active_parked_series_unparks_it_and_leaving_the_flag_out_does_not() -> None:
    series = weekly_series()
    EventSeries.objects.filter(pk=series.pk).update(parked_at=NOW, parked_reason="Broken hook")
    update_series(fresh(series), name="Renamed", now=NOW)
    assert fresh(series).parked_at == NOW
    result = update_series(fresh(series), is_active=True, now=NOW)
    assert result.changed == {"parked_at", "parked_reason"}
    assert (fresh(series).parked_at, fresh(series).parked_reason) == (None, "")


def test_the_callers_instance_keeps_the_values_it_did_not_pass() -> None:
    # An edit form holds its unsaved values on the instance it hands over.
    series = weekly_series()
    series.description = "typed in the form"
    update_series(series, name="Renamed", auto_publish=True, now=NOW)
    assert (series.name, series.auto_publish) == ("Renamed", True)
    assert series.description == "typed in the form"


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 256}, "name"),
        ({"description": "a\x00b"}, "description"),
        ({"is_active": "yes"}, "is_active"),
        ({"auto_publish": 1}, "auto_publish"),
        ({"generation_window_weeks": 0}, "generation_window_weeks"),
        ({"rule_changes": {"colour": "red"}}, "colour"),
    ],
)
def test_bad_input_is_refused_by_name_and_nothing_is_written(
    options: dict[str, Any], key: str
) -> None:
    series = weekly_series()
    before = fresh(series).updated_at
    with pytest.raises(ValidationError) as caught:
        update_series(series, **options, now=NOW)
    assert key in caught.value.message_dict
    assert fresh(series).updated_at == before


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")
def test_an_edit_waits_for_the_lock_and_keeps_the_rule_the_holder_committed() -> None:
    series = weekly_series()
    rule_id = fresh(series).recurrence_rule_id

    def change_interval() -> None:
        lock_series(series.pk)
        RecurrenceRule.objects.filter(pk=rule_id).update(interval=2)

    with held_in_transaction(change_interval):
        edit = Background(
            lambda: update_series(
                EventSeries.objects.get(pk=series.pk),
                name="Renamed",
                rule_changes={"count": 5},
                now=NOW + dt.timedelta(minutes=1),
            )
        )
        wait_until_blocked()
    edit.result()
    rule = _rule(series)
    assert (rule.interval, rule.count) == (2, 5)
    assert fresh(series).name == "Renamed"


# The whole request in one call: the extra dates, a confirmed plan, what a PATCH answers.

WEDNESDAY = dt.datetime(2026, 3, 11, 17, 30, tzinfo=dt.UTC)


def test_extra_dates_become_the_set_given_with_the_other_values() -> None:
    series = weekly_series()
    result = update_series(series, name="Renamed", extra_dates=[WEDNESDAY], now=NOW)
    stored = fresh(series)
    assert (stored.name, stored.extra_dates) == ("Renamed", ["2026-03-11T17:30:00Z"])
    # Inside the window: generated at once and answered.
    assert [event.recurrence_id for event in result.created] == [WEDNESDAY]


def test_a_refused_extra_date_is_keyed_extra_dates_and_undoes_the_other_values() -> None:
    series = weekly_series()
    with pytest.raises(ValidationError) as caught:
        update_series(
            series,
            name="Renamed",
            rule_changes={"interval": 2},
            extra_dates=[dt.datetime(2026, 2, 28, 17, 30, tzinfo=dt.UTC)],
            now=NOW,
        )
    assert list(caught.value.message_dict) == ["extra_dates"]
    assert "in the past" in caught.value.message_dict["extra_dates"][0]
    assert fresh(series).name == "Monday yoga"
    assert _rule(series).interval == 1


def test_a_plan_hash_applies_the_plan_and_the_other_values_in_one_call() -> None:
    series = weekly_series()
    plan = plan_recurrence_change(series, {"weekdays": [1]}, now=NOW)
    result = update_series(
        series,
        name="Tuesday yoga",
        rule_changes={"weekdays": [1]},
        plan_hash=plan.hash,
        cancel_drift="unbooked",
        now=NOW,
    )
    assert result.applied is not None
    # Every Monday moves to its week's Tuesday: nothing to cancel, nothing new.
    assert result.applied.moved == [row.id for row in plan.drift]
    assert (result.applied.created, result.applied.cancelled) == ([], [])
    assert {"name", "weekdays"} <= result.changed
    assert fresh(series).name == "Tuesday yoga"
    assert _rule(series).weekdays == [1]


def test_an_outdated_plan_hash_writes_nothing_of_the_request() -> None:
    series = weekly_series()
    with pytest.raises(PlanOutdatedError) as caught:
        update_series(
            series,
            name="Tuesday yoga",
            rule_changes={"weekdays": [1]},
            plan_hash="0" * 64,
            now=NOW,
        )
    assert caught.value.plan is not None
    assert fresh(series).name == "Monday yoga"
    assert _rule(series).weekdays == []


def test_generate_answers_the_new_dates_and_the_drift_after_a_schedule_change() -> None:
    series = weekly_series()
    unchanged = update_series(series, name="Renamed", generate=True, now=NOW)
    assert (unchanged.created, unchanged.drift) == ((), ())
    # Every other week, twelve weeks ahead: the odd weeks' Mondays have no date of the
    # new rule in their fortnight (drift, a PATCH cancels nothing); weeks 8 and 10 are new.
    rows = occurrences(series)
    result = update_series(
        series, rule_changes={"interval": 2}, generation_window_weeks=12, generate=True, now=NOW
    )
    assert [event.starts_at for event in result.created] == [monday(8), monday(10)]
    assert [row.id for row in result.drift] == [rows[week].pk for week in (1, 3, 5, 7)]
    assert result.moved == ()
    assert result.generation_error is None
