"""A series' history in the API: ``operations/``, one operation, and its rows page by page."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import OccurrenceChange, SeriesOperation
from tests.support.api import client, user_with
from tests.support.factories import make_series, occurrences
from tests.support.history import DAY, LATER, record_operation

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"


@pytest.fixture
def viewer(django_user_model: Any) -> APIClient:
    return client(user_with(django_user_model, "viewer", "view_eventseries"))


def test_operations_are_listed_newest_first_with_those_naming_the_series(viewer: APIClient) -> None:
    series = make_series(name="Yoga")
    other = make_series(name="Pilates")
    now = timezone.now()
    first = record_operation(series, kind="plan", rows=2, created_at=now - 3 * DAY)
    # A split of another series that continued into this one, and a daily chunk naming it.
    split = record_operation(other, kind="split", rows=1, also=(series,), created_at=now - DAY)
    chunk = record_operation(None, kind="daily", face="task", also=(series, other), created_at=now)
    record_operation(other, kind="cancel", rows=1, created_at=now)

    answer = viewer.get(f"{API}{series.pk}/operations/")

    assert answer.status_code == 200, answer.json()
    results = answer.json()["results"]
    assert [row["id"] for row in results] == [str(chunk.pk), str(split.pk), str(first.pk)]
    top = results[2]
    assert (top["kind"], top["kind_label"], top["actor_name"], top["face"]) == (
        "plan",
        "plan applied",
        "organiser",
        "api",
    )
    assert top["row_count"] == 2
    assert top["url"].endswith(f"{API}{series.pk}/operations/{first.pk}/")
    assert answer.json()["count"] == 3


def test_operations_filter_by_kind_and_since(viewer: APIClient) -> None:
    series = make_series()
    now = timezone.now()
    record_operation(series, kind="plan", created_at=now - 10 * DAY)
    late = record_operation(series, kind="cancel", created_at=now - DAY)
    record_operation(series, kind="plan", created_at=now)

    plans = viewer.get(f"{API}{series.pk}/operations/", {"kind": "plan"}).json()
    since = viewer.get(
        f"{API}{series.pk}/operations/", {"since": (now - 2 * DAY).isoformat()}
    ).json()
    bad = viewer.get(f"{API}{series.pk}/operations/", {"since": "yesterday"})

    assert [row["kind"] for row in plans["results"]] == ["plan", "plan"]
    assert [row["kind"] for row in since["results"]] == ["plan", "cancel"]
    assert since["results"][1]["id"] == str(late.pk)
    assert bad.status_code == 400
    assert list(bad.json()) == ["since"]


def test_an_operation_shows_rule_counts_links_and_its_reverts(viewer: APIClient) -> None:
    series = make_series()
    continuation = make_series(name="Yoga (continued)")
    before = {"rule": {"frequency": "WEEKLY", "weekdays": [0]}}
    after = {"rule": {"frequency": "WEEKLY", "weekdays": [2]}}
    split = record_operation(
        series,
        kind="split",
        rows=4,
        change="moved",
        plan_hash="abc123",
        before=before,
        after=after,
        also=(series, continuation),
    )
    revert = record_operation(series, kind="revert", reverts=split)
    OccurrenceChange.objects.create(
        series=series, occurrence_pk="1000000", kind="rescheduled", operation=split
    )

    detail = viewer.get(f"{API}{series.pk}/operations/{split.pk}/")
    from_the_continuation = viewer.get(f"{API}{continuation.pk}/operations/{split.pk}/")
    reverting = viewer.get(f"{API}{series.pk}/operations/{revert.pk}/").json()

    assert detail.status_code == 200, detail.json()
    body = detail.json()
    assert (body["plan_hash"], body["before"], body["after"]) == ("abc123", before, after)
    assert body["counts"] == {"moved": 4}
    assert [link["series_id"] for link in body["series"]] == [series.pk, continuation.pk]
    assert body["series_count"] == 2
    assert [link["id"] for link in body["reverted_by"]] == [str(revert.pk)]
    assert body["rows"].endswith(f"/operations/{split.pk}/rows/")
    assert body["feed_entries"]["count"] == 1
    assert "modified_since=" in body["feed_entries"]["url"]
    assert from_the_continuation.status_code == 200
    # Asked from the continuation, it comes first.
    assert [link["series_id"] for link in from_the_continuation.json()["series"]] == [
        continuation.pk,
        series.pk,
    ]
    assert reverting["reverts"]["id"] == str(split.pk)
    assert reverting["reverts"]["url"].endswith(f"/operations/{split.pk}/")


def test_an_operation_of_another_series_or_a_bad_id_is_a_404(viewer: APIClient) -> None:
    series = make_series()
    other = make_series(name="Pilates")
    theirs = record_operation(other, kind="cancel")

    assert viewer.get(f"{API}{series.pk}/operations/{theirs.pk}/").status_code == 404
    assert viewer.get(f"{API}{series.pk}/operations/{theirs.pk}/rows/").status_code == 404
    missing = viewer.get(f"{API}{series.pk}/operations/not-a-uuid/")
    assert missing.status_code == 404
    assert missing["Content-Type"].startswith("application/json")


def test_the_history_is_scoped_like_the_series(django_user_model: Any) -> None:
    series = make_series()
    operation = record_operation(series, kind="cancel", rows=1)
    nobody = client(user_with(django_user_model, "nobody"))

    assert nobody.get(f"{API}{series.pk}/operations/").status_code == 404
    assert nobody.get(f"{API}{series.pk}/operations/{operation.pk}/").status_code == 404
    assert nobody.get(f"{API}{series.pk}/operations/{operation.pk}/rows/").status_code == 404
    anonymous = APIClient().get(f"{API}{series.pk}/operations/")
    assert anonymous.status_code in (401, 403)


def test_a_10000_row_record_is_read_page_by_page_in_bounded_queries(viewer: APIClient) -> None:
    series = make_series()
    start = timezone.now().replace(microsecond=0) + DAY
    big = record_operation(series, kind="cancel_stale", rows=10_000, first_slot=start)
    OccurrenceChange.objects.create(
        series=series, occurrence_pk="1009999", kind="cancelled", operation=big
    )
    url = f"{API}{series.pk}/operations/{big.pk}/rows/"
    viewer.get(url)  # the user's permissions, read once per user

    with CaptureQueriesContext(connection) as first:
        page_one = viewer.get(url).json()
    with CaptureQueriesContext(connection) as last:
        page_last = viewer.get(url, {"page": 20, "page_size": 500}).json()

    assert page_one["count"] == 10_000
    assert len(page_one["results"]) == 100
    row = page_one["results"][1]
    assert (row["position"], row["occurrence_id"], row["change"]) == (1, "1000001", "cancelled")
    assert (row["status_before"], row["status_after"], row["booked"]) == ("live", "cancelled", 1)
    assert row["slot_before"] == (start + DAY).astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert row["in_feed"] is False
    assert [r["position"] for r in page_last["results"]] == list(range(9_500, 10_000))
    assert page_last["results"][-1]["in_feed"] is True
    assert page_last["next"] is None
    # The same few statements whatever the page: series, operation, count, rows, feed.
    assert len(first.captured_queries) == len(last.captured_queries) <= 6


def test_the_detail_of_a_10000_row_record_reads_no_row(viewer: APIClient) -> None:
    series = make_series()
    big = record_operation(series, kind="plan", rows=10_000, change="moved")

    viewer.get(f"{API}{series.pk}/operations/")  # the user's permissions, read once
    with CaptureQueriesContext(connection) as read:
        body = viewer.get(f"{API}{series.pk}/operations/{big.pk}/").json()

    assert body["counts"] == {"moved": 10_000}
    assert body["row_count"] == 10_000
    assert len(read.captured_queries) <= 10
    assert LATER  # moved rows start two hours later (tests/support/history.py)


def test_the_list_reads_a_fixed_number_of_queries(viewer: APIClient) -> None:
    series = make_series()
    for _ in range(3):
        record_operation(series, kind="cancel", rows=2)
    viewer.get(f"{API}{series.pk}/operations/")  # the user's permissions, read once
    with CaptureQueriesContext(connection) as few:
        viewer.get(f"{API}{series.pk}/operations/")
    for _ in range(30):
        record_operation(series, kind="cancel", rows=2)
    with CaptureQueriesContext(connection) as many:
        answer = viewer.get(f"{API}{series.pk}/operations/", {"page_size": 50})

    assert len(answer.json()["results"]) == 33
    assert len(many.captured_queries) == len(few.captured_queries)
    assert SeriesOperation.objects.count() == 33


def test_a_cancellation_through_the_api_reads_back_with_its_row_and_feed_entry(
    django_user_model: Any,
) -> None:
    series = make_series(dtstart=timezone.now().replace(microsecond=0) + DAY, auto_publish=True)
    editor = client(user_with(django_user_model, "editor", "change_eventseries"))
    editor.post(f"{API}{series.pk}/generate/", {}, format="json")
    first = occurrences(series)[0]
    cancelled = editor.post(
        f"{API}{series.pk}/cancel-occurrence/",
        {"occurrence": first.starts_at.isoformat()},
        format="json",
    )
    assert cancelled.status_code == 200, cancelled.json()

    listed = editor.get(f"{API}{series.pk}/operations/", {"kind": "cancel"}).json()["results"]
    assert len(listed) == 1
    detail = editor.get(listed[0]["url"]).json()
    rows = editor.get(detail["rows"]).json()["results"]

    assert detail["counts"] == {"cancelled": 1}
    assert (detail["actor_name"], detail["face"], detail["face_label"]) == ("editor", "api", "API")
    assert detail["feed_entries"]["count"] == 1
    assert [(r["occurrence_id"], r["status_before"], r["status_after"]) for r in rows] == [
        (str(first.pk), "live", "cancelled")
    ]
    assert rows[0]["in_feed"] is True
    feed = editor.get(detail["feed_entries"]["url"]).json()["results"]
    assert [row["id"] for row in feed if row["cancelled"]] == [first.pk]
