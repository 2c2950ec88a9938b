"""Every API write that moves, cancels or restores dates takes ``notify`` to the service;
the plans answer ``people_told``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries, PersonNotice
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import client, next_tuesday, user_with
from tests.support.factories import make_series, occurrences
from tests.support.told import People, patch_people

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"
WEDNESDAYS = {"weekdays": [2]}


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    return client(user_with(django_user_model, "editor", "view_eventseries", "change_eventseries"))


@pytest.fixture
def people(monkeypatch: pytest.MonkeyPatch) -> People:
    return patch_people(monkeypatch, Event)


def tuesdays(people: People) -> tuple[EventSeries, list[Event]]:
    """Four published Tuesdays; Ada is booked on the third (one seat taken)."""
    series = make_series(dtstart=next_tuesday(), weekdays=[1], window_weeks=4, auto_publish=True)
    generate_series_events(series)
    rows = occurrences(series)
    Seat.objects.create(event=rows[2], label="Front", quantity=5, booked=1)
    people.book(rows[2], "ada@example.com")
    return series, rows


def iso(instant: dt.datetime) -> str:
    return instant.isoformat()


def url(series: EventSeries, action: str = "") -> str:
    return f"{API}{series.pk}/{action + '/' if action else ''}"


def hash_of(api: APIClient, series: EventSeries, path: str, body: dict[str, Any]) -> str:
    answer = api.post(url(series, path), body, format="json")
    assert answer.status_code == 200, answer.json()
    return str(answer.json()["hash"])


# Each write: (method, action, body) for the series and its rows, before ``notify``.
Write = Callable[[APIClient, EventSeries, list[Event]], tuple[str, str, dict[str, Any]]]


def cancel_one(api: APIClient, series: EventSeries, rows: list[Event]) -> Any:
    body = {"occurrence": iso(rows[2].starts_at), "include_booked": True}
    return "post", "cancel-occurrence", body


def restore_one(api: APIClient, series: EventSeries, rows: list[Event]) -> Any:
    cancel_occurrence(series, rows[2].starts_at, include_booked=True, notify="none")
    return "post", "restore-occurrence", {"occurrence": iso(rows[2].starts_at)}


def cancel_stale(api: APIClient, series: EventSeries, rows: list[Event]) -> Any:
    # Off the rule by an hour, not by hand: drift.
    Event.objects.filter(pk=rows[2].pk).update(starts_at=rows[2].starts_at + dt.timedelta(hours=1))
    return "post", "cancel-stale", {"include_booked": True}


def apply_plan(api: APIClient, series: EventSeries, rows: list[Event]) -> Any:
    body = {"recurrence": WEDNESDAYS}
    digest = hash_of(api, series, "recurrence-plan", body)
    return "post", "recurrence-apply", {**body, "hash": digest, "cancel_drift": "all"}


def split(api: APIClient, series: EventSeries, rows: list[Event]) -> Any:
    body = {"at": iso(rows[1].starts_at), "name": "Evening yoga"}
    return "post", "split", {**body, "hash": hash_of(api, series, "split-plan", body)}


def patch_rule(api: APIClient, series: EventSeries, rows: list[Event]) -> Any:
    return "patch", "", {"recurrence": WEDNESDAYS}


WRITES: dict[str, Write] = {
    "cancel-occurrence": cancel_one,
    "restore-occurrence": restore_one,
    "cancel-stale": cancel_stale,
    "recurrence-apply": apply_plan,
    "split": split,
    "PATCH": patch_rule,
}


def send(api: APIClient, series: EventSeries, rows: list[Event], name: str, **extra: Any) -> Any:
    method, action, body = WRITES[name](api, series, rows)
    return getattr(api, method)(url(series, action), {**body, **extra}, format="json")


@pytest.mark.parametrize("name", list(WRITES))
def test_notify_all_tells_the_person_booked_and_none_tells_nobody(
    editor: APIClient, people: People, name: str
) -> None:
    series, rows = tuesdays(people)
    quiet = send(editor, series, rows, name, notify="none")
    assert quiet.status_code in (200, 201), quiet.json()
    assert not PersonNotice.objects.exists()

    other, others = tuesdays(people)
    told = send(editor, other, others, name, notify="all")
    assert told.status_code in (200, 201), told.json()
    assert list(PersonNotice.objects.values_list("address", flat=True)) == ["ada@example.com"]


@pytest.mark.parametrize("name", list(WRITES))
def test_an_unknown_notify_is_a_400_naming_it_and_writes_nothing(
    editor: APIClient, people: People, name: str
) -> None:
    series, rows = tuesdays(people)
    answer = send(editor, series, rows, name, notify="some")
    assert answer.status_code == 400, answer.json()
    assert "notify" in answer.json()
    assert not PersonNotice.objects.exists()


@override_settings(REVEL_RECURRING_NOTIFY_PEOPLE="none")
def test_without_notify_the_site_default_decides(editor: APIClient, people: People) -> None:
    series, rows = tuesdays(people)
    answer = send(editor, series, rows, "cancel-occurrence")
    assert answer.status_code == 200, answer.json()
    assert not PersonNotice.objects.exists()


def test_the_plans_answer_how_many_people_would_be_told(editor: APIClient, people: People) -> None:
    series, rows = tuesdays(people)
    Seat.objects.create(event=rows[3], label="Front", quantity=5, booked=2)
    people.book(rows[3], "ADA@example.com")  # the same person, told once
    people.book(rows[3], "bo@example.com")
    plan = editor.post(url(series, "recurrence-plan"), {"recurrence": WEDNESDAYS}, format="json")
    assert plan.json()["people_told"] == 2
    body = {"at": iso(rows[3].starts_at), "name": "Evening yoga"}
    split_plan = editor.post(url(series, "split-plan"), body, format="json")
    assert split_plan.json()["people_told"] == 2


def _beside(plan: dict[str, Any]) -> list[Any]:
    """The booked dates the plan keeps where they are, a new date created beside each."""
    return [new["beside"] for new in plan["new"] if new["beside"] is not None]


@pytest.mark.parametrize(
    ("plan_action", "apply_action", "extra"),
    [
        ("recurrence-plan", "recurrence-apply", {}),
        ("split-plan", "split", {"at": "rows[1]", "name": "Evening yoga"}),
    ],
)
def test_the_plans_take_notify_and_show_what_applying_with_it_does(
    editor: APIClient, people: People, plan_action: str, apply_action: str, extra: dict[str, Any]
) -> None:
    applied = {}
    for notify in ("none", "all"):
        series, rows = tuesdays(people)
        booked = rows[2]
        body: dict[str, Any] = {"recurrence": WEDNESDAYS, **extra, "notify": notify}
        if "at" in body:
            body["at"] = iso(rows[1].starts_at)
        plan = editor.post(url(series, plan_action), body, format="json").json()
        # Nobody told: the booked Tuesday stays, its Wednesday is new beside it; everyone
        # told: it moves like a free one and its one person is counted.
        assert (_beside(plan), plan["people_told"]) == (
            ([booked.pk], 0) if notify == "none" else ([], 1)
        ), plan
        answer = editor.post(
            url(series, apply_action), {**body, "hash": plan["hash"]}, format="json"
        )
        assert answer.status_code in (200, 201), answer.json()
        booked.refresh_from_db()
        applied[notify] = (booked.starts_at.weekday(), PersonNotice.objects.count())
    # As planned: the booked date stays on its Tuesday and nobody hears, or it moves to
    # Wednesday and its person gets one message.
    assert applied == {"none": (1, 0), "all": (2, 1)}


@pytest.mark.parametrize("action", ["recurrence-plan", "split-plan"])
def test_a_plan_with_an_unknown_notify_is_a_400_naming_it(
    editor: APIClient, people: People, action: str
) -> None:
    series, rows = tuesdays(people)
    body = {"recurrence": WEDNESDAYS, "notify": "some"}
    if action == "split-plan":
        body["at"] = iso(rows[1].starts_at)
    answer = editor.post(url(series, action), body, format="json")
    assert answer.status_code == 400, answer.json()
    assert "notify" in answer.json()
