""" "This and following" over the API on the testapp host: split-plan/, split/, the links."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import client, next_tuesday, user_with
from tests.support.factories import make_series, occurrences

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"
THURSDAYS = {"weekdays": [3]}


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    return client(user_with(django_user_model, "editor", "view_eventseries", "change_eventseries"))


def tuesdays(**options: Any) -> tuple[EventSeries, list[Event]]:
    """Tuesdays 10:00 Vienna for six weeks; the fourth holds 3 seats booked."""
    series = make_series(dtstart=options.pop("dtstart", next_tuesday()), window_weeks=6, **options)
    generate_series_events(series)
    events = occurrences(series)
    Seat.objects.filter(event=events[3]).update(booked=3)
    return series, events


def url(series: EventSeries | int, action: str = "") -> str:
    pk = series if isinstance(series, int) else series.pk
    return f"{API}{pk}/{action + '/' if action else ''}"


def utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_with_nobody_told_plan_then_split_with_the_hash_moves_the_dates_and_answers_both_halves(
    editor: APIClient, settings: Any
) -> None:
    """Nobody told: the booked Tuesday stays, kept and named."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, events = tuesdays()
    body = {
        "at": events[2].starts_at.isoformat(),
        "recurrence": THURSDAYS,
        "template": {"venue": "Hall B", "capacity": 30},
        "name": "Thursday yoga",
    }

    planned = editor.post(url(series, "split-plan"), body, format="json")

    assert planned.status_code == 200, planned.json()
    plan = planned.json()
    assert [row["id"] for row in plan["drift"]] == [event.pk for event in events[2:]]
    assert [row["bookings"] for row in plan["drift"]][:2] == [0, 3]
    assert {dt.datetime.fromisoformat(row["local"]).weekday() for row in plan["new"]} == {3}
    assert plan["description"] == "Every week on Thursday at 10:00 (Europe/Vienna)"
    assert len(plan["hash"]) == 80
    assert not EventSeries.objects.filter(split_from=series).exists()

    response = editor.post(url(series, "split"), {**body, "plan_hash": plan["hash"]}, format="json")

    assert response.status_code == 201, response.json()
    answer = response.json()
    continuation = EventSeries.objects.get(split_from=series)
    assert response["Location"] == f"http://testserver{url(continuation)}"
    assert answer["continuation"]["id"] == continuation.pk
    assert answer["continuation"]["name"] == "Thursday yoga"
    assert answer["continuation"]["url"] == response["Location"]
    assert answer["at"] == utc(events[2].starts_at)
    assert answer["last_before"] == utc(events[1].starts_at)
    assert answer["moved"] == [event.pk for event in events[2:]]
    # The one booked Tuesday that moved is drift of the Thursdays: kept, and named.
    assert [row["id"] for row in answer["kept_booked"]] == [events[3].pk]
    assert answer["kept_booked"][0]["display"].endswith("(Europe/Vienna)")
    assert [row["start"] for row in answer["created"]] == [row["start"] for row in plan["new"]]
    assert answer["original"]["recurrence"]["until"] == utc(events[1].starts_at)
    link = {"id": series.pk, "url": f"http://testserver{url(series)}"}
    assert answer["continuation"]["split_from"] == link
    assert answer["continuation"]["continued_by"] is None
    assert answer["original"]["continued_by"] == {
        "id": continuation.pk,
        "url": answer["continuation"]["url"],
    }
    assert answer["original"]["split_from"] is None
    # The booked Tuesday kept its id and its seats, on the continuation, as drift.
    booked = Event.objects.get(pk=events[3].pk)
    assert booked.series_id == continuation.pk
    assert Seat.objects.get(event=booked).booked == 3
    assert booked.venue == "Studio 2"
    assert {e.venue for e in Event.objects.filter(pk__in=[r["id"] for r in answer["created"]])} == {
        "Hall B"
    }


