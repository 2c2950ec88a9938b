"""series/: create, list, retrieve, PATCH, DELETE, through APIClient on the real URLconf."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from django.utils import timezone

from example_project.events.models import Event, TicketTier
from example_project.tests.api.conftest import (
    API,
    VIENNA,
    ClientFor,
    World,
    create_body,
    make_series,
    occurrences_of,
    tomorrow_evening,
    url,
)
from revel_recurring.models import EventSeries, RecurrenceRule

pytestmark = pytest.mark.django_db


def counts() -> tuple[int, int, int]:
    return (
        RecurrenceRule.objects.count(),
        EventSeries.objects.count(),
        Event.objects.count(),
    )


def test_create_answers_201_with_the_full_representation_and_the_first_window(
    world: World, client_for: ClientFor
) -> None:
    response = client_for(world.a.owner).post(API, create_body(world.a.organization), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    series = EventSeries.objects.get(pk=body["id"])
    assert body["name"] == "Morning Swim"
    assert body["generation_window_weeks"] == 4
    start = tomorrow_evening()
    assert body["recurrence"]["dtstart"] == start.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert body["recurrence"]["rrule_string"].startswith("DTSTART;TZID=Europe/Vienna:")
    weekday = start.strftime("%A")
    assert body["recurrence"]["description"] == f"Every week on {weekday} at 18:30 (Europe/Vienna)"
    assert body["template"]["status"] == "draft"
    created = occurrences_of(series)
    assert len(created) == 4 or len(created) == 5
    assert body["occurrence_counts"] == {
        "total": len(created),
        "upcoming": len(created),
        "by_status": {"open": len(created)},
    }
    assert body["next_occurrence"] == body["recurrence"]["dtstart"]
    assert body["last_generated_until"] is not None
    template = series.get_template()
    assert template.organization == world.a.organization
    assert template.capacity == 12


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"recurrence": {"dtstart": "2027-01-04T18:30:00"}}, {"recurrence": ["dtstart"]}),
        ({"recurrence": {"weekdays": [7]}}, {"recurrence": ["weekdays"]}),
        ({"recurrence": {"interval": "often"}}, {"recurrence": ["interval"]}),
        ({"recurrence": {"interval": 2**40}}, {"recurrence": ["interval"]}),
        ({"recurrence": {"timezone": "Mars/Olympus"}}, {"recurrence": ["timezone"]}),
        ({"recurrence": {"frequency": "MONTHLY"}}, {"recurrence": ["monthly_type", "weekdays"]}),
        ({"recurrence": {"byhour": 3}}, {"recurrence": ["byhour"]}),
        ({"recurrence": {"rrule_string": "FREQ=DAILY"}}, {"recurrence": ["rrule_string"]}),
        ({"recurrence": {"count": 3, "until": "2030-01-01T00:00:00Z"}}, {"recurrence": ["until"]}),
        ({"generation_window_weeks": 53}, {"generation_window_weeks": None}),
        ({"generation_window_weeks": True}, {"generation_window_weeks": None}),
        ({"colour": "red"}, {"colour": None}),
        ({"name": ""}, {"name": None}),
        ({"name": "x" * 256}, {"name": None}),
        ({"template": {"status": "open"}}, {"template": ["status"]}),
        ({"template": {"is_template": False}}, {"template": ["is_template"]}),
        ({"template": {"venue": "Hall"}}, {"template": ["venue"]}),
        ({"template": {"capacity": -1}}, {"template": ["capacity"]}),
        ({"template": {"end": "2020-01-01T00:00:00Z"}}, {"template": ["end"]}),
        ({"template": {"latitude": "48.2"}}, {"template": ["longitude"]}),
        ({"template": {"organization": 10**6}}, {"template": ["organization"]}),
        ({"recurrence": "weekly"}, {"recurrence": ["non_field_errors"]}),
    ],
)
def test_bad_input_is_a_400_keyed_by_field_and_writes_nothing(
    world: World, client_for: ClientFor, overrides: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = counts()
    body = create_body(world.a.organization, **overrides)
    response = client_for(world.a.owner).post(API, body, format="json")
    assert response.status_code == 400, response.json()
    errors = response.json()
    assert set(errors) == set(expected)
    for key, nested in expected.items():
        if nested is not None:
            assert set(errors[key]) == set(nested), errors
    assert counts() == before


def test_a_template_slug_taken_in_the_organisation_is_a_400(
    world: World, client_for: ClientFor
) -> None:
    before = counts()
    body = create_body(world.a.organization, template={"slug": "alpha-run"})
    response = client_for(world.a.owner).post(API, body, format="json")
    assert response.status_code == 400
    assert "template" in response.json()
    assert counts() == before


def test_creating_for_an_organisation_the_user_does_not_run_writes_nothing(
    world: World, client_for: ClientFor
) -> None:
    before = counts()
    response = client_for(world.a.staff).post(API, create_body(world.b.organization), format="json")
    assert response.status_code == 400
    assert list(response.json()["template"]) == ["organization"]
    for user in (world.a.member, world.stranger):
        response = client_for(user).post(API, create_body(world.a.organization), format="json")
        assert response.status_code == 403
    assert counts() == before


@pytest.mark.parametrize(
    ("content", "content_type", "status"),
    [
        ("name=x", "application/x-www-form-urlencoded", 415),
        ("<series/>", "application/xml", 415),
        ('{"name": ', "application/json", 400),
        ("[1, 2]", "application/json", 400),
        ('"just a string"', "application/json", 400),
        ("null", "application/json", 400),
    ],
)
def test_non_json_and_malformed_bodies_are_refused(
    world: World, client_for: ClientFor, content: str, content_type: str, status: int
) -> None:
    before = counts()
    response = client_for(world.a.owner).post(API, content, content_type=content_type)
    assert response.status_code == status
    assert counts() == before


def test_a_huge_payload_is_refused_without_a_500(world: World, client_for: ClientFor) -> None:
    body = create_body(world.a.organization, description="x" * 3_000_000)
    response = client_for(world.a.owner).post(
        API, json.dumps(body), content_type="application/json"
    )
    assert response.status_code in (400, 413)
    weekdays = create_body(world.a.organization, recurrence={"weekdays": list(range(7)) * 10_000})
    response = client_for(world.a.owner).post(API, weekdays, format="json")
    assert response.status_code == 400
    assert list(response.json()["recurrence"]) == ["weekdays"]


def test_list_filters_search_orders_and_paginates(world: World, client_for: ClientFor) -> None:
    owner = world.a.owner
    later = make_series(
        world.a.organization,
        name="Zumba",
        dtstart=tomorrow_evening() + dt.timedelta(days=2),
        auto_publish=False,
    )
    client = client_for(owner)

    def names(query: str = "") -> list[str]:
        response = client.get(API + query)
        assert response.status_code == 200, response.json()
        return [row["name"] for row in response.json()["results"]]

    assert names() == ["Alpha Run", "Zumba"]
    assert names("?search=zum") == ["Zumba"]
    assert names("?auto_publish=false") == ["Zumba"]
    assert names("?ordering=-name") == ["Zumba", "Alpha Run"]
    assert names("?ordering=next_occurrence") == ["Alpha Run", "Zumba"]
    assert names("?ordering=-next_occurrence") == ["Zumba", "Alpha Run"]
    assert names("?ordering=-created") == ["Zumba", "Alpha Run"]
    client.post(url(later, "pause"))
    assert names("?is_active=true") == ["Alpha Run"]
    assert names("?is_active=false") == ["Zumba"]
    page = client.get(API + "?page_size=1&page=2").json()
    assert page["count"] == 2
    assert [row["name"] for row in page["results"]] == ["Zumba"]
    assert client.get(API + "?page=9").status_code == 404
    assert client.get(API + "?is_active=maybe").status_code == 400
    assert client.get(API + "?ordering=slug").status_code == 400
    assert names("?ordering=,") == ["Alpha Run", "Zumba"]


def test_retrieve_shows_exdates_in_utc_and_counts_by_status(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    first = occurrences_of(series)[0]
    client = client_for(world.a.owner)
    local = first.start.astimezone(VIENNA).isoformat()
    assert (
        client.post(
            url(series, "cancel-occurrence"), {"occurrence": local}, format="json"
        ).status_code
        == 200
    )
    body = client.get(url(series)).json()
    assert body["exdates"] == [first.start.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")]
    total = len(occurrences_of(series))
    assert body["occurrence_counts"]["by_status"] == {"cancelled": 1, "open": total - 1}
    assert client.get(url(999_999)).status_code == 404
    assert client.get(f"{API}not-a-number/").status_code == 404


def test_patch_of_the_rule_resets_the_cursor_and_reports_it(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    client = client_for(world.a.owner)
    new_day = (tomorrow_evening() + dt.timedelta(days=1)).weekday()
    response = client.patch(url(series), {"recurrence": {"weekdays": [new_day]}}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["cursor_reset"] is True
    assert response.json()["recurrence"]["weekdays"] == [new_day]
    # The new rule's dates are there at once: the unbooked dates moved to them and any
    # date without a row to move was generated (which of the two depends on today's
    # weekday: a row whose partner day is past stays as drift).
    assert response.json()["last_generated_until"] is not None
    changed = response.json()["created"] + response.json()["moved"]
    assert changed
    assert {row["id"] for row in changed} <= {event.pk for event in occurrences_of(series)}
    assert {
        dt.datetime.fromisoformat(row["start"]).astimezone(VIENNA).weekday() for row in changed
    } == {new_day}
    response = client.patch(url(series), {"auto_publish": False}, format="json")
    assert response.json()["cursor_reset"] is False
    assert response.json()["auto_publish"] is False
    response = client.patch(url(series), {"name": "Renamed", "description": "New"}, format="json")
    assert response.status_code == 200
    series.refresh_from_db()
    assert (series.name, series.description) == ("Renamed", "New")


@pytest.mark.parametrize(
    ("body", "key", "nested"),
    [
        ({"recurrence": {"frequency": "MONTHLY"}}, "recurrence", "monthly_type"),
        ({"recurrence": {"until": "2001-01-01T00:00:00Z"}}, "recurrence", "until"),
        ({"recurrence": {"dtstart": "2027-01-01T10:00"}}, "recurrence", "dtstart"),
        ({"recurrence": {"shape": 1}}, "recurrence", "shape"),
        ({"generation_window_weeks": 0}, "generation_window_weeks", None),
        ({"is_active": False}, "is_active", None),
        ({"name": "Renamed", "recurrence": {"interval": 0}}, "recurrence", "interval"),
    ],
)
def test_a_bad_patch_is_a_400_and_changes_nothing(
    world: World, client_for: ClientFor, body: dict[str, Any], key: str, nested: str | None
) -> None:
    series = world.a.series
    rule_before = RecurrenceRule.objects.get(pk=series.recurrence_rule_id).field_values()
    response = client_for(world.a.owner).patch(url(series), body, format="json")
    assert response.status_code == 400, response.json()
    assert key in response.json()
    if nested:
        assert nested in response.json()[key]
    fresh = EventSeries.objects.get(pk=series.pk)
    assert fresh.name == "Alpha Run"
    assert fresh.is_active
    assert RecurrenceRule.objects.get(pk=series.recurrence_rule_id).field_values() == rule_before


def test_put_is_not_offered(world: World, client_for: ClientFor) -> None:
    response = client_for(world.a.owner).put(url(world.a.series), {}, format="json")
    assert response.status_code == 405


def test_delete_answers_204_and_removes_everything(world: World, client_for: ClientFor) -> None:
    series = world.a.series
    response = client_for(world.a.owner).delete(url(series))
    assert response.status_code == 204
    assert not EventSeries.objects.filter(pk=series.pk).exists()
    assert not Event.objects.filter(series_id=series.pk).exists()
    assert not RecurrenceRule.objects.filter(pk=series.recurrence_rule_id).exists()


def test_delete_with_bookings_is_a_409_and_deletes_nothing(
    world: World, client_for: ClientFor
) -> None:
    series = world.a.series
    booked = occurrences_of(series)[0]
    TicketTier.objects.create(event=booked, name="Entry", quantity=10, quantity_sold=2)
    before = counts()
    response = client_for(world.a.owner).delete(url(series))
    assert response.status_code == 409
    assert "bookings" in response.json()["detail"]
    assert counts() == before


def test_the_api_never_reads_a_naive_datetime_in_the_server_zone(
    world: World, client_for: ClientFor
) -> None:
    # Europe/Vienna is the example project's TIME_ZONE; a naive value would be read
    # in it silently by DRF's own DateTimeField.
    assert timezone.get_current_timezone_name() == "Europe/Vienna"
    response = client_for(world.a.owner).post(
        url(world.a.series, "generate"), {"until": "2027-01-01T00:00:00"}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()) == ["until"]


def test_an_empty_query_parameter_means_not_given_and_a_bad_page_size_is_named(
    world: World, client_for: ClientFor
) -> None:
    client = client_for(world.a.owner)
    every = "?search=&ordering=&is_active=&auto_publish=&page=&page_size="
    listed = client.get(API + every)
    assert listed.status_code == 200, listed.json()
    assert [row["name"] for row in listed.json()["results"]] == ["Alpha Run"]
    empty = "?date_from_after=&date_from_before=&status=&is_modified=&is_future=&modified_since="
    rows = client.get(url(world.a.series, "occurrences") + empty + "&page_size=")
    assert rows.status_code == 200, rows.json()
    assert rows.json()["count"] == len(occurrences_of(world.a.series))
    assert client.get(url(world.a.series, "preview") + "?count=").json()["count"] == 10
    for bad in ("0", "-1", "abc", " "):
        response = client.get(API + f"?page_size={bad}")
        assert response.status_code == 400, bad
        assert list(response.json()) == ["page_size"], bad
