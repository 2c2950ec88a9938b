"""The services on the dojo: text keys without a default, an IntegerChoices status."""

from __future__ import annotations

import datetime as dt

import pytest

from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.from_event import create_series_from_event
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.splits import plan_split, split_series
from tests.dojo.conftest import MakeSeries, next_weekday, template_of, trainings
from tests.hosts.dojo.models import Training

pytestmark = pytest.mark.django_db

Status = Training.Status


def test_a_series_gets_the_hosts_own_key_on_its_template_and_every_occurrence(
    make_series: MakeSeries,
) -> None:
    series = make_series(generation_window_weeks=4)

    template = template_of(series)
    rows = trainings(series)
    assert template.slug.startswith("karate-anfanger-serie-")
    assert len(rows) == 4
    assert [row.slug for row in rows] == [
        f"karate-anfanger-{series.pk}-{row.begins_at.astimezone(dt.UTC):%Y%m%d-%H%M}"
        for row in rows
    ]
    assert {row.status for row in rows} == {Status.BUCHBAR}
    assert template.status == Status.ENTWURF
    # The length of a training is copied; there is no end field.
    assert {row.duration for row in rows} == {dt.timedelta(minutes=90)}


def test_the_next_window_is_generated_with_fresh_keys(make_series: MakeSeries) -> None:
    series = make_series(generation_window_weeks=2)
    first = trainings(series)
    later = first[-1].begins_at + dt.timedelta(weeks=3)

    created = generate_series_events(series, now=later - dt.timedelta(weeks=2))

    assert created
    keys = [row.slug for row in trainings(series)]
    assert len(keys) == len(set(keys)) == len(first) + len(created)


def test_cancel_twice_then_restore_brings_the_date_back_with_its_integer_status(
    make_series: MakeSeries,
) -> None:
    series = make_series()
    row = trainings(series)[1]
    instant = row.begins_at

    cancel_occurrence(series, instant)
    cancel_occurrence(series, instant)
    row.refresh_from_db()
    assert row.status == Status.ABGESAGT
    assert row.status_before_cancellation == "1"

    restored = restore_occurrence(series, instant)

    # Read back through the field's to_python: an int before it is ever saved, so
    # receivers of occurrence_restored see the host's own type too.
    assert restored is not None
    assert type(restored.status) is int
    row.refresh_from_db()
    assert row.status == Status.BUCHBAR
    assert row.status_before_cancellation == ""


def test_a_draft_date_cancelled_and_restored_is_a_draft_again(make_series: MakeSeries) -> None:
    series = make_series(auto_publish=False)
    row = trainings(series)[0]

    cancel_occurrence(series, row.begins_at)
    restore_occurrence(series, row.begins_at)

    row.refresh_from_db()
    assert row.status == Status.ENTWURF


def test_a_split_gives_the_continuation_the_key_its_template_copy_chose(
    make_series: MakeSeries,
) -> None:
    series = make_series(generation_window_weeks=6)
    rows = trainings(series)
    at = rules.to_utc(rows[3].begins_at)
    # Tuesdays and Thursdays: the Tuesdays stay on the rule, the Thursdays are new
    # (Thursdays alone would move the Tuesdays, creating nothing).
    plan = plan_split(
        series,
        at=at,
        recurrence={"weekdays": [1, 3]},
        template={"mat": "Matte 2"},
        name="Karate Donnerstag",
    )

    result = split_series(
        series,
        at=at,
        recurrence={"weekdays": [1, 3]},
        template={"mat": "Matte 2"},
        plan_hash=plan.hash,
        name="Karate Donnerstag",
    )

    new_template = template_of(result.continuation)
    assert new_template.slug.startswith(f"karate-anfanger-ab-{at:%Y%m%d}-")
    assert new_template.mat == "Matte 2"
    # Tuesdays and Thursdays: the Tuesdays go across with their keys, the Thursdays are
    # new and carry the continuation's id.
    assert Training.objects.get(pk=rows[3].slug).series_id == result.continuation.pk
    assert result.created
    assert all(f"-{result.continuation.pk}-" in row.slug for row in result.created)
    assert template_of(series).slug != new_template.slug


def test_an_event_adopted_into_a_new_series_keeps_its_key(db: object) -> None:
    start = next_weekday(4)
    event = Training.objects.create(
        slug="offenes-training-freitag",
        title="Offenes Training",
        begins_at=start,
        duration=dt.timedelta(hours=2),
        status=Status.BUCHBAR,
    )
    rule = {
        "frequency": "WEEKLY",
        "weekdays": [4],
        "dtstart": start,
        "timezone": "Europe/Berlin",
        "count": 3,
    }

    result = create_series_from_event(event, rule_data=rule, name="Offenes Training")

    assert result.adopted is not None
    assert result.adopted.pk == "offenes-training-freitag"
    template = template_of(result.series)
    assert template.slug.startswith("offenes-training-ab-")
    assert template.duration == dt.timedelta(hours=2)
    keys = {row.slug for row in trainings(result.series)}
    assert len(keys) == 3
    assert "offenes-training-freitag" in keys
    assert EventSeries.objects.count() == 1
