"""Extra dates (RFC 5545 RDATE) over the API on the testapp host: add-date/, remove-date/,
``recurrence.extra_dates`` on create and PATCH, RDATE in ``recurrence.ical``."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.instants import describe_instant
from revel_recurring.models import EventSeries
from revel_recurring.services.extra_dates import add_extra_date, replace_extra_dates
from revel_recurring.services.generation import generate_series_events
from revel_recurring.validators import EXTRA_DATES_MAX
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import client, next_tuesday, user_with
from tests.support.factories import VIENNA, make_series, occurrences

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    return client(
        user_with(
            django_user_model, "editor", "view_eventseries", "add_eventseries", "change_eventseries"
        )
    )


def thursday(week: int) -> dt.datetime:
    """The Thursday 18:30 (Vienna) of the series' week ``week`` (0 = the first)."""
    day = next_tuesday().date() + dt.timedelta(weeks=week, days=2)
    return dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)


def tuesdays() -> EventSeries:
    """Tuesdays 10:00 Vienna, six weeks generated."""
    series = make_series(dtstart=next_tuesday(), window_weeks=6)
    generate_series_events(series)
    return series


def url(series: EventSeries | int, action: str = "") -> str:
    pk = series if isinstance(series, int) else series.pk
    return f"{API}{pk}/{action + '/' if action else ''}"


def utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def create_body(**recurrence: Any) -> dict[str, Any]:
    rule = recurrence or {
        "frequency": "WEEKLY",
        "dtstart": next_tuesday().isoformat(),
        "timezone": "Europe/Vienna",
    }
    return {"name": "Tuesday yoga", "recurrence": rule, "template": {"title": "Yoga"}}


def test_add_date_generates_it_at_once_and_remove_date_takes_a_later_one_away(
    editor: APIClient,
) -> None:
    series = tuesdays()
    before = len(occurrences(series))

    added = editor.post(url(series, "add-date"), {"instant": thursday(1).isoformat()}, "json")

    assert added.status_code == 200, added.json()
    answer = added.json()
    assert answer["occurrence"]["start"] == utc(thursday(1))
    assert answer["series"]["extra_dates"] == [utc(thursday(1))]
    assert len(occurrences(series)) == before + 1
    # Beyond the window: stored, created later by the dispatcher.
    later = editor.post(url(series, "add-date"), {"instant": thursday(12).isoformat()}, "json")
    assert later.status_code == 200, later.json()
    assert later.json()["occurrence"] is None
    assert later.json()["series"]["extra_dates"] == [utc(thursday(1)), utc(thursday(12))]
    assert editor.get(url(series)).json()["extra_dates"] == [utc(thursday(1)), utc(thursday(12))]

    removed = editor.post(url(series, "remove-date"), {"instant": utc(thursday(12))}, "json")

    assert removed.status_code == 200, removed.json()
    assert removed.json()["extra_dates"] == [utc(thursday(1))]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == [utc(thursday(1))]


def test_remove_date_of_a_booked_occurrence_is_a_409_naming_it_and_keeps_it(
    editor: APIClient,
) -> None:
    series = tuesdays()
    event = add_extra_date(series, thursday(1))
    Seat.objects.filter(event=event).update(booked=2)

    response = editor.post(url(series, "remove-date"), {"instant": utc(thursday(1))}, "json")

    assert response.status_code == 409, response.json()
    assert "has bookings" in response.json()["detail"]
    assert thursday(1).strftime("%-d %b %Y 18:30") in response.json()["detail"]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == [utc(thursday(1))]
    assert Event.objects.filter(pk=event.pk, state="planned").exists()


@pytest.mark.parametrize(
    ("instant", "words"),
    [
        ("2030-01-02T18:30:00", "no UTC offset"),  # naive
        ("2020-01-07T18:30:00Z", "in the past"),
        (None, "a date of the series' rule already"),  # the second Tuesday
    ],
)
def test_add_date_refuses_bad_instants_under_instant(
    editor: APIClient, instant: str | None, words: str
) -> None:
    series = tuesdays()
    value = instant or utc(next_tuesday() + dt.timedelta(weeks=1))

    response = editor.post(url(series, "add-date"), {"instant": value}, "json")

    assert response.status_code == 400, response.json()
    assert list(response.json()) == ["instant"]
    assert words in " ".join(response.json()["instant"])
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []


def test_remove_date_of_no_extra_date_is_a_400_and_a_viewer_may_not(
    editor: APIClient, django_user_model: Any
) -> None:
    series = tuesdays()
    add_extra_date(series, thursday(12))
    viewer = client(user_with(django_user_model, "viewer", "view_eventseries"))

    missing = editor.post(url(series, "remove-date"), {"instant": utc(thursday(11))}, "json")

    assert missing.status_code == 400
    assert "not an extra date" in missing.json()["instant"][0]
    body = {"instant": utc(thursday(12))}
    assert viewer.post(url(series, "remove-date"), body, "json").status_code == 403
    assert viewer.post(url(series, "add-date"), body, "json").status_code == 403
    assert EventSeries.objects.get(pk=series.pk).extra_dates == [utc(thursday(12))]


