"""The series actions: pause, resume, generate, drift, cancel-stale, cancel/restore,
template, occurrences (with tombstones) and preview."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from example_project.events.models import Event
from example_project.tests.api.conftest import (
    VIENNA,
    ClientFor,
    World,
    make_series,
    occurrences_of,
    stamp,
    tomorrow_evening,
    url,
)
from revel_recurring.models import EventSeries
from tests.support.drift import ended_before_its_dates

pytestmark = pytest.mark.django_db


def test_pause_and_resume_toggle_generation_and_are_idempotent(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    for _ in range(2):
        response = client.post(url(series, "pause"))
        assert response.status_code == 200
        assert response.json()["is_active"] is False
    assert not EventSeries.objects.get(pk=series.pk).is_active
    # A paused series is refused with the reason the admin's Generate now shows.
    generated = client.post(url(series, "generate"), {}, format="json")
    assert generated.status_code == 409
    assert generated.json()["detail"] == (
        f"{series.name} is paused, so nothing was generated. Resume it first."
    )
    for _ in range(2):
        response = client.post(url(series, "resume"))
        assert response.status_code == 200
        assert response.json()["is_active"] is True


def test_generate_materializes_up_to_until_and_returns_what_it_created(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    before = len(occurrences_of(series))
    until = timezone.now() + dt.timedelta(weeks=12)
    response = client.post(url(series, "generate"), {"until": until.isoformat()}, format="json")
    assert response.status_code == 200, response.json()
    created = response.json()["created"]
    assert len(created) in (3, 4, 5)
    assert len(occurrences_of(series)) == before + len(created)
    assert all(row["status"] == "open" and not row["deleted"] for row in created)
    assert response.json()["series"]["occurrence_counts"]["total"] == before + len(created)
    again = client.post(url(series, "generate"), {"until": until.isoformat()}, format="json")
    assert again.json()["created"] == []


def test_generate_with_an_until_before_the_cursor_is_a_no_op(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    client.post(
        url(series, "generate"),
        {"until": (timezone.now() + dt.timedelta(weeks=12)).isoformat()},
        format="json",
    )
    cursor = EventSeries.objects.get(pk=series.pk).last_generated_until
    before = len(occurrences_of(series))
    for until in ("2020-02-01T00:00:00Z", (timezone.now() + dt.timedelta(weeks=2)).isoformat()):
        response = client.post(url(series, "generate"), {"until": until}, format="json")
        assert response.status_code == 200, response.json()
        assert response.json()["created"] == []
        assert response.json()["series"]["last_generated_until"].startswith(stamp(cursor)[:-1])
    assert EventSeries.objects.get(pk=series.pk).last_generated_until == cursor
    assert len(occurrences_of(series)) == before


@pytest.mark.parametrize(
    "until",
    [
        "2099-01-01T00:00:00Z",
        "2027-01-01T00:00:00",
        "soon",
        12,
    ],
)
def test_generate_refuses_a_bad_until_by_name(
    world: World, client_for: ClientFor, until: Any
) -> None:
    before = len(occurrences_of(world.a.series))
    response = client_for(world.a.owner).post(
        url(world.a.series, "generate"), {"until": until}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()) == ["until"]
    assert len(occurrences_of(world.a.series)) == before


def test_drift_lists_and_cancel_stale_cancels_only_what_still_drifts(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    old = occurrences_of(series)
    assert client.get(url(series, "drift")).json() == {
        "count": 0,
        "occurrences": [],
        "enrolled": {},
    }
    # The rule ends before its dates: all drift, none can move (a weekday would move them).
    ended = ended_before_its_dates(series)
    body = {"recurrence": {"dtstart": ended["dtstart"].isoformat(), "count": 1}}
    client.patch(url(series), body, format="json")
    drift = client.get(url(series, "drift")).json()
    assert drift["count"] == len(old)
    assert [row["id"] for row in drift["occurrences"]] == [e.pk for e in old]
    assert all(row["drifted"] for row in drift["occurrences"])
    # An occurrence moved by hand on purpose no longer counts as drift.
    moved = old[1]
    moved.start += dt.timedelta(hours=1)
    moved.end += dt.timedelta(hours=1)
    moved.save()
    response = client.post(
        url(series, "cancel-stale"), {"ids": [old[0].pk, moved.pk]}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["cancelled"] == [old[0].pk]
    assert Event.objects.get(pk=moved.pk).status == Event.Status.OPEN
    rest = client.post(url(series, "cancel-stale"), {}, format="json").json()["cancelled"]
    assert rest == [e.pk for e in old[2:]]
    for bad in ({"ids": "all"}, {"ids": [0]}, {"ids": list(range(1, 1100))}, {"only": [1]}):
        assert client.post(url(series, "cancel-stale"), bad, format="json").status_code == 400


def test_cancel_and_restore_an_occurrence(world: World, client_for: ClientFor) -> None:
    client, series = client_for(world.a.owner), world.a.series
    first = occurrences_of(series)[0]
    body = {"occurrence": first.start.astimezone(VIENNA).isoformat()}
    response = client.post(url(series, "cancel-occurrence"), body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["occurrence"]["id"] == first.pk
    assert response.json()["occurrence"]["cancelled"] is True
    assert response.json()["series"]["exdates"] == [stamp(first.start)]
    assert Event.objects.get(pk=first.pk).status == Event.Status.CANCELLED
    again = client.post(url(series, "cancel-occurrence"), body, format="json")
    assert again.status_code == 200
    restored = client.post(url(series, "restore-occurrence"), body, format="json")
    assert restored.status_code == 200
    assert restored.json()["occurrence"]["status"] == "open"
    assert restored.json()["series"]["exdates"] == []
    not_cancelled = client.post(url(series, "restore-occurrence"), body, format="json")
    assert not_cancelled.status_code == 409


def test_cancelling_a_slot_not_materialized_yet_returns_no_occurrence(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    last = occurrences_of(series)[-1]
    beyond = last.start + dt.timedelta(weeks=1)
    response = client.post(
        url(series, "cancel-occurrence"), {"occurrence": beyond.isoformat()}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["occurrence"] is None
    assert stamp(beyond) in response.json()["series"]["exdates"]


@pytest.mark.parametrize(
    "body",
    [
        {"occurrence": "2026-12-25T03:07:00Z"},
        {"occurrence": "2026-12-25T03:07:00"},
        {"occurrence": None},
        {},
        {"occurrence": "2026-12-25T03:07:00Z", "reason": "rain"},
    ],
)
@pytest.mark.parametrize("action", ["cancel-occurrence", "restore-occurrence"])
def test_cancel_and_restore_refuse_what_is_not_an_occurrence(
    world: World, client_for: ClientFor, body: dict[str, Any], action: str
) -> None:
    series = world.a.series
    response = client_for(world.a.owner).post(url(series, action), body, format="json")
    assert response.status_code == 400
    assert set(response.json()) <= {"occurrence", "reason"}
    assert EventSeries.objects.get(pk=series.pk).exdates == []


def test_template_get_and_patch_with_propagation(world: World, client_for: ClientFor) -> None:
    client, series = client_for(world.a.owner), world.a.series
    response = client.get(url(series, "template"))
    assert response.status_code == 200
    assert response.json()["capacity"] == 20
    assert response.json()["status"] == "draft"
    occurrences = occurrences_of(series)
    edited = occurrences[0]
    edited.capacity = 5
    edited.save()
    response = client.patch(
        url(series, "template") + "?propagate=future_unmodified", {"capacity": 30}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["template"]["capacity"] == 30
    assert response.json()["updated_occurrences"] == len(occurrences) - 1
    assert Event.objects.get(pk=edited.pk).capacity == 5
    response = client.patch(
        url(series, "template") + "?propagate=all_future", {"capacity": 31}, format="json"
    )
    assert response.json()["updated_occurrences"] == len(occurrences)
    response = client.patch(url(series, "template"), {"slug": "alpha-run-2"}, format="json")
    assert response.status_code == 200
    assert response.json()["updated_occurrences"] == 0
    assert series.get_template().slug == "alpha-run-2"


@pytest.mark.parametrize(
    ("query", "body", "key"),
    [
        ("?propagate=everything", {"capacity": 3}, "propagate"),
        ("?propagate=all_future", {"start": "2027-01-05T10:00:00Z"}, "start"),
        ("?propagate=all_future", {"slug": "x"}, "slug"),
        ("", {"status": "open"}, "status"),
        ("", {"series": 3}, "series"),
        ("", {"is_modified": True}, "is_modified"),
        ("", {"venue": "Hall"}, "venue"),
        ("", {"capacity": "lots"}, "capacity"),
        ("", {"end": "2000-01-01T00:00:00Z"}, "end"),
        ("", {"rsvp_before": "2027-01-01T10:00"}, "rsvp_before"),
    ],
)
def test_bad_template_patches_are_a_400_naming_the_field(
    world: World, client_for: ClientFor, query: str, body: dict[str, Any], key: str
) -> None:
    series = world.a.series
    before = series.get_template()
    response = client_for(world.a.owner).patch(url(series, "template") + query, body, format="json")
    assert response.status_code == 400, response.json()
    assert key in response.json()
    after = series.get_template()
    assert (after.capacity, after.slug, after.status) == (
        before.capacity,
        before.slug,
        before.status,
    )


def test_template_patch_cannot_move_a_series_to_an_organisation_the_user_does_not_run(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    response = client_for(world.a.staff).patch(
        url(series, "template"), {"organization": world.b.organization.pk}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()) == ["organization"]
    assert series.get_template().organization == world.a.organization


def test_detail_routes_ignore_the_series_list_filters(world: World, client_for: ClientFor) -> None:
    client, series = client_for(world.a.owner), world.a.series
    rows = occurrences_of(series)
    listed = client.get(url(series, "occurrences") + "?search=zzz&ordering=-name&is_active=false")
    assert listed.status_code == 200, listed.json()
    assert [row["id"] for row in listed.json()["results"]] == [e.pk for e in rows]
    for suffix in ("", "drift/", "preview/", "template/"):
        response = client.get(url(series) + suffix + "?search=zzz&auto_publish=false")
        assert response.status_code == 200, suffix
    patched = client.patch(url(series) + "?is_active=false", {"name": "Renamed"}, format="json")
    assert patched.status_code == 200, patched.json()
    assert EventSeries.objects.get(pk=series.pk).name == "Renamed"
    # The list still filters.
    assert client.get(url(series).rsplit("/", 2)[0] + "/?search=zzz").json()["results"] == []


def test_occurrences_filters(world: World, client_for: ClientFor) -> None:
    client, series = client_for(world.a.owner), world.a.series
    rows = occurrences_of(series)
    client.post(
        url(series, "cancel-occurrence"), {"occurrence": rows[1].start.isoformat()}, format="json"
    )
    edited = Event.objects.get(pk=rows[2].pk)
    edited.capacity = 3
    edited.save()

    def ids(query: str) -> list[int]:
        response = client.get(url(series, "occurrences") + query)
        assert response.status_code == 200, response.json()
        return [row["id"] for row in response.json()["results"]]

    assert ids("") == [e.pk for e in rows]
    assert ids("?status=cancelled") == [rows[1].pk]
    assert ids("?is_modified=true") == [rows[2].pk]
    after = rows[2].start.isoformat()
    assert ids(f"?date_from_after={after.replace('+', '%2B')}") == [e.pk for e in rows[2:]]
    before = stamp(rows[2].start)
    assert ids(f"?date_from_before={before}") == [rows[0].pk, rows[1].pk]
    assert ids("?is_future=true") == [e.pk for e in rows]
    assert ids("?is_future=false") == []
    page = client.get(url(series, "occurrences") + "?page_size=2&page=2").json()
    assert [row["id"] for row in page["results"]] == [rows[2].pk, rows[3].pk]
    row = client.get(url(series, "occurrences")).json()["results"][0]
    assert row == {
        "id": rows[0].pk,
        "recurrence_id": stamp(rows[0].start),
        "occurrence_index": 1,
        "start": stamp(rows[0].start),
        "end": stamp(rows[0].end),
        "status": "open",
        "is_modified": False,
        "drifted": False,
        "cancelled": False,
        "deleted": False,
        "has_bookings": False,
        "moved_to": None,
        "holiday": "",
        "shifted_from": None,
        "rescheduled_from": None,
        "materialized": True,
    }
    for bad in (
        "?date_from_after=2027-01-01T00:00:00",
        "?modified_since=yesterday",
        "?is_modified=perhaps",
        "?page=0",
    ):
        assert client.get(url(series, "occurrences") + bad).status_code in (400, 404), bad


def test_modified_since_reports_changes_and_tombstones_of_removals(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    rows = occurrences_of(series)
    since = stamp(timezone.now() - dt.timedelta(seconds=1))
    # Every row was generated just now: all are reported.
    everything = client.get(url(series, "occurrences") + f"?modified_since={since}").json()
    assert [row["id"] for row in everything["results"]] == [e.pk for e in rows]

    # Pretend they were generated five minutes ago, and sync from one minute ago.
    now = timezone.now()
    Event.objects.filter(series=series).update(updated_at=now - dt.timedelta(minutes=5))
    mark = stamp(now - dt.timedelta(minutes=1))
    cancelled, deleted, edited, restored = rows[0], rows[1], rows[2], rows[3]
    cancel = {"occurrence": cancelled.start.isoformat()}
    assert client.post(url(series, "cancel-occurrence"), cancel, format="json").status_code == 200
    slot = {"occurrence": restored.start.isoformat()}
    client.post(url(series, "cancel-occurrence"), slot, format="json")
    client.post(url(series, "restore-occurrence"), slot, format="json")
    Event.objects.get(pk=deleted.pk).delete()
    fresh = Event.objects.get(pk=edited.pk)
    fresh.capacity = 2
    fresh.save()

    response = client.get(url(series, "occurrences") + f"?modified_since={mark}")
    assert response.status_code == 200
    results = {row["id"]: row for row in response.json()["results"]}
    assert set(results) == {cancelled.pk, deleted.pk, edited.pk, restored.pk}
    assert results[cancelled.pk]["cancelled"] is True
    assert results[cancelled.pk]["deleted"] is False
    assert results[deleted.pk] == {
        "id": deleted.pk,
        "recurrence_id": stamp(deleted.recurrence_id),
        "occurrence_index": deleted.occurrence_index,
        "start": None,
        "end": None,
        "status": None,
        "is_modified": False,
        "drifted": False,
        "cancelled": True,
        "deleted": True,
        "has_bookings": False,
        "moved_to": None,
        "holiday": "",
        "shifted_from": None,
        "rescheduled_from": None,
        "materialized": True,
    }
    assert results[restored.pk]["cancelled"] is False
    # A client syncing open occurrences still hears of the cancellation and the deletion.
    open_only = client.get(url(series, "occurrences") + f"?modified_since={mark}&status=open")
    assert {row["id"] for row in open_only.json()["results"]} == {
        cancelled.pk,
        deleted.pk,
        edited.pk,
        restored.pk,
    }
    before_deleted = stamp(deleted.start)
    early = client.get(
        url(series, "occurrences") + f"?modified_since={mark}&date_from_before={before_deleted}"
    )
    assert [row["id"] for row in early.json()["results"]] == [cancelled.pk]


def test_preview_marks_each_slot_and_writes_nothing(world: World, client_for: ClientFor) -> None:
    client, series = client_for(world.a.owner), world.a.series
    rows = occurrences_of(series)
    client.post(
        url(series, "cancel-occurrence"), {"occurrence": rows[0].start.isoformat()}, format="json"
    )
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url(series, "preview") + f"?count={len(rows) + 2}")
    assert response.status_code == 200
    assert not [q for q in queries if not q["sql"].lstrip().upper().startswith("SELECT")]
    body = response.json()
    assert body["timezone"] == "Europe/Vienna"
    assert body["count"] == len(rows) + 2
    states = [slot["state"] for slot in body["slots"]]
    assert states == ["excluded"] + ["materialized"] * (len(rows) - 1) + ["pending"] * 2
    first = body["slots"][0]
    assert first["start"] == stamp(rows[0].start)
    assert first["local_start"] == rows[0].start.astimezone(VIENNA).isoformat()


@pytest.mark.parametrize(("query", "expected"), [("", 10), ("?count=500", 100), ("?count=1", 1)])
def test_preview_count_defaults_to_10_and_is_capped_at_100(
    world: World, client_for: ClientFor, query: str, expected: int
) -> None:
    response = client_for(world.a.owner).get(url(world.a.series, "preview") + query)
    assert response.status_code == 200
    assert response.json()["count"] == expected


@pytest.mark.parametrize("query", ["?count=0", "?count=-3", "?count=many", "?count=1.5"])
def test_preview_refuses_a_bad_count(world: World, client_for: ClientFor, query: str) -> None:
    response = client_for(world.a.owner).get(url(world.a.series, "preview") + query)
    assert response.status_code == 400
    assert list(response.json()) == ["count"]


def test_preview_of_a_finished_rule_is_empty(world: World, client_for: ClientFor) -> None:
    start = tomorrow_evening()
    series = make_series(world.a.organization, name="Once", rule={"count": 1}, dtstart=start)
    body = client_for(world.a.owner).get(url(series, "preview") + "?count=5").json()
    assert [slot["state"] for slot in body["slots"]] == ["materialized"]


def test_a_series_without_rule_or_template_answers_with_409_and_404(
    django_user_model: Any, client_for: ClientFor
) -> None:
    # Only the admin can make such a series; the API must still answer sensibly.
    root = django_user_model.objects.create_superuser(username="root")
    bare = EventSeries.objects.create(name="Bare")
    client = client_for(root)
    assert client.get(url(bare)).json()["recurrence"] is None
    patched = client.patch(url(bare), {"recurrence": {"interval": 2}}, format="json")
    assert patched.status_code == 409
    assert client.get(url(bare, "template")).status_code == 404
    generated = client.post(url(bare, "generate"), {}, format="json")
    assert generated.status_code == 409
    assert generated.json()["detail"] == "Bare has no recurrence rule, so nothing can be generated."
    assert client.get(url(bare, "preview")).json() == {"timezone": None, "count": 0, "slots": []}
    cancel = client.post(
        url(bare, "cancel-occurrence"), {"occurrence": "2027-01-01T10:00:00Z"}, format="json"
    )
    assert cancel.status_code == 400
    assert list(cancel.json()) == ["occurrence"]


def test_a_template_sent_back_whole_changes_only_what_was_edited(
    world: World, client_for: ClientFor
) -> None:
    client, series = client_for(world.a.owner), world.a.series
    template = client.get(url(series, "template")).json()
    template["capacity"] = 40
    response = client.patch(url(series, "template"), template, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["template"]["capacity"] == 40
    template = response.json()["template"]
    template["status"] = "open"
    refused = client.patch(url(series, "template"), template, format="json")
    assert refused.status_code == 400
    assert list(refused.json()) == ["status"]
