"""Every way an instant is typed in reads it with the one parser: the same spellings
accepted (``Z``, offsets), the same mistakes refused in the same words, each in its
own form (a 400 keyed by the field, an admin message from the date form, a
CommandError, a failed task)."""

from __future__ import annotations

import datetime as dt
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from revel_recurring.admin.forms import DateButtonForm
from revel_recurring.instants import InvalidInstantError, parse_aware_instant
from revel_recurring.models import EventSeries
from revel_recurring.rules import format_instant
from revel_recurring.tasks import generate_all_series
from tests.hosts.testapp.models import Event
from tests.support.admin import change_url, generated_series, texts
from tests.support.factories import VIENNA, occurrences

pytestmark = pytest.mark.django_db
API = "/api/recurring/series/"
CANCELLED = Event.RECURRING_STATUS_CANCELLED
GARBAGE = "next tuesday"


def naive_text(instant: dt.datetime) -> str:
    """``instant``'s wall clock in Vienna, without its offset."""
    return instant.astimezone(VIENNA).replace(tzinfo=None).isoformat()


def offset_text(instant: dt.datetime) -> str:
    """``instant`` written in Vienna with its offset (``+01:00`` or ``+02:00``)."""
    return instant.astimezone(VIENNA).isoformat()


def message_for(value: str) -> str:
    with pytest.raises(InvalidInstantError) as caught:
        parse_aware_instant(value)
    return caught.value.message


def editor(django_user_model: Any) -> APIClient:
    user = django_user_model.objects.create_user(username="editor")
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="revel_recurring",
            codename__in=["view_eventseries", "change_eventseries"],
        )
    )
    api = APIClient()
    api.force_authenticate(django_user_model.objects.get(pk=user.pk))
    return api


def states(series: EventSeries) -> list[bool]:
    return [event.state == CANCELLED for event in occurrences(series)]


@pytest.mark.urls("tests.api_urls")
def test_the_api_field_reads_z_and_offsets_and_names_the_field_it_refuses(
    django_user_model: Any,
) -> None:
    series = generated_series()
    rows = occurrences(series)
    api = editor(django_user_model)
    url = f"{API}{series.pk}/cancel-occurrence/"

    naive = api.post(url, {"occurrence": naive_text(rows[0].starts_at)}, format="json")
    garbage = api.post(url, {"occurrence": GARBAGE}, format="json")
    z = api.post(url, {"occurrence": format_instant(rows[1].starts_at)}, format="json")
    offset = api.post(url, {"occurrence": offset_text(rows[2].starts_at)}, format="json")

    assert naive.status_code == 400
    assert naive.json() == {"occurrence": [message_for(naive_text(rows[0].starts_at))]}
    assert "has no UTC offset" in naive.json()["occurrence"][0]
    assert garbage.status_code == 400
    assert garbage.json() == {"occurrence": [message_for(GARBAGE)]}
    assert (z.status_code, offset.status_code) == (200, 200)
    assert states(series)[:4] == [False, True, True, False]


@pytest.mark.urls("tests.api_urls")
def test_the_api_date_filters_read_z_and_offsets_and_name_the_filter_they_refuse(
    django_user_model: Any,
) -> None:
    series = generated_series()
    rows = occurrences(series)
    api = editor(django_user_model)
    url = f"{API}{series.pk}/occurrences/?date_from_after="
    boundary = rows[3].starts_at

    def ids(value: str) -> list[Any]:
        response = api.get(url + value.replace("+", "%2B"))
        assert response.status_code == 200, response.json()
        return [row["id"] for row in response.json()["results"]]

    naive = api.get(url + naive_text(boundary))
    garbage = api.get(url + GARBAGE)

    assert ids(format_instant(boundary)) == [event.pk for event in rows[3:]]
    assert ids(offset_text(boundary)) == [event.pk for event in rows[3:]]
    assert naive.status_code == 400
    assert naive.json() == {"date_from_after": [message_for(naive_text(boundary))]}
    assert garbage.status_code == 400
    assert garbage.json() == {"date_from_after": [message_for(GARBAGE)]}


def test_the_command_reads_z_and_offsets_and_refuses_the_rest_in_one_line() -> None:
    series = generated_series(window_weeks=2)
    last = occurrences(series)[-1].starts_at
    further = [last + dt.timedelta(weeks=n) for n in (1, 2)]

    call_command(
        "revel_recurring_generate", "--until", format_instant(further[0]), stdout=StringIO()
    )
    after_z = len(occurrences(series))
    call_command("revel_recurring_generate", "--until", offset_text(further[1]), stdout=StringIO())

    assert (after_z, len(occurrences(series))) == (3, 4)
    for value in (naive_text(further[1]), GARBAGE):
        with pytest.raises(CommandError) as caught:
            call_command("revel_recurring_generate", "--until", value, stdout=StringIO())
        assert str(caught.value) == f"--until {value!r}: {message_for(value)}"


def test_the_admin_date_form_reads_z_and_offsets_and_refuses_the_rest() -> None:
    instant = dt.datetime(2027, 6, 1, 16, 30, tzinfo=dt.UTC)
    for text in ("2027-06-01T16:30:00Z", "2027-06-01T18:30:00+02:00"):
        form = DateButtonForm({"instant": text})
        assert form.is_valid(), form.errors
        assert form.cleaned_data["instant"] == instant
    for text in ("2027-06-01T18:30:00", GARBAGE):
        form = DateButtonForm({"instant": text})
        assert not form.is_valid()
        assert form.errors["instant"] == [message_for(text)]


def test_the_admin_buttons_read_z_and_offsets_and_show_the_form_error(admin_client: Any) -> None:
    series = generated_series(name="Yoga")
    rows = occurrences(series)
    url = change_url(series, "cancel-date")

    naive = admin_client.post(url, {"instant": naive_text(rows[0].starts_at)}, follow=True)
    garbage = admin_client.post(url, {"instant": GARBAGE}, follow=True)
    admin_client.post(url, {"instant": format_instant(rows[1].starts_at)})
    admin_client.post(url, {"instant": offset_text(rows[2].starts_at)})

    assert texts(naive) == [
        f"Yoga: {message_for(naive_text(rows[0].starts_at))} Pick a date from the list."
    ]
    assert texts(garbage) == [f"Yoga: {message_for(GARBAGE)} Pick a date from the list."]
    assert states(series)[:4] == [False, True, True, False]


def test_the_tasks_now_is_read_by_the_same_parser() -> None:
    assert generate_all_series(now="2027-06-01T18:30:00+02:00")["due"] == 0
    with pytest.raises(InvalidInstantError, match="has no UTC offset"):
        generate_all_series(now="2027-06-01T18:30:00")
