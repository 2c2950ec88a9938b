"""Enrolments through the API on the real URLconf (tests/hosts/testapp, model permissions).

A user who may see a series enrols themselves, sees and changes only their own
enrolments; the organiser (who may edit the series) sees and changes every one of
it and enrols anyone by key; anonymous requests and users who cannot see the series
are refused as everywhere else in the API; a site without ``book_enrolled`` has no
enrolment routes. After each change the host's places and the app's dates agree.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import Enrolment, EnrolmentDate, EventSeries
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, SeatHolder
from tests.support.api import client, user_with
from tests.support.factories import VIENNA, make_series, occurrences

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/"


def _weekly(name: str = "Tuesday class") -> tuple[EventSeries, list[Event]]:
    """A weekly series from tomorrow 10:00 Vienna, open, three weeks generated."""
    day = (timezone.now() + dt.timedelta(days=1)).astimezone(VIENNA)
    start = day.replace(hour=10, minute=0, second=0, microsecond=0)
    series = make_series(name=name, dtstart=start, auto_publish=True, window_weeks=3)
    generate_series_events(series)
    return series, occurrences(series)


def _places(user: Any) -> list[Any]:
    """The events the host holds a place on for ``user``; they agree with the app's dates."""
    places = sorted(SeatHolder.objects.filter(user=user).values_list("event_id", flat=True))
    kept = EnrolmentDate.objects.filter(
        user_pk=str(user.pk), state__in=[EnrolmentDate.State.BOOKED, EnrolmentDate.State.HELD]
    ).values_list("occurrence_pk", flat=True)
    assert sorted(map(str, places)) == sorted(kept)
    return places


