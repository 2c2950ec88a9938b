"""The admin's "Change this and following…": a form, the split's plan, then the split.

Each upcoming date the series can be split at links to the form, pre-filled from
the series; submitting shows the plan (what moves, what stays as drift, what is
created) and writes nothing; confirming applies exactly that plan and lands on
the continuation, whose page links back to the original.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from revel_recurring import rules
from revel_recurring.instants import describe_instant
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.splits import split_series
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import change_url, generated_series, texts
from tests.support.factories import VIENNA, make_series, occurrences
from tests.support.forms import confirm_split, drift_boxes, split_data, split_url

pytestmark = pytest.mark.django_db

FORM = "admin/revel_recurring/eventseries/split.html"
PLAN = "admin/revel_recurring/eventseries/split_plan.html"
TUESDAY = ["1"]


def book(event: Event, places: int = 2) -> None:
    Seat.objects.filter(event=event).update(booked=places)


def templates_of(response: Any) -> list[str]:
    return [template.name for template in response.templates]


@pytest.fixture
def mondays() -> tuple[EventSeries, list[Event]]:
    """Eight upcoming Mondays of a series begun in the past; the fourth one booked."""
    series = generated_series(name="Yoga")
    dates = occurrences(series)
    book(dates[3])
    return series, dates


def slot(event: Event) -> Any:
    assert event.recurrence_id is not None
    return rules.to_utc(event.recurrence_id)


def label(event: Event) -> str:
    return describe_instant(event.starts_at, "Europe/Vienna")


def test_each_upcoming_date_links_to_the_split_form_but_the_rules_first(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    page = admin_client.get(change_url(series))
    assert [row.split_at for row in page.context["upcoming"]] == [
        rules.format_instant(slot(event)) for event in dates
    ]
    links = re.findall(r'class="revel-split-link" href="([^"]+)"', page.content.decode())
    assert len(links) == len(dates)
    followed = admin_client.get(html.unescape(links[2]))
    assert followed.status_code == 200
    assert followed.context["at"] == rules.format_instant(slot(dates[2]))

    # A series whose first date is still to come: no link on that one.
    ahead = make_series(name="Ahead", dtstart=dates[0].starts_at)
    generate_series_events(ahead, now=timezone.now())
    rows = admin_client.get(change_url(ahead)).context["upcoming"]
    assert rows[0].split_at is None
    assert all(row.split_at for row in rows[1:])


def test_the_form_is_pre_filled_from_the_series_rule_and_template(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays

    response = admin_client.get(split_url(series, slot(dates[2])))

    assert response.status_code == 200
    assert FORM in templates_of(response)
    form, template_form = response.context["form"], response.context["template_form"]
    assert form["name"].value() == "Yoga"
    assert form["frequency"].value() == "WEEKLY"
    assert form.initial["dtstart"] == dates[2].starts_at.astimezone(VIENNA).replace(tzinfo=None)
    assert form["timezone"].value() == "Europe/Vienna"
    assert set(template_form.fields) == set(Event.PROPAGATABLE_FIELDS)
    template = series.get_template()
    assert template is not None
    assert template_form["title"].value() == template.title
    assert template_form["venue"].value() == template.venue
    assert label(dates[2]) in response.content.decode()


def test_with_nobody_told_submitting_shows_the_plan_with_the_booked_drift_and_writes_nothing(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]], settings: Any
) -> None:
    """Nobody told: the booked Monday starts unticked and keeps its place."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, dates = mondays
    at = slot(dates[2])

    response = admin_client.post(
        split_url(series),
        split_data(series, at, template={"venue": "Hall 2"}, weekdays=TUESDAY, name="Tue yoga"),
    )

    assert response.status_code == 200
    assert PLAN in templates_of(response)
    plan = response.context["plan"]
    assert plan.stay == ()
    assert [row.id for row in plan.drift] == [event.pk for event in dates[2:]]
    assert [row.id for row in plan.booked_drift] == [dates[3].pk]
    assert plan.new
    assert {date.local.weekday() for date in plan.new} == {1}
    page = response.content.decode()
    line = page[page.index(f'data-id="{dates[3].pk}"') :]
    line = line[: line.index("</li>")]
    assert "booked (2 bookings)" in line
    tuesday = describe_instant(dates[3].starts_at + dt.timedelta(days=1), "Europe/Vienna")
    assert f"moves to {tuesday}" in line
    # The booked Monday starts unticked, the others ticked to move to their Tuesdays.
    assert drift_boxes(response) == {str(event.pk): event.pk != dates[3].pk for event in dates[2:]}
    assert response.context["old_description"] in page
    assert "Tuesday" in plan.description
    assert plan.description in page
    assert label(dates[1]) == response.context["last_label"]
    assert "Venue: Hall 2" in page
    series.refresh_from_db()
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.until is None
    assert EventSeries.objects.count() == 1
    assert {event.series_id for event in occurrences(series)} == {series.pk}


