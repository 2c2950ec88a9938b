"""Plans, extra dates and holidays over the dojo's API, in German, with integer statuses."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.dojo.conftest import API, BERLIN, MakeSeries, trainings, utc_text
from tests.hosts.dojo.models import Booking, Training, User
from tests.support.holiday_dates import WINDOW_WEEKS, at, holiday_name, next_holiday

pytestmark = pytest.mark.django_db

Status = Training.Status
MON_THU = {"weekdays": [0, 3]}


def url(series: EventSeries, action: str = "") -> str:
    return f"{API}{series.pk}/{action + '/' if action else ''}"


def statuses(series: EventSeries) -> dict[str, int]:
    return dict(Training.objects.filter(series=series).values_list("slug", "status"))


def test_a_plan_applied_with_its_hash_keeps_the_booked_training_and_cancels_the_rest(
    api: APIClient, booked: tuple[EventSeries, list[Training]]
) -> None:
    series, tuesdays = booked
    # Tuesdays and Fridays, two dates in all: the first Tuesday stays, its Friday is new,
    # and the later Tuesdays drift with no date of the rule to move to.
    change = {"weekdays": [1, 4], "count": 2}

    plan = api.post(url(series, "recurrence-plan"), {"recurrence": change}, format="json")

    assert plan.status_code == 200, plan.json()
    drift = plan.json()["drift"]
    assert [row["id"] for row in drift] == [row.slug for row in tuesdays[1:]]
    assert {row["status"] for row in drift} == {1}
    assert [row["bookings"] for row in drift][:3] == [1, 0, 0]
    applied = api.post(
        url(series, "recurrence-apply"),
        {"recurrence": change, "plan_hash": plan.json()["hash"], "cancel_drift": "unbooked"},
        format="json",
    )

    assert applied.status_code == 200, applied.json()
    assert [row["id"] for row in applied.json()["kept_booked"]] == [tuesdays[1].slug]
    now = statuses(series)
    assert now[tuesdays[0].slug] == now[tuesdays[1].slug] == Status.BUCHBAR
    assert {now[row.slug] for row in tuesdays[2:]} == {Status.ABGESAGT}
    new = [row for row in trainings(series) if row.begins_at.astimezone(BERLIN).weekday() != 1]
    assert new
    assert all(f"-{series.pk}-" in row.slug for row in new)
    assert {row.status for row in new} == {Status.BUCHBAR}


def test_an_outdated_hash_is_a_409_with_the_fresh_plan_and_nothing_changes(
    api: APIClient, booked: tuple[EventSeries, list[Training]]
) -> None:
    series, tuesdays = booked
    plan = api.post(url(series, "recurrence-plan"), {"recurrence": MON_THU}, format="json").json()
    # Cancelled after the plan was shown: its integer status is part of the hash.
    cancelled = api.post(
        url(series, "cancel-occurrence"), {"occurrence": utc_text(tuesdays[2].begins_at)}, "json"
    )
    assert cancelled.status_code == 200, cancelled.json()
    before = statuses(series)

    outdated = api.post(
        url(series, "recurrence-apply"),
        {"recurrence": MON_THU, "plan_hash": plan["hash"], "cancel_drift": "all"},
        format="json",
    )

    assert outdated.status_code == 409, outdated.json()
    fresh = outdated.json()["plan"]
    assert tuesdays[2].slug not in [row["id"] for row in fresh["drift"]]
    assert {row["id"]: row["bookings"] for row in fresh["drift"]}[tuesdays[1].slug] == 1
    assert statuses(series) == before
    assert before[tuesdays[2].slug] == Status.ABGESAGT


def test_an_extra_date_gets_its_own_key_and_a_booked_one_cannot_be_removed(
    api: APIClient, make_series: MakeSeries, member: User
) -> None:
    series = make_series(generation_window_weeks=6)
    saturday = (trainings(series)[1].begins_at.astimezone(BERLIN) + dt.timedelta(days=4)).replace(
        hour=10
    )

    added = api.post(url(series, "add-date"), {"instant": saturday.isoformat()}, format="json")

    assert added.status_code == 200, added.json()
    row = added.json()["occurrence"]
    assert row["id"] == f"karate-anfanger-{series.pk}-{saturday.astimezone(dt.UTC):%Y%m%d-%H%M}"
    assert row["status"] == 1
    assert row["end"] == utc_text(saturday + dt.timedelta(minutes=90))
    Booking.objects.create(training_id=row["id"], member=member)
    removed = api.post(url(series, "remove-date"), {"instant": utc_text(saturday)}, format="json")
    assert removed.status_code == 409, removed.json()
    assert Training.objects.get(pk=row["id"]).status == Status.BUCHBAR


def test_a_training_moved_by_a_bavarian_holiday_is_named_in_german(api: APIClient) -> None:
    holiday = next_holiday("DE", BERLIN, subdivision="BY")
    start = at(holiday - dt.timedelta(weeks=1), BERLIN, 19, 0)
    series = create_recurring_series(
        name="Karate",
        rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": "Europe/Berlin"},
        template_data={"title": "Karate", "duration": dt.timedelta(hours=1)},
        auto_publish=True,
        generation_window_weeks=WINDOW_WEEKS,
        holidays={"country": "DE", "subdivision": "BY", "policy": "shift"},
    )
    slot = at(holiday, BERLIN, 19, 0)

    listed = api.get(url(series, "occurrences"))

    assert listed.status_code == 200, listed.json()
    moved = next(row for row in listed.json()["results"] if row["recurrence_id"] == utc_text(slot))
    assert moved["start"] == utc_text(slot + dt.timedelta(days=1))
    assert moved["status"] == 1
    assert moved["holiday"] == holiday_name("DE", holiday, "de", subdivision="BY")
    assert Training.objects.filter(pk=moved["id"], series=series).exists()


def test_a_training_booked_after_its_plan_was_shown_is_not_cancelled_by_all(
    api: APIClient, booked: tuple[EventSeries, list[Training]], member: User
) -> None:
    series, tuesdays = booked
    plan = api.post(url(series, "recurrence-plan"), {"recurrence": MON_THU}, format="json").json()
    assert {row["id"]: row["bookings"] for row in plan["drift"]}[tuesdays[2].slug] == 0
    Booking.objects.create(training=tuesdays[2], member=member)

    outdated = api.post(
        url(series, "recurrence-apply"),
        {"recurrence": MON_THU, "plan_hash": plan["hash"], "cancel_drift": "all"},
        format="json",
    )

    assert outdated.status_code == 409, outdated.json()
    fresh = outdated.json()["plan"]
    assert {row["id"]: row["bookings"] for row in fresh["drift"]}[tuesdays[2].slug] == 1
    assert Training.objects.get(pk=tuesdays[2].slug).status == Status.BUCHBAR
