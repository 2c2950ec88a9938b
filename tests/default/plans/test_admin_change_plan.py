"""A change of the rule or the window in the admin is confirmed on its plan page first.

The page lists the dates that stay, those that no longer fit (booked ones marked
and unticked), the new ones and the skipped ones; confirming re-posts the form
with the plan's hash and applies exactly that plan, the other fields saved with it.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.admin.models import LogEntry

from revel_recurring.instants import describe_instant
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.lifecycle import pause_series, update_series_recurrence
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import change_url, form_data, form_errors, generated_series, texts
from tests.support.factories import VIENNA, occurrences
from tests.support.forms import confirm_plan, drift_boxes, plan_inputs

pytestmark = pytest.mark.django_db

PLAN_TEMPLATE = "admin/revel_recurring/eventseries/change_plan.html"
TUE_THU = ["1", "3"]
# The rule ends after its first date (in the past): every generated Monday is off the
# rule with no date of it to move to, so the plan's ticks cancel.
ENDED = 1


def book(event: Event, places: int = 2) -> None:
    Seat.objects.filter(event=event).update(booked=places)


@pytest.fixture
def mondays() -> tuple[EventSeries, list[Event]]:
    """Eight Mondays generated, the third one booked."""
    series = generated_series(name="Yoga")
    dates = occurrences(series)
    book(dates[2])
    return series, dates


def cancelled(events: list[Event]) -> list[bool]:
    """Whether each of ``events`` is cancelled now."""
    states = dict(Event.objects.filter(pk__in=[e.pk for e in events]).values_list("pk", "state"))
    return [states[event.pk] == Event.RECURRING_STATUS_CANCELLED for event in events]


def test_with_nobody_told_a_rule_change_shows_the_plan_and_writes_nothing(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]], settings: Any
) -> None:
    """Nobody told: the booked Monday starts unticked, its Tuesday new beside it."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, dates = mondays

    response = admin_client.post(
        change_url(series), form_data(series, name="Tue/Thu yoga", weekdays=TUE_THU)
    )

    assert response.status_code == 200
    assert PLAN_TEMPLATE in [template.name for template in response.templates]
    plan = response.context["plan"]
    assert plan.stay == ()
    assert [row.id for row in plan.drift] == [event.pk for event in dates]
    assert {event.starts_at.weekday() for event in dates} == {0}
    # Each Monday moves to its week's Tuesday (the first date of the new rule in its
    # week); the Thursdays are new.
    assert {row.moves_to.astimezone(VIENNA).weekday() for row in plan.drift if row.moves_to} == {1}
    assert all(row.moves_to for row in plan.drift)
    # New: the Thursdays, and the Tuesday beside the booked Monday while it stays.
    assert {date.local.weekday() for date in plan.new if date.beside is None} == {3}
    assert [(date.local.weekday(), date.beside) for date in plan.new if date.beside] == [
        (1, dates[2].pk)
    ]
    # Unbooked dates ticked (they go, as a changed rule moves them in a calendar),
    # the booked one unticked and marked.
    boxes = drift_boxes(response)
    assert boxes == {str(event.pk): event != dates[2] for event in dates}
    page = response.content.decode()
    # The breadcrumbs lead back to the series, then name this step.
    assert f"{series.name}</a>\n&rsaquo; Confirm the new schedule" in page
    booked_line = page[page.index(f'value="{dates[2].pk}"') :]
    assert "booked (2 bookings)" in booked_line[: booked_line.index("</li>")]
    assert response.context["old_description"] in page
    assert plan.description in page
    assert "Tuesday" in plan.description
    hashes = [field["value"] for field in plan_inputs(response) if field["name"] == "_plan_hash"]
    assert hashes == [plan.hash]
    series.refresh_from_db()
    assert series.name == "Yoga"
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == []
    assert len(occurrences(series)) == len(dates)
    assert not LogEntry.objects.exists()


def test_confirming_applies_the_plan_cancelling_only_the_ticked_dates(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, name="Last yoga", count=ENDED))
    new = [date.start for date in shown.context["plan"].new]

    # The organiser leaves the first Monday unticked (it stays) and the booked one too.
    response = confirm_plan(admin_client, url, shown, untick=[dates[0].pk], follow=True)

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    series.refresh_from_db()
    assert series.name == "Last yoga"
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.count == ENDED
    assert cancelled(dates) == [False, True, False, True, True, True, True, True]
    assert Seat.objects.filter(event=dates[2], booked=2).exists()
    created = [e.starts_at for e in occurrences(series) if e.pk not in {d.pk for d in dates}]
    assert created == new
    # At once on the change page, no generation run needed.
    listed = {row.instant for row in response.context["upcoming"]}
    assert set(new) <= listed
    messages = texts(response)
    assert (
        f"Last yoga: new schedule applied: 0 dates moved, {len(new)} new dates, "
        f"{len(dates) - 2} dates cancelled." in messages
    )
    booked = describe_instant(dates[2].starts_at, "Europe/Vienna")
    assert f"Last yoga: 1 booked date kept where it was (left unticked): {booked}." in messages
    assert LogEntry.objects.get().object_id == str(series.pk)


def test_a_booked_date_ticked_on_the_page_is_cancelled_with_its_bookings(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, count=ENDED))

    response = confirm_plan(admin_client, url, shown, tick=[dates[2].pk])

    assert response.status_code == 302, form_errors(response)
    assert all(cancelled(dates))