def test_with_nobody_told_confirming_splits_and_lands_on_the_continuation_linked_both_ways(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]], settings: Any
) -> None:
    """Nobody told: the booked Monday starts unticked and keeps its place."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, dates = mondays
    at = slot(dates[2])
    shown = admin_client.post(
        split_url(series),
        split_data(series, at, template={"venue": "Hall 2"}, weekdays=TUESDAY, name="Tue yoga"),
    )
    new = [date.start for date in shown.context["plan"].new]

    response = confirm_split(admin_client, shown, follow=True)

    continuation = EventSeries.objects.get(split_from=series)
    assert response.redirect_chain[-1][0] == change_url(continuation)
    assert continuation.name == "Tue yoga"
    assert continuation.recurrence_rule is not None
    assert continuation.recurrence_rule.weekdays == [1]
    moved = Event.objects.filter(pk__in=[event.pk for event in dates[2:]])
    assert {event.series_id for event in moved} == {continuation.pk}
    # Nothing cancelled; the unbooked Mondays went on to their Tuesdays, the booked one
    # keeps its place, its booking and its old venue (drift), a Tuesday beside it.
    assert not moved.filter(state=Event.RECURRING_STATUS_CANCELLED).exists()
    assert Seat.objects.filter(event=dates[3], booked=2).exists()
    starts = {event.pk: event.starts_at for event in moved}
    assert starts[dates[3].pk] == dates[3].starts_at
    assert all(
        starts[event.pk] == event.starts_at + dt.timedelta(days=1)
        for event in dates[2:]
        if event.pk != dates[3].pk
    )
    created = [e.starts_at for e in occurrences(continuation) if e.pk not in {d.pk for d in dates}]
    assert created == new
    assert continuation.get_template().venue == "Hall 2"
    series.refresh_from_db()
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.until == slot(dates[1])
    messages = texts(response)
    assert (
        f"Yoga ends on {label(dates[1])}; Tue yoga continues it from {label(dates[2])} with "
        f"{len(dates) - 2} open dates (and 0 cancelled dates): {len(dates) - 3} dates moved "
        f"to Tuesday, 10:00, 0 dates cancelled, {len(new)} new date." in messages
    ), messages
    assert (
        f"Tue yoga: 1 booked date kept where it was (left unticked): {label(dates[3])}." in messages
    ), messages
    page = response.content.decode()
    assert 'id="revel-continues"' in page
    assert f'Continues <a href="{change_url(series)}">Yoga</a> from {label(dates[2])}.' in page

    original = admin_client.get(change_url(series)).content.decode()
    assert (
        f'Continued by <a href="{change_url(continuation)}">Tue yoga</a> from {label(dates[2])}.'
        in original
    )


def test_a_plan_made_stale_in_between_is_shown_afresh_and_nothing_is_written(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    shown = admin_client.post(
        split_url(series), split_data(series, slot(dates[2]), weekdays=TUESDAY)
    )
    old_hash = shown.context["plan"].hash
    cancel_occurrence(series, dates[5].starts_at)

    response = confirm_split(admin_client, shown)

    assert response.status_code == 200
    assert PLAN in templates_of(response)
    assert response.context["outdated"]
    assert "was changed by someone else since you saw the plan" in response.content.decode()
    assert response.context["plan"].hash != old_hash
    assert not EventSeries.objects.filter(split_from=series).exists()

    again = confirm_split(admin_client, response)
    assert again.status_code == 302
    assert EventSeries.objects.filter(split_from=series).exists()


def test_a_split_that_no_longer_applies_says_why_and_links_back(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    shown = admin_client.post(split_url(series), split_data(series, slot(dates[4])))
    # Someone else splits earlier: the planned date is no longer the original's.
    split_series(series, at=slot(dates[2]))

    response = confirm_split(admin_client, shown)

    assert response.status_code == 200
    page = response.content.decode()
    assert "this split no longer applies; nothing was saved" in page
    assert "is not a date of this series" in page
    assert f'href="{change_url(series)}" id="revel-split-back"' in page
    assert EventSeries.objects.count() == 2


def test_going_back_from_the_plan_shows_the_form_as_typed(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    shown = admin_client.post(
        split_url(series), split_data(series, slot(dates[2]), weekdays=TUESDAY, name="Tue yoga")
    )

    response = confirm_split(admin_client, shown, button="_edit")

    assert FORM in templates_of(response)
    assert response.context["form"]["name"].value() == "Tue yoga"
    assert response.context["form"]["weekdays"].value() == TUESDAY
    assert EventSeries.objects.count() == 1


def test_refusals_show_under_the_field_and_the_date_above_the_form(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    url = split_url(series)
    tuesday = dates[2].starts_at + dt.timedelta(days=1)

    not_a_date = admin_client.post(url, split_data(series, tuesday))
    too_early = admin_client.post(
        url, split_data(series, slot(dates[2]), dtstart_0=dates[1].starts_at.strftime("%Y-%m-%d"))
    )
    bad_template = admin_client.post(
        url, split_data(series, slot(dates[2]), template={"capacity": "-3"})
    )

    assert FORM in templates_of(not_a_date)
    assert any("is not a date of this series" in text for text in not_a_date.context["about_at"])
    assert 'id="revel-split-at-errors"' in not_a_date.content.decode()
    assert "cannot start before the split date" in str(too_early.context["form"].errors["dtstart"])
    assert "capacity" in bad_template.context["template_form"].errors
    assert EventSeries.objects.count() == 1


def test_view_only_staff_cannot_open_the_split(client: Any, django_user_model: Any) -> None:
    series = generated_series(name="Yoga")
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_eventseries"))
    client.force_login(viewer)
    at = slot(occurrences(series)[2])

    assert client.get(split_url(series, at)).status_code == 403
    assert client.post(split_url(series), split_data(series, at)).status_code == 403
    page = client.get(change_url(series)).content.decode()
    assert "Change this and following…" not in page


def test_a_link_to_a_date_the_series_cannot_split_at_says_so_above_the_form(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    tuesday = slot(dates[2]) + dt.timedelta(days=1)
    ahead = make_series(name="Ahead", dtstart=dates[0].starts_at)
    past = slot(dates[0]) - dt.timedelta(weeks=2)

    for each, at in ((ahead, slot(dates[0])), (series, tuesday), (series, past)):
        response = admin_client.get(split_url(each, at))
        assert response.status_code == 200
        assert "is not a date this series can be split at" in response.context["about_at"][0]
        assert 'id="revel-split-at-errors"' in response.content.decode()
    assert admin_client.get(split_url(series, slot(dates[2]))).context["about_at"] == []