def test_the_representation_links_both_halves_in_list_and_detail(editor: APIClient) -> None:
    series, events = tuesdays()
    split = editor.post(url(series, "split"), {"at": utc(events[2].starts_at)}, format="json")
    assert split.status_code == 201, split.json()
    continuation = split.json()["continuation"]

    original = editor.get(url(series)).json()
    follower = editor.get(url(continuation["id"])).json()
    listed = {row["id"]: row for row in editor.get(API).json()["results"]}

    assert original["continued_by"] == {"id": continuation["id"], "url": continuation["url"]}
    assert follower["split_from"] == {"id": series.pk, "url": original["url"]}
    assert follower["name"] == series.name
    assert listed[series.pk]["continued_by"] == original["continued_by"]
    assert listed[continuation["id"]]["split_from"] == follower["split_from"]
    assert listed[series.pk]["split_from"] is None
    assert listed[continuation["id"]]["continued_by"] is None


def test_a_date_cancelled_after_the_plan_answers_409_with_the_fresh_plan(
    editor: APIClient,
) -> None:
    series, events = tuesdays()
    body = {"at": utc(events[2].starts_at), "recurrence": THURSDAYS}
    seen = editor.post(url(series, "split-plan"), body, format="json").json()
    cancelled = editor.post(
        url(series, "cancel-occurrence"), {"occurrence": utc(events[4].starts_at)}, format="json"
    )
    assert cancelled.status_code == 200, cancelled.json()

    outdated = editor.post(url(series, "split"), {**body, "plan_hash": seen["hash"]}, format="json")

    assert outdated.status_code == 409, outdated.json()
    answer = outdated.json()
    assert "changed since this split was planned" in answer["detail"]
    fresh = answer["plan"]
    assert fresh["hash"] != seen["hash"]
    again = editor.post(url(series, "split-plan"), body, format="json").json()
    assert (fresh["hash"], fresh["drift"], fresh["new"]) == (
        again["hash"],
        again["drift"],
        again["new"],
    )
    assert not EventSeries.objects.filter(split_from=series).exists()
    assert {event.series_id for event in occurrences(series)} == {series.pk}

    applied = editor.post(url(series, "split"), {**body, "plan_hash": fresh["hash"]}, format="json")

    assert applied.status_code == 201, applied.json()


def test_a_split_that_no_longer_applies_answers_409_with_plan_null(editor: APIClient) -> None:
    series, events = tuesdays()
    body = {"at": utc(events[2].starts_at)}
    seen = editor.post(url(series, "split-plan"), body, format="json").json()
    first = editor.post(url(series, "split"), {**body, "plan_hash": seen["hash"]}, format="json")
    assert first.status_code == 201, first.json()

    again = editor.post(url(series, "split"), {**body, "plan_hash": seen["hash"]}, format="json")

    assert again.status_code == 409, again.json()
    assert again.json()["plan"] is None
    assert "no longer applies" in again.json()["detail"]
    assert "not a date of this series" in again.json()["detail"]
    assert EventSeries.objects.count() == 2


def test_a_split_without_a_hash_of_a_date_no_longer_there_is_a_400_on_at(
    editor: APIClient,
) -> None:
    series, events = tuesdays()
    body = {"at": utc(events[2].starts_at)}
    assert editor.post(url(series, "split"), body, format="json").status_code == 201

    again = editor.post(url(series, "split"), body, format="json")

    assert again.status_code == 400, again.json()
    assert list(again.json()) == ["at"]