def test_create_with_extra_dates_stores_and_generates_them(editor: APIClient) -> None:
    body = create_body()
    body["recurrence"]["extra_dates"] = [thursday(12).isoformat(), thursday(1).isoformat()]

    response = editor.post(API, body, "json")

    assert response.status_code == 201, response.json()
    assert response.json()["extra_dates"] == [utc(thursday(1)), utc(thursday(12))]
    series = EventSeries.objects.get(pk=response.json()["id"])
    starts = [rules.to_utc(event.recurrence_id) for event in occurrences(series)]
    assert rules.to_utc(thursday(1)) in starts


def test_create_with_a_bad_extra_date_creates_nothing(editor: APIClient) -> None:
    body = create_body()
    body["recurrence"]["extra_dates"] = [thursday(1).isoformat(), "2020-01-07T18:30:00Z"]

    response = editor.post(API, body, "json")

    assert response.status_code == 400, response.json()
    assert "in the past" in response.json()["recurrence"]["extra_dates"][0]
    assert not EventSeries.objects.exists()
    assert not Event.objects.exists()


def test_create_from_ical_with_rdate_stores_the_extra_dates(editor: APIClient) -> None:
    start = next_tuesday()
    text = (
        f"DTSTART;TZID=Europe/Vienna:{start:%Y%m%dT%H%M%S}\n"
        "RRULE:FREQ=WEEKLY\n"
        f"RDATE;TZID=Europe/Vienna:{thursday(1):%Y%m%dT%H%M%S}\n"
    )

    response = editor.post(API, create_body(ical=text), "json")

    assert response.status_code == 201, response.json()
    assert response.json()["extra_dates"] == [utc(thursday(1))]
    past = text.replace(f"{thursday(1):%Y%m%dT%H%M%S}", "20200107T183000")
    refused = editor.post(API, {**create_body(ical=past), "name": "Other"}, "json")
    assert refused.status_code == 400, refused.json()
    assert "in the past" in refused.json()["recurrence"]["ical"]["RDATE"][0]
    assert EventSeries.objects.count() == 1


def test_patch_extra_dates_replaces_the_set(editor: APIClient) -> None:
    series = tuesdays()
    add_extra_date(series, thursday(11))
    add_extra_date(series, thursday(12))

    response = editor.patch(
        url(series),
        {"recurrence": {"extra_dates": [thursday(12).isoformat(), thursday(2).isoformat()]}},
        "json",
    )

    assert response.status_code == 200, response.json()
    answer = response.json()
    assert answer["extra_dates"] == [utc(thursday(2)), utc(thursday(12))]
    assert [row["start"] for row in answer["created"]] == [utc(thursday(2))]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == answer["extra_dates"]


def test_patch_dropping_a_live_extra_date_is_a_400_under_extra_dates(editor: APIClient) -> None:
    series = tuesdays()
    add_extra_date(series, thursday(1))

    response = editor.patch(
        url(series), {"name": "Renamed", "recurrence": {"extra_dates": []}}, "json"
    )

    assert response.status_code == 400, response.json()
    assert "cancel or delete it" in response.json()["recurrence"]["extra_dates"][0]
    fresh = EventSeries.objects.get(pk=series.pk)
    assert (fresh.name, fresh.extra_dates) == ("Monday yoga", [utc(thursday(1))])


def test_patch_dropping_a_booked_extra_date_is_a_409_and_writes_nothing(
    editor: APIClient,
) -> None:
    series = tuesdays()
    event = add_extra_date(series, thursday(1))
    Seat.objects.filter(event=event).update(booked=1)

    response = editor.patch(
        url(series),
        {
            "name": "Renamed",
            "recurrence": {"interval": 2, "extra_dates": [thursday(2).isoformat()]},
        },
        "json",
    )

    assert response.status_code == 409, response.json()
    assert "has bookings" in response.json()["detail"]
    fresh = EventSeries.objects.get(pk=series.pk)
    assert (fresh.name, fresh.recurrence_rule.interval) == ("Monday yoga", 1)
    assert fresh.extra_dates == [utc(thursday(1))]
    assert not Event.objects.filter(recurrence_id=thursday(2)).exists()


def test_a_split_refuses_extra_dates_by_name(editor: APIClient) -> None:
    series = tuesdays()
    body = {
        "at": utc(next_tuesday() + dt.timedelta(weeks=2)),
        "recurrence": {"extra_dates": [thursday(1).isoformat()]},
    }

    planned = editor.post(url(series, "split-plan"), body, "json")
    split = editor.post(url(series, "split"), body, "json")

    for response in (planned, split):
        assert response.status_code == 400, response.json()
        assert "recurrence-plan/" in response.json()["recurrence"]["extra_dates"][0]
    assert EventSeries.objects.count() == 1


# One limit, one answer to a date given twice


def at_the_limit() -> tuple[EventSeries, list[str]]:
    """Tuesdays with EXTRA_DATES_MAX extra dates (Thursday evenings, the first ones past)."""
    series = tuesdays()
    first = thursday(-10)
    dates = [first + dt.timedelta(weeks=week) for week in range(EXTRA_DATES_MAX)]
    series.extra_dates = rules.normalize_exdates(dates)
    series.save(update_fields=["extra_dates"])
    return series, series.extra_dates