def test_a_user_sees_and_changes_only_their_own_and_the_organiser_any(
    django_user_model: Any,
) -> None:
    series, rows = _weekly()
    anna = user_with(django_user_model, "anna", "view_eventseries")
    ben = user_with(django_user_model, "ben", "view_eventseries")
    boss = user_with(django_user_model, "boss", "change_eventseries")
    as_anna, as_ben, as_boss = client(anna), client(ben), client(boss)
    on_series = f"{API}series/{series.pk}/enrolments/"

    created = as_anna.post(on_series, {}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["booked"] == [row.pk for row in rows]
    assert created.json()["refused"] == []
    mine = created.json()["enrolment"]
    assert (mine["user"], mine["created_by"], mine["ended"]) == (str(anna.pk), str(anna.pk), False)
    assert _places(anna) == [row.pk for row in rows]
    # Enrolling again changes the days of the one enrolment: nothing is booked twice.
    until = (rows[-1].starts_at + dt.timedelta(weeks=10)).astimezone(VIENNA).date().isoformat()
    again = as_anna.post(on_series, {"ends_on": until}, format="json")
    assert (again.status_code, again.json()["enrolment"]["id"]) == (200, mine["id"])
    assert (again.json()["booked"], again.json()["enrolment"]["ends_on"]) == ([], until)

    # Ben may enrol himself, not Anna; he sees his own enrolment only.
    refused = as_ben.post(on_series, {"user": str(anna.pk)}, format="json")
    assert refused.status_code == 403
    bens = as_ben.post(on_series, {}, format="json").json()["enrolment"]
    assert [e["user"] for e in as_ben.get(on_series).json()["results"]] == [str(ben.pk)]
    assert [e["id"] for e in as_ben.get(f"{API}enrolments/").json()["results"]] == [bens["id"]]
    for path in ("", "dates/"):
        assert as_ben.get(f"{API}enrolments/{mine['id']}/{path}").status_code == 404
    for verb, body in (("end", {}), ("skip", {"occurrence": rows[0].pk})):
        assert (
            as_ben.post(f"{API}enrolments/{mine['id']}/{verb}/", body, format="json").status_code
            == 404
        )
    assert _places(anna) == [row.pk for row in rows]

    # Anna skips a date, reads it back, takes it back.
    skip = as_anna.post(
        f"{API}enrolments/{mine['id']}/skip/", {"occurrence": rows[1].pk}, format="json"
    )
    assert (skip.status_code, skip.json()["occurrence"], skip.json()["state"]) == (
        200,
        rows[1].pk,
        "skipped",
    )
    assert _places(anna) == [rows[0].pk, *(row.pk for row in rows[2:])]
    dates = as_anna.get(f"{API}enrolments/{mine['id']}/dates/").json()["results"]
    assert [(d["occurrence"], d["state"]) for d in dates][:2] == [
        (rows[0].pk, "booked"),
        (rows[1].pk, "skipped"),
    ]
    back = as_anna.post(
        f"{API}enrolments/{mine['id']}/take-back/", {"occurrence": rows[1].pk}, format="json"
    )
    assert back.json()["state"] == "booked"
    assert _places(anna) == [row.pk for row in rows]

    # The organiser sees both, skips Ben's first date, enrols Carl by key, ends Anna's.
    assert sorted(e["user"] for e in as_boss.get(on_series).json()["results"]) == sorted(
        [str(anna.pk), str(ben.pk)]
    )
    assert as_boss.get(f"{API}enrolments/").json()["results"] == [], "own enrolments only"
    assert (
        as_boss.post(
            f"{API}enrolments/{bens['id']}/skip/", {"occurrence": rows[0].pk}, format="json"
        ).json()["state"]
        == "skipped"
    )
    assert _places(ben) == [row.pk for row in rows[1:]]
    carl = user_with(django_user_model, "carl", "view_eventseries")
    carls = as_boss.post(on_series, {"user": str(carl.pk)}, format="json")
    assert carls.status_code == 201
    assert carls.json()["enrolment"]["created_by"] == str(boss.pk)
    assert _places(carl) == [row.pk for row in rows]
    ended = as_boss.post(
        f"{API}enrolments/{mine['id']}/end/",
        {"on": rows[0].starts_at.astimezone(VIENNA).date().isoformat()},
        format="json",
    )
    assert ended.status_code == 200, ended.json()
    assert (ended.json()["released"], ended.json()["enrolment"]["ended"]) == (len(rows) - 1, True)
    assert _places(anna) == [rows[0].pk]


def test_bad_input_is_a_400_naming_the_field(django_user_model: Any) -> None:
    series, _rows = _weekly()
    _other, other_rows = _weekly("Other class")
    boss = client(user_with(django_user_model, "boss", "change_eventseries"))
    on_series = f"{API}series/{series.pk}/enrolments/"
    stranger = user_with(django_user_model, "stranger")  # sees no series

    def errors(path: str, body: dict[str, Any]) -> list[str]:
        response = boss.post(path, body, format="json")
        assert response.status_code == 400, response.content
        return sorted(response.json())

    assert errors(on_series, {"user": "404404"}) == ["user"]
    assert errors(on_series, {"user": "not a key"}) == ["user"]
    assert errors(on_series, {"user": str(stranger.pk)}) == ["user"]
    assert errors(on_series, {"starts_on": "2030-05-02", "ends_on": "2030-05-01"}) == ["ends_on"]
    assert errors(on_series, {"starts_on": "0001-01-01"}) == ["starts_on"]
    assert errors(on_series, {"colour": "red"}) == ["colour"]
    enrolment = boss.post(on_series, {}, format="json").json()["enrolment"]
    skip = f"{API}enrolments/{enrolment['id']}/skip/"
    assert errors(skip, {"occurrence": other_rows[0].pk}) == ["occurrence"]
    assert errors(skip, {"occurrence": "abc"}) == ["occurrence"]
    assert errors(f"{API}enrolments/{enrolment['id']}/take-back/", {}) == ["occurrence"]
    assert errors(f"{API}enrolments/{enrolment['id']}/end/", {"on": "yesterday"}) == ["on"]
    assert boss.get(f"{API}enrolments/not-an-id/").status_code == 404
    # OPTIONS describes each route's own body.
    assert list(boss.options(skip).json()["actions"]["POST"]) == ["occurrence"]
    assert list(boss.options(on_series).json()["actions"]["POST"]) == [
        "user",
        "starts_on",
        "ends_on",
    ]
    assert Enrolment.objects.count() == 1


def test_anonymous_and_users_who_cannot_see_the_series_are_refused(
    django_user_model: Any,
) -> None:
    series, rows = _weekly()
    anna = user_with(django_user_model, "anna", "view_eventseries")
    enrolment = client(anna).post(f"{API}series/{series.pk}/enrolments/", {}, format="json")
    key = enrolment.json()["enrolment"]["id"]
    anonymous = APIClient()
    nobody = client(user_with(django_user_model, "nobody"))
    on_series = f"{API}series/{series.pk}/enrolments/"
    one = f"{API}enrolments/{key}/"

    for path in (on_series, f"{API}enrolments/", one, f"{one}dates/"):
        assert anonymous.get(path).status_code in (401, 403), path
    for path in (on_series, f"{one}end/", f"{one}skip/"):
        assert anonymous.post(path, {}, format="json").status_code in (401, 403), path
    assert nobody.get(on_series).status_code == 404
    assert nobody.post(on_series, {}, format="json").status_code == 404
    assert nobody.get(f"{API}enrolments/").json()["results"] == []
    assert nobody.get(one).status_code == 404
    assert nobody.post(f"{one}end/", {}, format="json").status_code == 404
    assert Enrolment.objects.get().ended_at is None
    assert _places(anna) == [row.pk for row in rows]


def test_a_site_without_the_booking_hook_has_no_enrolment_routes(
    django_user_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    series, _rows = _weekly()
    boss = client(user_with(django_user_model, "boss", "change_eventseries"))
    key = boss.post(f"{API}series/{series.pk}/enrolments/", {}, format="json").json()["enrolment"][
        "id"
    ]
    documented = boss.get(f"{API}schema/?format=json").json()["paths"]
    assert {f"{API}enrolments/", f"{API}series/{{id}}/enrolments/"} <= set(documented)

    # The host as it would be without its override: the mixin's default hook.
    monkeypatch.delattr(Event, "book_enrolled")

    for path in (
        f"{API}series/{series.pk}/enrolments/",
        f"{API}enrolments/",
        f"{API}enrolments/{key}/",
        f"{API}enrolments/{key}/dates/",
    ):
        assert boss.get(path).status_code == 404, path
    assert boss.post(f"{API}enrolments/{key}/end/", {}, format="json").status_code == 404
    assert boss.get(f"{API}series/{series.pk}/").status_code == 200
    documented = boss.get(f"{API}schema/?format=json").json()["paths"]
    assert [path for path in documented if "enrolment" in path] == []
    assert f"{API}series/{{id}}/" in documented
