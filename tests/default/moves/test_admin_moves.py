"""The admin's plan page names each date's fate and moves the same rows when confirmed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from revel_recurring.instants import describe_instant
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import change_url, form_data, form_errors, generated_series, texts
from tests.support.factories import VIENNA, occurrences
from tests.support.forms import confirm_plan, drift_boxes

pytestmark = pytest.mark.django_db


def test_with_nobody_told_a_weekday_change_shows_where_each_date_moves_and_moves_the_same_rows(
    admin_client: Any, settings: Any
) -> None:
    """Nobody told: a booked date moves only when ticked, and starts unticked."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series = generated_series(name="Yoga")
    dates = occurrences(series)
    Seat.objects.filter(event=dates[2]).update(booked=3)
    url = change_url(series)

    shown = admin_client.post(url, form_data(series, weekdays=["2"]))

    page = shown.content.decode()
    assert shown.status_code == 200
    plan = shown.context["plan"]
    assert all(row.moves_to is not None for row in plan.drift)
    # The booked date stays unless ticked: its Wednesday is a new date beside it.
    assert [date.beside for date in plan.new] == [dates[2].pk]
    boxes = drift_boxes(shown)
    assert boxes[str(dates[2].pk)] is False, "a booked date starts unticked"
    assert all(on for pk, on in boxes.items() if pk != str(dates[2].pk))
    wednesday = describe_instant(plan.drift[0].moves_to, "Europe/Vienna")
    assert wednesday in page
    assert "revel-fate-moves" in page

    response = confirm_plan(admin_client, url, shown, follow=True)

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    rows = {event.pk: event for event in Event.objects.filter(series=series, is_template=False)}
    booked = rows.pop(dates[2].pk)
    assert booked.starts_at == dates[2].starts_at, "the booked date stays where it was"
    assert {event.starts_at.astimezone(VIENNA).weekday() for event in rows.values()} == {2}
    assert {date.pk for date in dates if date.pk != dates[2].pk} <= set(rows)
    assert len(set(rows) - {date.pk for date in dates}) == 1, "one new date beside the booked one"
    messages = texts(response)
    moved = len(dates) - 1
    time = dates[0].starts_at.astimezone(VIENNA).strftime("%H:%M")
    assert any(
        f"new schedule applied: {moved} dates moved to Wednesday, {time}, 1 new date, "
        "0 dates cancelled." in message
        for message in messages
    ), messages
    booked_label = describe_instant(dates[2].starts_at, "Europe/Vienna")
    assert any(
        f"1 booked date kept where it was (left unticked): {booked_label}" in message
        for message in messages
    ), messages


def test_with_the_people_told_an_unticked_booked_date_stays_where_it_is(
    admin_client: Any,
) -> None:
    """The people told (the default): the plan shows the booked date moving with the
    rest (no new date beside it); the organiser unticks it, and it stays where it was
    while the others move."""
    series = generated_series(name="Yoga")
    dates = occurrences(series)
    Seat.objects.filter(event=dates[2]).update(booked=3)
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, weekdays=["2"]))
    plan = shown.context["plan"]
    assert all(row.moves_to is not None for row in plan.drift)
    assert [date.beside for date in plan.new if date.beside is not None] == []

    response = confirm_plan(
        admin_client,
        url,
        shown,
        tick=[date.pk for date in dates],
        untick=[dates[2].pk],
        follow=True,
    )

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    rows = {event.pk: event for event in Event.objects.filter(series=series, is_template=False)}
    booked = rows.pop(dates[2].pk)
    assert booked.starts_at == dates[2].starts_at, "the unticked booked date stays"
    assert booked.state != Event.RECURRING_STATUS_CANCELLED
    for date in dates:
        if date.pk != dates[2].pk:
            assert rows[date.pk].starts_at.astimezone(VIENNA).weekday() == 2
    booked_label = describe_instant(dates[2].starts_at, "Europe/Vienna")
    assert any(
        f"1 booked date kept where it was (left unticked): {booked_label}" in message
        for message in texts(response)
    ), texts(response)


def test_with_the_people_told_a_ticked_booked_date_moves_with_its_bookings(
    admin_client: Any,
) -> None:
    series = generated_series(name="Yoga")
    dates = occurrences(series)
    Seat.objects.filter(event=dates[2]).update(booked=3)
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, weekdays=["2"]))

    response = confirm_plan(admin_client, url, shown, tick=[date.pk for date in dates], follow=True)

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    moved = Event.objects.get(pk=dates[2].pk)
    assert moved.starts_at.astimezone(VIENNA).weekday() == 2
    assert moved.starts_at.astimezone(VIENNA).date() == (
        dates[2].starts_at.astimezone(VIENNA).date() + dt.timedelta(days=2)
    )
    assert Event.booked_among([moved]) == {moved.pk}
    weeks = [
        event.starts_at.isocalendar()[:2]
        for event in Event.objects.filter(series=series, is_template=False)
        if event.state != Event.RECURRING_STATUS_CANCELLED
    ]
    assert len(weeks) == len(set(weeks)), "no week holds two dates"


def test_unticking_every_date_moves_and_cancels_nothing(admin_client: Any) -> None:
    series = generated_series(name="Yoga")
    dates = occurrences(series)
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, weekdays=["2"]))

    response = confirm_plan(
        admin_client, url, shown, untick=[date.pk for date in dates], follow=True
    )

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    after = dict(
        Event.objects.filter(pk__in=[date.pk for date in dates]).values_list("pk", "starts_at")
    )
    assert after == {date.pk: date.starts_at for date in dates}, "every Monday where it was"
    assert not Event.objects.filter(
        pk__in=[date.pk for date in dates], state=Event.RECURRING_STATUS_CANCELLED
    ).exists()