@pytest.mark.parametrize("action", ["split-plan", "split"])
@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("not a slot", {"at": "not a date of this series"}),
        ("in the past", {"at": "is in the past"}),
        ("the first date", {"at": "first date"}),
        ("naive", {"at": "no UTC offset"}),
        ("not propagatable", {"template": {"starts_at": "Unknown field"}}),
        ("unknown template field", {"template": {"colour": "Unknown field"}}),
        ("template value", {"template": {"capacity": "greater than or equal to 0"}}),
        ("rule value", {"recurrence": {"interval": "greater than or equal to 1"}}),
        ("dtstart before at", {"recurrence": {"dtstart": "cannot start before the split"}}),
        ("blank name", {"name": "may not be blank"}),
        ("unknown key", {"colour": "Unknown field"}),
    ],
)
def test_bad_split_input_is_a_400_keyed_where_it_was_sent(
    editor: APIClient, action: str, case: str, expected: dict[str, Any]
) -> None:
    # Started three weeks ago: its first dates are past (never generated).
    start = next_tuesday() - dt.timedelta(weeks=3)
    series, events = tuesdays(dtstart=start)
    at = events[1].starts_at
    body: dict[str, Any] = {  # type: ignore[assignment]
        "not a slot": {"at": utc(at + dt.timedelta(hours=1))},
        "in the past": {"at": utc(start + dt.timedelta(weeks=1))},
        "the first date": {"at": utc(start)},
        "naive": {"at": at.replace(tzinfo=None).isoformat()},
        "not propagatable": {"at": utc(at), "template": {"starts_at": utc(at)}},
        "unknown template field": {"at": utc(at), "template": {"colour": "red"}},
        "template value": {"at": utc(at), "template": {"capacity": -1}},
        "rule value": {"at": utc(at), "recurrence": {"interval": 0}},
        "dtstart before at": {
            "at": utc(at),
            "recurrence": {"dtstart": utc(at - dt.timedelta(days=1))},
        },
        "blank name": {"at": utc(at), "name": ""},
        "unknown key": {"at": utc(at), "colour": "red"},
    }[case]
    if case == "the first date":
        # The first date of a series that has not started yet (a past one is "past").
        series, events = tuesdays()
        body = {"at": utc(events[0].starts_at)}
    before = EventSeries.objects.count()

    response = editor.post(url(series, action), body, format="json")

    assert response.status_code == 400, response.json()
    errors = response.json()
    assert _shape(errors) == _shape(expected), errors
    for key, value in expected.items():
        got = errors[key]
        if isinstance(value, dict):
            ((inner, text),) = value.items()
            assert text in " ".join(got[inner]), errors
        else:
            assert value in " ".join(got), errors
    assert EventSeries.objects.count() == before


def _shape(errors: dict[str, Any]) -> dict[str, Any]:
    return {k: sorted(v) if isinstance(v, dict) else None for k, v in errors.items()}


def test_the_change_feed_of_each_half_follows_the_moved_dates(editor: APIClient) -> None:
    series, events = tuesdays()
    since = utc(timezone.now() - dt.timedelta(seconds=1))
    split = editor.post(url(series, "split"), {"at": utc(events[2].starts_at)}, format="json")
    continuation = split.json()["continuation"]["id"]
    moved = [event.pk for event in events[2:]]

    left = editor.get(url(series, "occurrences"), {"modified_since": since}).json()["results"]
    arrived = editor.get(url(continuation, "occurrences"), {"modified_since": since}).json()[
        "results"
    ]

    gone = {row["id"]: row for row in left if row["deleted"]}
    assert sorted(gone) == moved
    assert {row["moved_to"] for row in gone.values()} == {continuation}
    assert {row["recurrence_id"] for row in gone.values()} == {utc(e.starts_at) for e in events[2:]}
    live = {row["id"] for row in arrived if not row["deleted"]}
    assert set(moved) <= live
    assert not [row for row in arrived if row["deleted"]]


def test_a_viewer_gets_403_and_a_stranger_404_and_nothing_is_written(
    django_user_model: Any,
) -> None:
    series, events = tuesdays()
    viewer = client(user_with(django_user_model, "viewer", "view_eventseries"))
    stranger = client(user_with(django_user_model, "stranger"))
    body = {"at": utc(events[2].starts_at)}
    for action in ("split-plan", "split"):
        assert viewer.post(url(series, action), body, format="json").status_code == 403
        assert stranger.post(url(series, action), body, format="json").status_code == 404
    assert EventSeries.objects.count() == 1
    assert {event.series_id for event in occurrences(series)} == {series.pk}


def test_split_at_every_slot_from_the_last_backwards_is_accepted(editor: APIClient) -> None:
    # From the second split on, each date is one slot before the continuation the
    # split before made: a continuation of that one date.
    series, events = tuesdays(count=6)
    for event in reversed(events[1:]):
        response = editor.post(url(series, "split"), {"at": utc(event.starts_at)}, format="json")
        assert response.status_code == 201, response.json()
        answer = response.json()
        assert answer["continuation"]["recurrence"]["count"] == 1
        assert answer["moved"] == [event.pk]
    assert EventSeries.objects.filter(split_from__isnull=False).count() == 5
    assert Event.objects.get(pk=events[3].pk).series.continued_by is not None
