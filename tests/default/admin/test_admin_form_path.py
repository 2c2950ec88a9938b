"""The admin's add and change forms save through one service call, and a refusal stays on the form.

The page is shown again with what the organiser typed and each message under the
input to change; nothing of the refused save is kept. The change form writes
series columns, flags and rule in one ``update_series`` call: one series lock.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import path

from revel_recurring.admin import EventSeriesAdmin
from revel_recurring.admin import forms as admin_forms
from revel_recurring.exceptions import SeriesBusyError
from revel_recurring.models import EventSeries
from revel_recurring.services.toolbox.parking import park_failed_series
from tests.hosts.testapp.models import Event
from tests.support.admin import (
    ADD,
    change_url,
    confirm_plan,
    form_data,
    form_errors,
    generated_series,
    save_confirmed,
    series_locks,
    texts,
)
from tests.support.factories import UTC, occurrences

pytestmark = pytest.mark.django_db


@pytest.fixture
def salsa() -> Event:
    return Event.objects.create(
        title="Salsa", venue="Hall", starts_at=dt.datetime(2026, 1, 5, 19, tzinfo=UTC)
    )


def add_data(source: Event, **changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Salsa nights",
        "description": "Bring dancing shoes.",
        "is_active": "on",
        "generation_window_weeks": 4,
        "template_source": source.pk,
        "frequency": "WEEKLY",
        "interval": 2,
        "weekdays": ["2", "4"],
        "dtstart_0": "2026-01-07",
        "dtstart_1": "19:30",
        "timezone": "America/New_York",
    }
    data.update(changes)
    return data


def test_a_refused_add_shows_the_form_again_with_the_input_and_the_error_under_the_field(
    admin_client: Any, settings: Any, salsa: Event
) -> None:
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1  # the first window is too large

    response = admin_client.post(ADD, add_data(salsa))

    assert response.status_code == 200
    errors = form_errors(response)
    assert list(errors) == ["template_source"]
    assert "REVEL_RECURRING_MAX_GENERATION_BYTES" in errors["template_source"][0]
    page = response.content.decode()
    # Django's admin prints a field's errors inside that field's row.
    row = page[page.index('class="form-row') : page.index('id="id_template_source"')]
    assert "REVEL_RECURRING_MAX_GENERATION_BYTES" in row[row.rindex('class="form-row') :]
    form = response.context["adminform"].form
    assert form["name"].value() == "Salsa nights"
    assert form["interval"].value() == "2"
    assert form["weekdays"].value() == ["2", "4"]
    assert form["timezone"].value() == "America/New_York"
    assert 'value="19:30"' in page
    assert not EventSeries.objects.exists()
    assert Event.objects.count() == 1
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize(
    ("error", "field", "shown"),
    [
        (ValidationError({"interval": ["Too often."]}), "interval", "Too often."),
        (
            ValidationError({"title": ["This field cannot be blank."]}),
            "template_source",
            "The template's title: This field cannot be blank.",
        ),
        (SeriesBusyError("The series is busy; try again."), "__all__", "busy"),
    ],
)
def test_each_service_error_of_an_add_lands_where_the_organiser_can_act(
    admin_client: Any,
    monkeypatch: pytest.MonkeyPatch,
    salsa: Event,
    error: Exception,
    field: str,
    shown: str,
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise error

    monkeypatch.setattr(admin_forms, "create_series_from_event", refuse)

    response = admin_client.post(ADD, add_data(salsa))

    assert response.status_code == 200
    errors = form_errors(response)
    assert list(errors) == [field]
    assert shown in errors[field][0]
    assert response.context["adminform"].form["name"].value() == "Salsa nights"


def test_an_add_saves_once_and_the_admin_logs_the_new_series(
    admin_client: Any, salsa: Event
) -> None:
    response = admin_client.post(ADD, add_data(salsa), follow=True)

    series = EventSeries.objects.get()
    assert response.redirect_chain[-1][0] == "/admin/revel_recurring/eventseries/"
    assert (series.name, series.slug, series.description) == (
        "Salsa nights",
        "salsa-nights",
        "Bring dancing shoes.",
    )
    generated = len(occurrences(series))
    assert generated
    assert f"{generated} occurrences generated for Salsa nights." in texts(response)
    assert LogEntry.objects.get().object_id == str(series.pk)


def test_the_add_page_has_no_slug_input(admin_client: Any) -> None:
    # A new series' slug is made from its name; it is edited on the change page.
    assert "slug" not in admin_client.get(ADD).context["adminform"].form.fields


def test_the_change_form_writes_everything_under_one_series_lock(admin_client: Any) -> None:
    series = generated_series(name="Yoga")
    data = form_data(series, name="Thursday yoga", is_active="", auto_publish="on")

    with CaptureQueriesContext(connection) as queries:
        response = admin_client.post(change_url(series), data)

    assert response.status_code == 302, form_errors(response)
    assert series_locks(queries.captured_queries) == 1
    series.refresh_from_db()
    assert (series.name, series.is_active, series.auto_publish) == ("Thursday yoga", False, True)


def test_a_confirmed_plan_and_the_other_fields_are_saved_together(admin_client: Any) -> None:
    series = generated_series(name="Yoga")
    data = form_data(series, name="Thursday yoga", is_active="", weekdays=["3"])

    response = save_confirmed(admin_client, change_url(series), data)

    assert response.status_code == 302, form_errors(response)
    series.refresh_from_db()
    assert (series.name, series.is_active) == ("Thursday yoga", False)
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == [3]


def test_a_refusal_of_the_other_fields_undoes_the_confirmed_plan(
    admin_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The plan and update_series share the form's savepoint: the second refusing
    # leaves no rule, no cancelled date and no new date of the first.
    series = generated_series(name="Yoga")
    before = [(event.pk, event.state) for event in occurrences(series)]
    url = change_url(series)
    shown = admin_client.post(url, form_data(series, name="Thursday yoga", weekdays=["3"]))

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise SeriesBusyError("The series is busy; try again.")

    monkeypatch.setattr(admin_forms, "update_series", refuse)

    response = confirm_plan(admin_client, url, shown)

    assert response.status_code == 200
    assert "busy" in form_errors(response)["__all__"][0]
    series.refresh_from_db()
    assert series.name == "Yoga"
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == []
    assert [(event.pk, event.state) for event in occurrences(series)] == before
    assert not LogEntry.objects.exists()


def test_a_refused_change_keeps_the_old_name_and_shows_the_new_one(
    admin_client: Any, settings: Any
) -> None:
    series = generated_series(name="Yoga")
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1  # the new rule's next run is too large
    data = form_data(series, name="Thursday yoga", auto_publish="on", weekdays=["3"])

    response = save_confirmed(admin_client, change_url(series), data)

    assert response.status_code == 200
    assert "REVEL_RECURRING_MAX_GENERATION_BYTES" in form_errors(response)["__all__"][0]
    form = response.context["adminform"].form
    assert (form["name"].value(), form["weekdays"].value()) == ("Thursday yoga", ["3"])
    series.refresh_from_db()
    assert (series.name, series.auto_publish) == ("Yoga", False)
    assert series.recurrence_rule is not None
    assert series.recurrence_rule.weekdays == []  # Mondays, from the start's weekday


def test_saving_a_parked_series_without_touching_active_keeps_it_parked(
    admin_client: Any,
) -> None:
    series = generated_series(name="Yoga")
    park_failed_series(series.pk, ValueError("the host hook failed"))
    series.refresh_from_db()

    response = admin_client.post(change_url(series), form_data(series, name="Renamed"))

    assert response.status_code == 302, form_errors(response)
    series.refresh_from_db()
    assert series.name == "Renamed"
    assert series.parked_at is not None


def test_the_generated_window_stays_when_only_the_name_changes(admin_client: Any) -> None:
    series = generated_series(name="Yoga")
    before = [event.pk for event in occurrences(series)]

    admin_client.post(change_url(series), form_data(series, name="Renamed"))

    assert [event.pk for event in occurrences(series)] == before


class EventInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Event
    fields = ("title",)
    extra = 0


class SeriesWithEvents(EventSeriesAdmin):
    """A host's subclass with an inline: an invalid inline row refuses the whole page."""

    inlines = (EventInline,)


inline_site = admin.AdminSite(name="inline_admin")
inline_site.register(EventSeries, SeriesWithEvents)
urlpatterns = [path("inline-admin/", inline_site.urls)]


@pytest.mark.urls(__name__)
def test_an_inline_that_refuses_undoes_the_save_the_form_made(admin_client: Any) -> None:
    series = generated_series(name="Yoga")
    data = {
        **form_data(series, name="Renamed"),
        "events-TOTAL_FORMS": "1",
        "events-INITIAL_FORMS": "0",
        "events-MIN_NUM_FORMS": "0",
        "events-MAX_NUM_FORMS": "1000",
        "events-0-title": "x" * 300,  # longer than the field allows
    }

    response = admin_client.post(
        f"/inline-admin/revel_recurring/eventseries/{series.pk}/change/", data
    )

    assert response.status_code == 200
    assert response.context["inline_admin_formsets"][0].formset.errors
    series.refresh_from_db()
    assert series.name == "Yoga"
