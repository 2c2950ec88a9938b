"""The admin says how many people a change would tell before anything is saved, and its
"Tell the people booked" box decides: ticked, they get a message; unticked, nobody.
SeriesOperation has a read-only admin with its messages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.utils import timezone

from revel_recurring import rules
from revel_recurring.models import EventSeries, PersonNotice, SeriesOperation
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.tasks import cancel_stale_chunk
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import change_url, form_data, generated_series
from tests.support.drift import drift_without_partners
from tests.support.factories import occurrences
from tests.support.forms import (
    confirm_plan,
    confirm_split,
    drift_boxes,
    plan_inputs,
    split_data,
    split_url,
)
from tests.support.told import People, patch_people

pytestmark = pytest.mark.django_db

TUESDAYS = ["1"]


@pytest.fixture
def people(monkeypatch: pytest.MonkeyPatch) -> People:
    return patch_people(monkeypatch, Event)


def book(event: Event, people: People, *addresses: str) -> None:
    Seat.objects.create(event=event, label="Paid", quantity=5, booked=len(addresses))
    for address in addresses:
        people.book(event, address)


@pytest.fixture
def mondays(people: People) -> tuple[EventSeries, list[Event]]:
    """Eight published Mondays; Ada on the second and third, Bo on the third."""
    series = generated_series(name="Yoga", auto_publish=True)
    rows = occurrences(series)
    book(rows[1], people, "ada@example.com")
    book(rows[2], people, "ada@example.com", "bo@example.com")
    return series, rows


def told() -> list[str]:
    return sorted(PersonNotice.objects.values_list("address", flat=True))


def notify_box(response: Any) -> dict[str, Any] | None:
    boxes = [box for box in plan_inputs(response) if box.get("name") == "_notify"]
    return boxes[0] if boxes else None


@pytest.mark.parametrize("tell", [True, False])
def test_the_plan_page_says_how_many_are_told_and_its_box_decides(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]], tell: bool
) -> None:
    series, rows = mondays
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, name="Yoga", weekdays=TUESDAYS))
    page = shown.content.decode()
    assert "2 people booked on these dates will get one message each." in page
    box = notify_box(shown)
    assert box is not None
    assert "checked" in box
    # With their people told, the booked Mondays that move are ticked like the others.
    assert drift_boxes(shown) == {str(row.pk): True for row in rows}
    if not tell:
        shown = _untick_notify(shown)
    response = confirm_plan(admin_client, url, shown, follow=True)
    assert response.status_code == 200
    moved = Event.objects.get(pk=rows[2].pk)
    assert moved.starts_at.weekday() == 1
    assert told() == (["ada@example.com", "bo@example.com"] if tell else [])


def _untick_notify(response: Any) -> Any:
    """``response`` with its "Tell the people booked" box unticked, as a person would."""
    content = response.content.decode().replace(
        'name="_notify" value="all" id="revel-notify" checked', 'name="_notify" value="all"'
    )
    response.content = content.encode()
    return response


def test_the_split_page_counts_every_booked_date_changing_series(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, rows = mondays
    assert rows[2].recurrence_id is not None
    at = rules.to_utc(rows[2].recurrence_id)
    shown = admin_client.post(split_url(series), split_data(series, at, name="Evening yoga"))
    page = shown.content.decode()
    # Only the third Monday on changes series: Ada and Bo, two people.
    assert "2 people booked on these dates will get one message each." in page
    response = confirm_split(admin_client, _untick_notify(shown), follow=True)
    assert response.status_code == 200
    assert Event.objects.get(pk=rows[2].pk).series_id != series.pk
    assert told() == []


@pytest.mark.parametrize("tell", [True, False])
def test_cancelling_one_date_tells_its_people_as_the_box_says(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]], tell: bool
) -> None:
    series, rows = mondays
    page = admin_client.get(change_url(series)).content.decode()
    assert "tell the 2 people booked" in page
    assert "tell the 1 person booked" in page
    slot = rows[2].recurrence_id.strftime("%Y-%m-%dT%H:%M:%SZ")
    post = {"instant": slot, "include_booked": "yes", "_notify_shown": "yes"}
    if tell:
        post["_notify"] = "all"
    admin_client.post(change_url(series, "cancel-date"), post, follow=True)
    assert Event.objects.get(pk=rows[2].pk).state == Event.RECURRING_STATUS_CANCELLED
    assert told() == (["ada@example.com", "bo@example.com"] if tell else [])


@pytest.mark.parametrize("tell", [True, False])
def test_cancel_stale_says_how_many_are_told_and_its_box_decides(
    admin_client: Any, people: People, tell: bool
) -> None:
    series = generated_series(name="Yoga", auto_publish=True)
    drift_without_partners(series, keep=0)
    rows = occurrences(series)
    book(rows[1], people, "ada@example.com")
    book(rows[2], people, "Ada@example.com", "bo@example.com")
    page = admin_client.get(change_url(series, "cancel-stale")).content.decode()
    assert "2 people booked on these dates will get one message each." in page
    assert re.search(r'name="_notify" value="all" id="revel-notify" checked', page)
    post: dict[str, Any] = {
        "confirm": "yes",
        "occurrence": [rows[1].pk, rows[2].pk],
        "booked": [rows[1].pk, rows[2].pk],
        "_notify_shown": "yes",
    }
    if tell:
        post["_notify"] = "all"
    admin_client.post(change_url(series, "cancel-stale"), post, follow=True)
    assert Event.objects.get(pk=rows[2].pk).state == Event.RECURRING_STATUS_CANCELLED
    assert told() == (["ada@example.com", "bo@example.com"] if tell else [])


@pytest.mark.parametrize("notify", ["all", "none"])
def test_a_queued_cancel_stale_carries_notify_to_the_service(people: People, notify: str) -> None:
    series = generated_series(name="Yoga", auto_publish=True)
    drift_without_partners(series, keep=0)
    rows = occurrences(series)
    book(rows[1], people, "ada@example.com")
    cancel_stale_chunk([series.pk], ticked=[str(rows[1].pk)], rest=True, notify=notify)
    assert Event.objects.get(pk=rows[1].pk).state == Event.RECURRING_STATUS_CANCELLED
    assert told() == (["ada@example.com"] if notify == "all" else [])


def test_who_was_told_is_read_only_in_the_admin(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, rows = mondays
    cancel_occurrence(series, rows[2].starts_at, include_booked=True, now=timezone.now())
    operation = SeriesOperation.objects.get(kind="cancel")
    listing = admin_client.get("/admin/revel_recurring/seriesoperation/")
    assert listing.status_code == 200
    assert "Yoga" in listing.content.decode()
    detail = admin_client.get(f"/admin/revel_recurring/seriesoperation/{operation.pk}/change/")
    text = detail.content.decode()
    assert "ada@example.com" in text
    assert "bo@example.com" in text
    assert 'name="_save"' not in text
    assert admin_client.get("/admin/revel_recurring/seriesoperation/add/").status_code == 403
    deleting = f"/admin/revel_recurring/seriesoperation/{operation.pk}/delete/"
    assert admin_client.post(deleting, {"post": "yes"}).status_code == 403
    assert SeriesOperation.objects.exists()
