"""Reverting on the third host: text keys without default, integer statuses, a duration."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.exceptions import RevertRefusedError
from revel_recurring.models import DeletedSeries, EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.recurrence import update_series_recurrence
from revel_recurring.services.revert import apply_revert, plan_revert
from revel_recurring.services.splits import plan_split, split_series
from tests.dojo.conftest import API, MakeSeries, trainings
from tests.support.revert import everything, last_operation, rows_of, rule_of, schedule_of

pytestmark = pytest.mark.django_db
THURSDAYS = {"weekdays": [3]}


def test_reverting_a_plan_a_split_and_a_cancel_stale(make_series: MakeSeries) -> None:
    series = make_series()
    rows, rule, schedule = rows_of(series), rule_of(series), schedule_of(series)

    plan = plan_recurrence_change(series, THURSDAYS)
    apply_recurrence_plan(series, plan.hash, THURSDAYS, cancel_drift="all", notify="none")
    operation = last_operation(series, "plan")
    apply_revert(operation, plan_hash=plan_revert(operation).hash, notify="none")
    assert (rows_of(series), rule_of(series), schedule_of(series)) == (rows, rule, schedule)

    at = rules.to_utc(trainings(series)[2].begins_at)
    split = plan_split(series, at=at, recurrence=THURSDAYS, notify="none")
    result = split_series(series, at=at, recurrence=THURSDAYS, plan_hash=split.hash, notify="none")
    operation = last_operation(series, "split")
    apply_revert(operation, plan_hash=plan_revert(operation).hash, notify="none")
    assert (rows_of(series), rule_of(series), schedule_of(series)) == (rows, rule, schedule)
    assert not EventSeries.objects.filter(pk=result.continuation.pk).exists()
    assert DeletedSeries.latest(series_pk=result.continuation.pk) is not None

    ended = {"until": rules.to_utc(trainings(series)[1].begins_at)}
    update_series_recurrence(series, rule_changes=ended)
    rows = rows_of(series)
    cancel_stale_occurrences(series, notify="none")
    operation = last_operation(series, "cancel_stale")
    apply_revert(operation, plan_hash=plan_revert(operation).hash, notify="none")
    assert rows_of(series) == rows


def test_a_later_operation_refuses_the_revert_in_german(
    make_series: MakeSeries, api: APIClient
) -> None:
    series = make_series()
    plan = plan_recurrence_change(series, THURSDAYS)
    apply_recurrence_plan(series, plan.hash, THURSDAYS, cancel_drift="all", notify="none")
    operation = last_operation(series, "plan")
    seen = plan_revert(operation)
    cancel_occurrence(series, trainings(series)[-1].recurrence_id, notify="none")
    before = everything()

    with pytest.raises(RevertRefusedError):
        apply_revert(operation, plan_hash=seen.hash)
    answer = api.post(
        f"{API}{series.pk}/operations/{operation.pk}/revert/",
        {"plan_hash": seen.hash},
        format="json",
    )

    assert answer.status_code == 400
    assert list(answer.json()) == ["operation"]
    assert everything() == before