def test_a_plan_made_stale_in_between_is_shown_afresh_and_nothing_is_written(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, name="Renamed", weekdays=TUE_THU))
    old_hash = shown.context["plan"].hash
    # Someone else cancels a Monday while the page is open.
    cancel_occurrence(series, dates[4].starts_at)

    response = confirm_plan(admin_client, url, shown)

    assert response.status_code == 200
    assert PLAN_TEMPLATE in [template.name for template in response.templates]
    assert response.context["outdated"]
    page = response.content.decode()
    assert "was changed by someone else since you saw the plan" in page
    fresh = response.context["plan"]
    assert fresh.hash != old_hash
    assert dates[4].pk not in [row.id for row in fresh.drift]
    hashes = [field["value"] for field in plan_inputs(response) if field["name"] == "_plan_hash"]
    assert hashes == [fresh.hash]
    series.refresh_from_db()
    assert series.name == "Yoga"
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == []
    assert cancelled(dates).count(True) == 1
    assert len(occurrences(series)) == len(dates)

    # Confirming the fresh plan applies it.
    again = confirm_plan(admin_client, url, response)
    assert again.status_code == 302, form_errors(again)
    series.refresh_from_db()
    assert series.name == "Renamed"


def test_a_ticked_date_booked_after_the_page_was_shown_outdates_the_plan(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, weekdays=TUE_THU))
    assert drift_boxes(shown)[str(dates[5].pk)] is True  # unbooked: ticked to go
    # A pupil books the sixth Monday while the page is open.
    book(dates[5], 1)

    response = confirm_plan(admin_client, url, shown)

    assert response.status_code == 200
    assert response.context["outdated"]
    fresh = response.context["plan"]
    assert next(row for row in fresh.drift if row.id == dates[5].pk).bookings == 1
    assert drift_boxes(response)[str(dates[5].pk)] is False  # booked now: unticked
    assert not any(cancelled(dates))
    assert Seat.objects.filter(event=dates[5], booked=1).exists()


def test_a_window_change_alone_is_planned_too(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    url = change_url(series)

    shown = admin_client.post(url, form_data(series, generation_window_weeks=12))

    plan = shown.context["plan"]
    assert [row.id for row in plan.stay] == [event.pk for event in dates]
    assert plan.drift == ()
    assert len(plan.new) == 4
    assert confirm_plan(admin_client, url, shown).status_code == 302
    assert len(occurrences(series)) == len(dates) + 4


def test_a_save_that_changes_neither_rule_nor_window_saves_directly(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays

    response = admin_client.post(
        change_url(series), form_data(series, name="Renamed", auto_publish="on")
    )

    assert response.status_code == 302, form_errors(response)
    series.refresh_from_db()
    assert (series.name, series.auto_publish) == ("Renamed", True)
    assert [event.pk for event in occurrences(series)] == [event.pk for event in dates]


def test_a_date_moved_by_hand_is_listed_without_a_checkbox_and_kept(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    moved = dates[5]
    moved.title = "Moved yoga"
    moved.save()  # any edit marks it modified
    assert Event.objects.get(pk=moved.pk).is_modified
    url = change_url(series)

    shown = admin_client.post(url, form_data(series, weekdays=TUE_THU))

    assert str(moved.pk) not in drift_boxes(shown)
    assert moved.pk in [row.id for row in shown.context["plan"].drift]
    assert "moved by hand" in shown.content.decode()
    response = confirm_plan(admin_client, url, shown, follow=True)
    assert cancelled([moved]) == [False]
    assert any("dates moved by hand are kept" in text for text in texts(response))


def test_a_rule_refused_when_applied_shows_the_form_with_the_error(
    admin_client: Any, settings: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, _dates = mondays
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, name="Renamed", weekdays=TUE_THU))
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1

    response = confirm_plan(admin_client, url, shown)

    assert response.status_code == 200
    assert "REVEL_RECURRING_MAX_GENERATION_BYTES" in form_errors(response)["__all__"][0]
    series.refresh_from_db()
    assert series.name == "Yoga"


def test_a_rule_changed_elsewhere_still_reads_as_the_old_rule_on_a_fresh_page(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, _dates = mondays
    update_series_recurrence(series, rule_changes={"weekdays": [2]})
    series.refresh_from_db()

    shown = admin_client.post(change_url(series), form_data(series, weekdays=TUE_THU))

    assert "Wednesday" in shown.context["old_description"]


def test_resuming_in_the_same_save_creates_the_new_dates_on_confirming(
    admin_client: Any, mondays: tuple[EventSeries, list[Event]]
) -> None:
    series, dates = mondays
    pause_series(series)
    series.refresh_from_db()
    url = change_url(series)

    shown = admin_client.post(url, form_data(series, is_active="on", weekdays=TUE_THU))

    assert shown.context["plan"].new == ()  # planned for the paused series
    assert 'id="revel-plan-resumes"' in shown.content.decode()
    response = confirm_plan(admin_client, url, shown, follow=True)
    series.refresh_from_db()
    assert series.is_active
    created = [e for e in occurrences(series) if e.pk not in {d.pk for d in dates}]
    assert created
    assert {e.starts_at.astimezone(VIENNA).weekday() for e in created} == {1, 3}
    assert any(f"{len(created)} new dates" in text for text in texts(response))