def test_a_series_at_the_limit_is_patched_back_as_it_was_read(editor: APIClient) -> None:
    series, stored = at_the_limit()
    read = editor.get(url(series))
    assert read.status_code == 200
    assert read.json()["extra_dates"] == stored

    unchanged = editor.patch(url(series), read.json(), "json")

    assert unchanged.status_code == 200, unchanged.json()
    assert unchanged.json()["extra_dates"] == stored
    # The edit form's round trip: the dates read, sent back as the set they should be.
    body = {**read.json(), "recurrence": {**read.json()["recurrence"], "extra_dates": stored}}
    edited = editor.patch(url(series), body, "json")
    assert edited.status_code == 200, edited.json()
    assert EventSeries.objects.get(pk=series.pk).extra_dates == stored
    planned = editor.post(
        url(series, "recurrence-plan"), {"recurrence": {"extra_dates": stored}}, "json"
    )
    assert planned.status_code == 200, planned.json()


def test_no_writer_takes_a_series_past_the_limit(editor: APIClient) -> None:
    series, stored = at_the_limit()
    one_more = utc(thursday(EXTRA_DATES_MAX))

    added = editor.post(url(series, "add-date"), {"instant": one_more}, "json")
    patched = editor.patch(
        url(series), {"recurrence": {"extra_dates": [*stored, one_more]}}, "json"
    )
    planned = editor.post(
        url(series, "recurrence-plan"), {"recurrence": {"extra_dates": [*stored, one_more]}}, "json"
    )

    assert added.status_code == 400, added.json()
    assert f"at most {EXTRA_DATES_MAX} extra dates" in added.json()["instant"][0]
    for answer in (patched, planned):
        assert answer.status_code == 400, answer.json()
        assert list(answer.json()) == ["recurrence"]
        assert list(answer.json()["recurrence"]) == ["extra_dates"]
    with pytest.raises(ValidationError) as refused:
        replace_extra_dates(series, [rules.parse_instant(v) for v in [*stored, one_more]])
    assert f"at most {EXTRA_DATES_MAX} extra dates" in refused.value.messages[0]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == stored
    # One date fewer, and there is room again.
    freed = editor.patch(url(series), {"recurrence": {"extra_dates": stored[1:]}}, "json")
    assert freed.status_code == 200, freed.json()
    again = editor.post(url(series, "add-date"), {"instant": one_more}, "json")
    assert again.status_code == 200, again.json()


def test_a_date_given_twice_is_a_400_naming_it_on_create_patch_and_plan(
    editor: APIClient,
) -> None:
    series = tuesdays()
    twice = [thursday(12).isoformat(), thursday(1).isoformat(), utc(thursday(12))]
    create = create_body()
    create["recurrence"]["extra_dates"] = twice

    answers = [
        editor.post(API, create, "json"),
        editor.patch(url(series), {"recurrence": {"extra_dates": twice}}, "json"),
        editor.post(url(series, "recurrence-plan"), {"recurrence": {"extra_dates": twice}}, "json"),
    ]

    for answer in answers:
        assert answer.status_code == 400, answer.json()
        (message,) = answer.json()["recurrence"]["extra_dates"]
        assert "is given twice; give each extra date once." in message
        assert message.startswith(describe_instant(thursday(12), "Europe/Vienna"))
    assert EventSeries.objects.count() == 1
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []


def test_every_series_representation_is_patched_back_as_it_was_read(editor: APIClient) -> None:
    series = tuesdays()
    assert editor.patch(url(series), {"holidays": {"country": "AT"}}, "json").status_code == 200
    add_extra_date(series, thursday(3))
    events = occurrences(series)
    split = editor.post(url(series, "split"), {"at": utc(events[2].starts_at)}, "json")
    assert split.status_code == 201, split.json()
    continuation = split.json()["continuation"]["id"]
    assert editor.post(url(continuation, "pause"), {}, "json").status_code == 200

    for pk in (series.pk, continuation):
        read = editor.get(url(pk)).json()
        answer = editor.patch(url(pk), read, "json")
        assert answer.status_code == 200, answer.json()
        assert {key: answer.json()[key] for key in read if key != "updated_at"} == {
            key: value for key, value in read.items() if key != "updated_at"
        }
        # The PATCH's own answer goes back as well.
        again = editor.patch(url(pk), answer.json(), "json")
        assert again.status_code == 200, again.json()


@pytest.mark.parametrize(
    ("key", "value"),
    [("slug", "another-slug"), ("is_active", False), ("extra_dates", []), ("id", 0)],
)
def test_a_read_only_key_of_the_representation_changed_is_a_400_naming_it(
    editor: APIClient, key: str, value: Any
) -> None:
    series = tuesdays()
    add_extra_date(series, thursday(3))
    read = editor.get(url(series)).json()

    answer = editor.patch(url(series), {**read, key: value}, "json")

    assert answer.status_code == 400, answer.json()
    assert answer.json() == {key: ["This field is read-only; leave it out."]}
