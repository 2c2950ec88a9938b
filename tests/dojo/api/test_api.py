"""The API on the dojo: readable text keys, an integer status kept an integer, in German."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from tests.dojo.conftest import API, MakeSeries, next_weekday, template_of, trainings, utc_text
from tests.hosts.dojo.models import Training

pytestmark = pytest.mark.django_db

Status = Training.Status


def test_a_series_created_over_the_api_gets_the_hosts_keys(api: APIClient) -> None:
    start = next_weekday(2)
    body = {
        "name": "Judo Kinder",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": start.isoformat(),
            "timezone": "Europe/Berlin",
            "count": 4,
        },
        "template": {"title": "Judo Kinder", "mat": "Matte 2", "duration": "01:15:00"},
        "auto_publish": True,
    }

    created = api.post(API, body, format="json")

    assert created.status_code == 201, created.json()
    series = EventSeries.objects.get(pk=created.json()["id"])
    template = template_of(series)
    assert template.slug.startswith("judo-kinder-serie-")
    assert template.duration == dt.timedelta(minutes=75)
    assert created.json()["template"]["id"] == template.slug
    # The template's status is the field's own integer, not its text.
    assert created.json()["template"]["status"] == 0
    assert created.json()["occurrence_counts"]["by_status"] == {"1": 4}
    assert len({row.slug for row in trainings(series)}) == 4


def test_a_key_sent_by_the_client_is_refused(api: APIClient) -> None:
    start = next_weekday(2)
    body = {
        "name": "Judo",
        "recurrence": {"frequency": "WEEKLY", "dtstart": start.isoformat(), "count": 2},
        "template": {"slug": "meins", "title": "Judo"},
    }

    response = api.post(API, body, format="json")

    assert response.status_code == 400, response.json()
    assert "slug" in response.json()["template"]
    assert not Training.objects.filter(pk="meins").exists()


def test_occurrence_rows_carry_text_ids_and_integer_statuses(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    expected = [row.slug for row in trainings(series)]

    response = api.get(f"{API}{series.pk}/occurrences/")

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [row["id"] for row in rows] == expected
    assert {row["status"] for row in rows} == {1}
    assert {row["cancelled"] for row in rows} == {False}
    # No end field: the end is the start plus the training's duration.
    assert [row["end"] for row in rows] == [
        utc_text(row.begins_at + dt.timedelta(minutes=90)) for row in trainings(series)
    ]


def test_status_filters_take_the_integer_and_refuse_what_the_field_cannot_hold(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    rows = trainings(series)
    cancelled_first = api.post(
        f"{API}{series.pk}/cancel-occurrence/",
        {"occurrence": utc_text(rows[0].begins_at)},
        format="json",
    )
    assert cancelled_first.status_code == 200, cancelled_first.json()
    url = f"{API}{series.pk}/occurrences/"

    cancelled = api.get(url, {"status": "2"})
    bookable = api.get(url, {"status": 1})
    drafts = api.get(url, {"status": 0})
    refused = api.get(url, {"status": "published"})

    assert [row["id"] for row in cancelled.json()["results"]] == [rows[0].slug]
    assert [row["cancelled"] for row in cancelled.json()["results"]] == [True]
    assert len(bookable.json()["results"]) == len(rows) - 1
    assert drafts.json()["results"] == []
    assert refused.status_code == 400
    message = refused.json()["status"][0]
    assert "published" in message
    assert "0 (Entwurf), 1 (Buchbar), 2 (Abgesagt)" in message


def test_cancelling_twice_over_the_api_then_restoring_brings_the_date_back(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series()
    row = trainings(series)[2]
    slot = {"occurrence": utc_text(row.begins_at)}

    first = api.post(f"{API}{series.pk}/cancel-occurrence/", slot, format="json")
    second = api.post(f"{API}{series.pk}/cancel-occurrence/", slot, format="json")
    restored = api.post(f"{API}{series.pk}/restore-occurrence/", slot, format="json")

    assert first.status_code == second.status_code == 200, second.json()
    assert second.json()["occurrence"]["status"] == 2
    assert second.json()["occurrence"]["cancelled"] is True
    assert restored.status_code == 200, restored.json()
    assert restored.json()["occurrence"]["status"] == 1
    assert restored.json()["occurrence"]["cancelled"] is False
    row.refresh_from_db()
    assert row.status == Status.BUCHBAR


def test_a_split_over_the_api_keeps_the_continuations_own_key(
    api: APIClient, make_series: MakeSeries
) -> None:
    series = make_series(generation_window_weeks=6)
    rows = trainings(series)
    body = {"at": utc_text(rows[2].begins_at), "template": {"mat": "Matte 3"}}

    plan = api.post(f"{API}{series.pk}/split-plan/", body, format="json")
    assert plan.status_code == 200, plan.json()
    assert {row["status"] for row in plan.json()["stay"]} == {1}
    split = api.post(
        f"{API}{series.pk}/split/", {**body, "plan_hash": plan.json()["hash"]}, format="json"
    )

    assert split.status_code == 201, split.json()
    continuation = EventSeries.objects.get(split_from=series)
    assert template_of(continuation).slug.startswith("karate-anfanger-ab-")
    assert Training.objects.get(pk=rows[2].slug).series_id == continuation.pk
