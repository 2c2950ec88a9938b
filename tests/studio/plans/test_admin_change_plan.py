"""The change plan page on the studio host: UUID lessons, real Booking rows.

Tuesday/Thursday lessons moved to Monday/Wednesday: the page marks the booked
lessons unticked, confirming keeps them (and their bookings), cancels the
ticked ones and creates the Monday/Wednesday lessons at once; a plan made stale
in between writes nothing and is shown afresh.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from revel_recurring.models import EventSeries
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import BERLIN, PASSWORD, MakeSeries, lessons
from tests.support.forms import confirm_plan, drift_boxes, form_data, form_errors

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"
MON_WED = ["0", "2"]


@pytest.fixture
def owner(db: Any) -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("owner@studio.example", PASSWORD))  # type: ignore[arg-type]
    return client


@pytest.fixture
def booked_series(make_series: MakeSeries, pupil: User) -> tuple[EventSeries, list[Lesson]]:
    """Tuesday and Thursday lessons; the second and the fifth booked."""
    series = make_series(weekdays=(1, 3))
    rows = lessons(series)
    for lesson in (rows[1], rows[4]):
        Booking.objects.create(lesson=lesson, pupil=pupil)
    return series, rows


def states(rows: list[Lesson]) -> list[str]:
    found = dict(Lesson.objects.filter(pk__in=[r.pk for r in rows]).values_list("pk", "state"))
    return [found[row.pk] for row in rows]


def test_with_nobody_told_moving_booked_lessons_to_other_weekdays_is_confirmed_on_the_plan(
    owner: Client, booked_series: tuple[EventSeries, list[Lesson]], settings: Any
) -> None:
    """Nobody told: a booked lesson moves only when ticked, and starts unticked."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, rows = booked_series
    url = f"{CHANGELIST}{series.pk}/change/"
    booked = {rows[1].pk, rows[4].pk}

    shown = owner.post(url, form_data(series, name="Salsa Mon/Wed", weekdays=MON_WED))

    assert shown.status_code == 200
    plan = shown.context["plan"]
    assert [row.id for row in plan.drift] == [row.pk for row in rows]
    assert {row.id for row in plan.booked_drift} == booked
    assert {uuid.UUID(pk): on for pk, on in drift_boxes(shown).items()} == {
        row.pk: row.pk not in booked for row in rows
    }
    # Each lesson moves to its week's Monday or Wednesday but the first Thursday (its
    # week's Monday comes before the start, the first Tuesday takes the Wednesday). New
    # is only the Monday beside the booked third Tuesday, while it stays.
    assert [row.moves_to is None for row in plan.drift] == [i == 1 for i in range(len(rows))]
    new = [date.start for date in plan.new]
    assert [(date.local.weekday(), date.beside) for date in plan.new] == [(0, rows[4].pk)]
    assert Lesson.objects.filter(series=series, is_template=False).count() == len(rows)

    response = confirm_plan(owner, url, shown, follow=True)

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    # The ticked lessons moved (same UUIDs); the booked ones, unticked, stay.
    assert states(rows) == [row.state for row in rows]
    moved = Lesson.objects.filter(pk__in=[r.pk for i, r in enumerate(rows) if i not in (1, 4)])
    assert {lesson.begins.astimezone(BERLIN).weekday() for lesson in moved} == {0, 2}
    assert Booking.objects.filter(lesson__in=booked).count() == 2
    created = [lesson.begins for lesson in lessons(series) if lesson.pk not in {r.pk for r in rows}]
    assert created == new
    assert set(new) <= {row.instant for row in response.context["upcoming"]}
    shown_texts = [str(message) for message in get_messages(response.wsgi_request)]
    assert any(
        f"{len(rows) - 2} dates moved" in text and "1 new date, 0 dates cancelled" in text
        for text in shown_texts
    ), shown_texts
    assert any("2 booked dates kept where they were" in text for text in shown_texts)


def test_a_stale_plan_writes_nothing_and_shows_the_fresh_one(
    owner: Client, booked_series: tuple[EventSeries, list[Lesson]]
) -> None:
    series, rows = booked_series
    url = f"{CHANGELIST}{series.pk}/change/"
    shown = owner.post(url, form_data(series, weekdays=MON_WED))
    # In between, someone scraps a lesson.
    Lesson.objects.filter(pk=rows[0].pk).update(state=Lesson.State.SCRAPPED)

    response = confirm_plan(owner, url, shown)

    assert response.status_code == 200
    assert response.context["outdated"]
    assert response.context["plan"].hash != shown.context["plan"].hash
    assert "was changed by someone else" in response.content.decode()
    series.refresh_from_db()
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == [1, 3]
    assert states(rows)[1:] == [row.state for row in rows[1:]]
    assert len(lessons(series)) == len(rows)


def test_a_name_change_saves_directly(
    owner: Client, booked_series: tuple[EventSeries, list[Lesson]]
) -> None:
    series, rows = booked_series

    response = owner.post(f"{CHANGELIST}{series.pk}/change/", form_data(series, name="Renamed"))

    assert response.status_code == 302, form_errors(response)
    series.refresh_from_db()
    assert series.name == "Renamed"
    assert [lesson.pk for lesson in lessons(series)] == [row.pk for row in rows]
