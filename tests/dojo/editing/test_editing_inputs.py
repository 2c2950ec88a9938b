"""Editing input on the dojo host (text keys, integer statuses, German): the extra-date
limit and a PATCH of the series as read, a date given twice, splits from the last date
backwards."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.validators import EXTRA_DATES_MAX
from tests.dojo.conftest import API, MakeSeries, trainings, utc_text

pytestmark = pytest.mark.django_db


def url(series: EventSeries | int, action: str = "") -> str:
    pk = series if isinstance(series, int) else series.pk
    return f"{API}{pk}/{action + '/' if action else ''}"


def test_a_series_at_the_extra_date_limit_is_patched_back_as_read_and_takes_no_more(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    first = trainings(series)[0].begins_at + dt.timedelta(days=2)
    series.extra_dates = rules.normalize_exdates(
        [first + dt.timedelta(weeks=week) for week in range(EXTRA_DATES_MAX)]
    )
    series.save(update_fields=["extra_dates"])
    read = api.get(url(series)).json()

    back = api.patch(url(series), read, format="json")
    added = api.post(
        url(series, "add-date"), {"instant": utc_text(first + dt.timedelta(days=1))}, format="json"
    )
    twice = api.patch(
        url(series),
        {"recurrence": {"extra_dates": [read["extra_dates"][0], first.isoformat()]}},
        format="json",
    )

    assert len(read["extra_dates"]) == EXTRA_DATES_MAX
    assert back.status_code == 200, back.json()
    assert back.json()["extra_dates"] == read["extra_dates"]
    assert added.status_code == 400, added.json()
    # German, as the dojo speaks: the limit and the date given twice.
    assert f"höchstens {EXTRA_DATES_MAX} zusätzliche Termine" in added.json()["instant"][0]
    assert twice.status_code == 400, twice.json()
    assert "doppelt angegeben" in twice.json()["recurrence"]["extra_dates"][0]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == read["extra_dates"]


def test_split_at_every_training_from_the_last_backwards_keeps_the_text_keys(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(count=5)
    rows = trainings(series)
    assert len(rows) == 5
    for training in reversed(rows[1:]):
        response = api.post(
            url(series, "split"), {"at": utc_text(training.begins_at)}, format="json"
        )
        assert response.status_code == 201, response.json()
        assert response.json()["moved"] == [training.pk]
        assert response.json()["continuation"]["recurrence"]["count"] == 1
    assert EventSeries.objects.filter(split_from__isnull=False).count() == 4
