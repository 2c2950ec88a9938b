"""Holiday rules in the admin on the testapp host: the "Holidays" fieldset, its change
confirmed on the change plan page like a rule change, and the holiday names in the
upcoming list and on the plan page, in the active language.

The admin reads the real clock: each test builds its weekly series on the next
Austrian holiday (``tests.support.holiday_dates``), a week after the series' first date.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.utils import timezone, translation

from revel_recurring.admin.holidays import local_day
from revel_recurring.models import EventSeries
from revel_recurring.services.editing import update_series
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event
from tests.support.admin import ADD, change_url, form_data, form_errors, texts
from tests.support.factories import VIENNA, make_series, occurrences
from tests.support.forms import confirm_plan
from tests.support.holiday_dates import WINDOW_WEEKS, at, holiday_name, next_holiday

pytestmark = pytest.mark.django_db

PLAN_TEMPLATE = "admin/revel_recurring/eventseries/change_plan.html"


@pytest.fixture
def holiday() -> dt.date:
    return next_holiday("AT", VIENNA)


def weekly_on(holiday: dt.date, **holidays: Any) -> EventSeries:
    """Weekly at 10:00 Vienna from a week before ``holiday``, its window generated."""
    series = make_series(
        dtstart=at(holiday - dt.timedelta(weeks=1), VIENNA), window_weeks=WINDOW_WEEKS
    )
    if holidays:
        update_series(series, holidays=holidays)
    generate_series_events(series, now=timezone.now())
    series.refresh_from_db()
    return series


def notes(response: Any) -> dict[dt.datetime, str]:
    """The upcoming list's holiday notes by the row's instant."""
    return {row.instant: row.holiday_note for row in response.context["upcoming"]}


def english(holiday: dt.date) -> str:
    return holiday_name("AT", holiday, "en_US")


def test_the_change_page_shows_the_holidays_fieldset_and_names_each_holiday_date(
    admin_client: Any, holiday: dt.date
) -> None:
    skipping = weekly_on(holiday, country="AT")
    shifting = weekly_on(holiday, country="AT", policy="shift")
    slot = at(holiday, VIENNA)

    skipped = admin_client.get(change_url(skipping))
    moved = admin_client.get(change_url(shifting))

    form = moved.context["adminform"].form
    assert form["holiday_country"].value() == "AT"
    assert form["holiday_policy"].value() == "shift"
    fieldsets = [name for name, _options in moved.context["adminform"].fieldsets]
    assert "Holidays" in fieldsets
    assert notes(skipped)[slot] == f"Skipped: {english(holiday)}"
    page = skipped.content.decode()
    assert f"Skipped: {english(holiday)}" in page
    # A skipped holiday date can be kept anyway: its row offers Restore.
    row = next(row for row in skipped.context["upcoming"] if row.instant == slot)
    assert row.cancelled
    assert row.event_id is None
    day_after = slot + dt.timedelta(days=1)
    expected = f"Moved from {local_day(slot, 'Europe/Vienna')} ({english(holiday)})"
    assert notes(moved)[day_after] == expected
    assert expected in moved.content.decode()
    assert all(note == "" for instant, note in notes(moved).items() if instant != day_after)


def test_the_form_shows_the_categories_as_one_text(admin_client: Any, holiday: dt.date) -> None:
    series = weekly_on(holiday, country="AT", categories=["school", "bank"])

    form = admin_client.get(change_url(series)).context["adminform"].form

    assert form["holiday_categories"].value() == "bank, school"
    assert form["holiday_policy"].value() == "skip"


def test_the_holiday_names_follow_the_active_language(admin_client: Any, holiday: dt.date) -> None:
    series = weekly_on(holiday, country="AT")
    slot = at(holiday, VIENNA)

    with translation.override("de"):
        german = admin_client.get(change_url(series))

    assert holiday_name("AT", holiday, "de") in notes(german)[slot]
    assert holiday_name("AT", holiday, "de") != english(holiday)


def test_a_holiday_change_is_confirmed_on_the_plan_page_first(
    admin_client: Any, holiday: dt.date
) -> None:
    series = weekly_on(holiday)
    on_holiday = next(
        e for e in occurrences(series) if e.starts_at.astimezone(VIENNA).date() == holiday
    )
    url = change_url(series)

    shown = admin_client.post(url, form_data(series, holiday_country="at", holiday_policy="skip"))

    assert shown.status_code == 200, form_errors(shown)
    assert PLAN_TEMPLATE in [template.name for template in shown.templates]
    plan = shown.context["plan"]
    assert plan.changed == frozenset({"holidays"})
    assert [row.id for row in plan.drift] == [on_holiday.pk]
    page = shown.content.decode()
    assert f"Skipped: {english(holiday)}" in page
    assert shown.context["old_holidays"] == "None"
    assert shown.context["new_holidays"] == "Austria: Skip the date"
    series.refresh_from_db()
    assert series.holiday_country == ""
    assert not LogEntry.objects.exists()

    response = confirm_plan(admin_client, url, shown, follow=True)

    assert response.redirect_chain[-1][0] == url, form_errors(response)
    series.refresh_from_db()
    assert (series.holiday_country, series.holiday_policy) == ("AT", "skip")
    on_holiday.refresh_from_db()
    assert on_holiday.state == on_holiday.RECURRING_STATUS_CANCELLED
    assert "new schedule applied" in " ".join(texts(response))
    assert notes(response)[at(holiday, VIENNA)] == f"Skipped: {english(holiday)}"


def test_the_plan_page_names_the_date_a_shift_moves(admin_client: Any, holiday: dt.date) -> None:
    series = weekly_on(holiday, country="AT")
    slot = at(holiday, VIENNA)
    url = change_url(series)

    shown = admin_client.post(url, form_data(series, holiday_policy="shift"))

    assert shown.status_code == 200, form_errors(shown)
    moved = [line for line in shown.context["new_lines"] if line.note]
    expected = f"Moved from {local_day(slot, 'Europe/Vienna')} ({english(holiday)})"
    assert [(line.start, line.note) for line in moved] == [(slot + dt.timedelta(days=1), expected)]
    assert expected in shown.content.decode()
    assert shown.context["new_holidays"] == "Austria: Move the date to the next free day"

    confirm_plan(admin_client, url, shown)

    starts = [event.starts_at for event in occurrences(series)]
    assert slot + dt.timedelta(days=1) in starts
    assert slot not in starts


def test_a_wrong_holiday_setting_shows_under_its_field_and_writes_nothing(
    admin_client: Any, holiday: dt.date
) -> None:
    series = weekly_on(holiday)

    response = admin_client.post(
        change_url(series), form_data(series, holiday_country="AT", holiday_subdivision="BY")
    )

    assert response.status_code == 200
    errors = form_errors(response)
    assert list(errors) == ["holiday_subdivision"], errors
    assert "AT has no subdivision 'BY'" in errors["holiday_subdivision"][0]
    series.refresh_from_db()
    assert series.holiday_country == ""


def test_a_policy_without_a_country_saves_directly(admin_client: Any, holiday: dt.date) -> None:
    series = weekly_on(holiday)
    before = [event.pk for event in occurrences(series)]

    response = admin_client.post(change_url(series), form_data(series, holiday_policy="keep"))

    assert response.status_code == 302, form_errors(response)
    series.refresh_from_db()
    assert (series.holiday_country, series.holiday_policy) == ("", "keep")
    assert [event.pk for event in occurrences(series)] == before


def test_restoring_a_skipped_holiday_date_from_the_list_keeps_it(
    admin_client: Any, holiday: dt.date
) -> None:
    series = weekly_on(holiday, country="AT")
    slot = at(holiday, VIENNA)
    restore = change_url(series, "restore-date")

    response = admin_client.post(restore, {"instant": slot.isoformat()}, follow=True)

    assert response.status_code == 200
    series.refresh_from_db()
    assert series.holidays_kept == [slot.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")]
    generate_series_events(series, now=timezone.now())
    page = admin_client.get(change_url(series))
    assert notes(page)[slot] == f"Kept on {english(holiday)}"
    assert slot in [event.starts_at for event in occurrences(series)]


def test_a_form_posted_with_empty_holiday_fields_saves_with_the_default_policy(
    admin_client: Any, holiday: dt.date
) -> None:
    series = weekly_on(holiday)
    data = form_data(series, name="Renamed")
    # A host's own form or a script: the holiday fields sent empty.
    data.update(
        holiday_country="", holiday_subdivision="", holiday_categories="", holiday_policy=""
    )

    response = admin_client.post(change_url(series), data)

    assert response.status_code == 302, form_errors(response)
    series.refresh_from_db()
    assert series.name == "Renamed"
    assert (series.holiday_country, series.holiday_policy) == ("", "skip")


def test_the_add_page_takes_the_holiday_calendar_and_leaves_an_event_on_a_moved_date(
    admin_client: Any, holiday: dt.date
) -> None:
    slot = at(holiday, VIENNA, 9)
    # A one-off event on the holiday: its date moves, so it is not adopted.
    source = Event.objects.create(
        title="Park run", venue="Park", starts_at=slot, state=Event.RECURRING_STATUS_OPEN
    )
    first = slot - dt.timedelta(weeks=1)
    data = {
        "name": "Park run",
        "is_active": "on",
        "generation_window_weeks": WINDOW_WEEKS,
        "template_source": source.pk,
        "frequency": "WEEKLY",
        "interval": 1,
        "weekdays": [str(first.weekday())],
        "dtstart_0": first.date().isoformat(),
        "dtstart_1": "09:00",
        "timezone": "Europe/Vienna",
        "holiday_country": "AT",
        "holiday_policy": "shift",
    }

    response = admin_client.post(ADD, data, follow=True)

    assert response.status_code == 200
    series = EventSeries.objects.get(name="Park run")
    assert (series.holiday_country, series.holiday_policy) == ("AT", "shift")
    source.refresh_from_db()
    assert source.series_id is None
    starts = [event.starts_at for event in occurrences(series)]
    assert slot + dt.timedelta(days=1) in starts
    assert slot not in starts
