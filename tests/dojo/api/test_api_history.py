"""The history on the dojo: text event keys in the rows, German words for the kinds."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.dojo.conftest import API, MakeSeries, trainings
from tests.support.history import record_operation

pytestmark = pytest.mark.django_db


def test_the_history_names_the_text_keyed_trainings(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    rows = trainings(series)[:2]
    operation = record_operation(
        series, kind="plan", rows=2, change="moved", occurrence_pks=[t.pk for t in rows]
    )

    listed = api.get(f"{API}{series.pk}/operations/", {"kind": "plan"}).json()["results"]
    detail = api.get(f"{API}{series.pk}/operations/{operation.pk}/").json()
    shown = api.get(f"{API}{series.pk}/operations/{operation.pk}/rows/").json()["results"]

    assert [row["id"] for row in listed] == [str(operation.pk)]
    assert detail["counts"] == {"moved": 2}
    assert [row["occurrence_id"] for row in shown] == [str(t.pk) for t in rows]
    assert APIClient().get(f"{API}{series.pk}/operations/").status_code in (401, 403)
