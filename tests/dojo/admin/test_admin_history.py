"""The History on the dojo: text-keyed trainings, the page in German."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.dojo.admin.test_admin import admin
from tests.dojo.conftest import MakeSeries, trainings
from tests.support.history import record_operation

__all__ = ["admin"]  # the fixture, used by name

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


def test_the_history_pages_name_the_text_keyed_trainings(
    admin: Client, make_series: MakeSeries
) -> None:
    series = make_series()
    rows = trainings(series)[:3]
    operation = record_operation(
        series, kind="plan", rows=3, change="moved", occurrence_pks=[t.pk for t in rows]
    )

    history = admin.get(f"{CHANGELIST}{series.pk}/history/")
    page = admin.get(f"{CHANGELIST}{series.pk}/history/{operation.pk}/")

    assert history.status_code == page.status_code == 200
    assert history["Content-Language"] == "de"
    entries = history.context["operations"]
    assert [entry.operation.kind for entry in entries] == ["plan", "create"]
    assert entries[0].operation == operation
    assert [v.row.occurrence_pk for v in page.context["rows"]] == [str(t.pk) for t in rows]
    assert all(view.moved for view in page.context["rows"])
