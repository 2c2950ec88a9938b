"""Cadence drift detection and the bulk "cancel stale dates" action."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences, detect_cadence_drift
from revel_recurring.services.lifecycle import update_series_recurrence
from revel_recurring.signals import occurrence_cancelled
from tests.hosts.testapp.models import Event
from tests.support.drift import drift_without_partners
from tests.support.factories import (
    NOW,
    captured,
    fresh,
    monday,
    occurrences,
    template_of,
    weekly_series,
)

pytestmark = pytest.mark.django_db

CALLED_OFF = Event.RECURRING_STATUS_CANCELLED


def ended_early() -> EventSeries:
    """Eight Mondays whose rule ends after the first: the other seven have nowhere to go."""
    series = weekly_series()
    drift_without_partners(series, now=NOW)
    return fresh(series)


def test_a_rule_ended_early_reports_the_dates_after_its_end() -> None:
    series = ended_early()
    after_the_end = [e.pk for e in occurrences(series)[1:]]
    assert detect_cadence_drift(series, now=NOW) == after_the_end


def test_a_weekday_change_leaves_no_drift_every_monday_moved_to_its_tuesday() -> None:
    series = weekly_series()
    before = occurrences(series)
    update_series_recurrence(series, rule_changes={"weekdays": [1]}, now=NOW)
    after = occurrences(series)
    assert [e.pk for e in after] == [e.pk for e in before]
    assert [e.starts_at for e in after] == [
        monday(week) + dt.timedelta(days=1) for week in range(8)
    ]
    assert detect_cadence_drift(fresh(series), now=NOW) == []


def test_unchanged_rule_has_no_drift_across_the_dst_switch() -> None:
    # 2 March .. 20 April in Vienna: 10:00 CET is 09:00Z before 29 March and
    # 10:00 CEST is 08:00Z after; comparing instants must not call either drift.
    series = weekly_series()
    starts = {e.starts_at.hour for e in occurrences(series)}
    assert starts == {8, 9}
    assert detect_cadence_drift(series, now=NOW) == []


def test_vienna_occurrence_stored_in_another_zone_is_not_drift() -> None:
    series = weekly_series()
    after_switch = occurrences(series)[5]  # 6 April, CEST
    local = after_switch.starts_at.astimezone(rules.UTC).astimezone(
        dt.timezone(dt.timedelta(hours=-4))
    )
    Event.objects.filter(pk=after_switch.pk).update(starts_at=local)
    assert detect_cadence_drift(series, now=NOW) == []


def test_modified_cancelled_past_and_template_rows_are_never_drift() -> None:
    series = ended_early()
    rows = occurrences(series)
    modified, cancelled, past = rows[1], rows[2], rows[0]
    Event.objects.filter(pk=modified.pk).update(is_modified=True)
    Event.objects.filter(pk=cancelled.pk).update(state=CALLED_OFF)
    now = past.starts_at + dt.timedelta(minutes=1)
    drift = detect_cadence_drift(series, now=now)
    assert drift == [e.pk for e in rows[3:]]
    assert template_of(series).pk not in drift


def test_occurrence_on_an_exdate_counts_as_drift() -> None:
    series = weekly_series()
    fourth = occurrences(series)[3]
    EventSeries.objects.filter(pk=series.pk).update(exdates=[rules.format_instant(monday(3))])
    assert detect_cadence_drift(fresh(series), now=NOW) == [fourth.pk]


def test_occurrence_moved_off_cadence_without_tracking_is_drift() -> None:
    series = weekly_series()
    moved = occurrences(series)[4]
    Event.objects.filter(pk=moved.pk).update(starts_at=moved.starts_at + dt.timedelta(hours=2))
    assert detect_cadence_drift(series, now=NOW) == [moved.pk]


def test_series_without_rule_has_no_drift() -> None:
    series = EventSeries.objects.create(name="One-offs")
    assert detect_cadence_drift(series, now=NOW) == []


@pytest.mark.parametrize("weeks", [2, 20])
def test_candidates_are_read_in_one_query(weeks: int) -> None:
    series = weekly_series(window_weeks=weeks)
    drift_without_partners(series, now=NOW)
    series = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk)
    with CaptureQueriesContext(connection) as queries:
        drift = detect_cadence_drift(series, now=NOW)
    assert len(drift) == weeks - 1
    assert len(queries) == 1


def test_cancel_stale_occurrences_cancels_all_drift_and_records_slots(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = ended_early()
    mondays = occurrences(series)[1:]
    with (
        captured(occurrence_cancelled) as calls,
        django_capture_on_commit_callbacks(execute=True),
    ):
        cancelled = cancel_stale_occurrences(series, now=NOW).cancelled
    assert cancelled == [e.pk for e in mondays]
    assert all(e.state == CALLED_OFF and not e.is_modified for e in occurrences(series)[1:])
    assert fresh(series).exdate_instants == {monday(week) for week in range(1, 8)}
    assert detect_cadence_drift(series, now=NOW) == []
    assert [c["occurrence"].pk for c in calls] == cancelled
    assert calls[0]["instant"] == monday(1)


def test_cancel_stale_occurrences_honours_the_given_subset() -> None:
    series = ended_early()
    rows = occurrences(series)
    chosen = [rows[2].pk, rows[5].pk]
    assert cancel_stale_occurrences(series, ids=chosen, now=NOW).cancelled == chosen
    states = {e.pk: e.state for e in occurrences(series)}
    assert [pk for pk, state in states.items() if state == CALLED_OFF] == chosen
    assert fresh(series).exdate_instants == {monday(2), monday(5)}


def test_cancel_stale_occurrences_leaves_ids_that_no_longer_drift() -> None:
    series = weekly_series()
    rows = occurrences(series)
    assert cancel_stale_occurrences(series, ids=[rows[0].pk], now=NOW).cancelled == []
    assert occurrences(series)[0].state != CALLED_OFF
    assert fresh(series).exdates == []


def test_cancelled_slot_is_drift_until_its_row_is_cancelled() -> None:
    # cancel_occurrence cancels the row as well, so nothing is left over.
    series = weekly_series()
    cancel_occurrence(series, monday(1), now=NOW)
    assert detect_cadence_drift(series, now=NOW) == []
