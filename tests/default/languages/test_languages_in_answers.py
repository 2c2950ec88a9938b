"""What the API and the admin's editing actions answer is in the language of the request.

Each refusal (a 400 naming a date, a 409 of the series' state) and each page of an
editing action (extra dates, splits, plans, holidays, stale dates) is asked for
twice, in English and in German, and the two answers are compared: a sentence the
German answer shares word for word with the English one was never translated.
Comparing with the English rendering needs no list of expected German sentences,
so a new message is held to it the day it is added.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone

from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import pause_series
from revel_recurring.services.splits import split_series
from tests.hosts.testapp.models import Event, Seat
from tests.support.admin import change_url, generated_series, mixed_series
from tests.support.api import client, next_tuesday, user_with
from tests.support.factories import VIENNA, make_series, occurrences
from tests.support.forms import confirm_plan, confirm_split, form_data, split_data, split_url
from tests.support.language_checks import (
    LOCALE_MIDDLEWARE,
    assert_no_english_in_german_answers,
    english_in,
    read,
)

API = "/api/recurring/series/"

# -- the API -----------------------------------------------------------------------------


def book(event: Event, places: int = 2) -> None:
    Seat.objects.filter(event=event).update(booked=places)


def tuesdays() -> tuple[EventSeries, list[Event]]:
    """Tuesdays 10:00 Vienna for six weeks; the fourth one booked."""
    series = make_series(name="Yoga", dtstart=next_tuesday(), window_weeks=6)
    generate_series_events(series)
    events = occurrences(series)
    book(events[3])
    return series, events


def url(series: EventSeries, action: str = "") -> str:
    return f"{API}{series.pk}/{action + '/' if action else ''}"


def _api_refusals(editor: Any) -> list[tuple[str, Callable[[str], Any]]]:
    """Each refusal as (what, ask): ``ask(language)`` sends the request in that language."""
    series, events = tuesdays()
    off_slot = events[2].starts_at + dt.timedelta(days=1)
    past = events[0].starts_at - dt.timedelta(weeks=30)
    paused = make_series(name="Pilates", dtstart=next_tuesday())
    pause_series(paused)

    def post(target: str, body: dict[str, Any]) -> Callable[[str], Any]:
        return lambda language: editor.post(
            target, body, format="json", HTTP_ACCEPT_LANGUAGE=language
        )

    def delete(target: str) -> Callable[[str], Any]:
        return lambda language: editor.delete(target, HTTP_ACCEPT_LANGUAGE=language)

    def ical(rrule: str, start: str = "DTSTART;TZID=Europe/Vienna:20270104T183000") -> Any:
        body = {"ical": f"{start}\n{rrule}"}
        return {"name": "Yoga", "recurrence": body, "template": {"title": "Yoga"}}

    rule_date = events[2].starts_at.isoformat()
    return [
        ("split off the rule", post(url(series, "split"), {"at": off_slot.isoformat()})),
        ("split in the past", post(url(series, "split-plan"), {"at": past.isoformat()})),
        (
            "split at the first date",
            post(url(series, "split"), {"at": events[0].starts_at.isoformat()}),
        ),
        ("add-date on a rule date", post(url(series, "add-date"), {"instant": rule_date})),
        ("add-date in the past", post(url(series, "add-date"), {"instant": past.isoformat()})),
        ("remove-date of no extra date", post(url(series, "remove-date"), {"instant": rule_date})),
        ("an iCal rule that cannot be expressed", post(API, ical("RRULE:FREQ=HOURLY;BYSETPOS=1"))),
        ("an iCal rule that cannot be read", post(API, ical("RRULE:FREQ=WEEKLY;WKST=XX"))),
        (
            "an iCal date without a zone",
            post(API, ical("RRULE:FREQ=WEEKLY", start="DTSTART:20270104T183000")),
        ),
        (
            "apply without a hash",
            post(url(series, "recurrence-apply"), {"recurrence": {"weekdays": [3]}}),
        ),
        (
            "apply with a hash not answered for this change",
            post(
                url(series, "recurrence-apply"),
                {"recurrence": {"weekdays": [3]}, "plan_hash": "0" * 80},
            ),
        ),
        (
            "cancel a booked date",
            post(url(series, "cancel-occurrence"), {"occurrence": events[3].starts_at.isoformat()}),
        ),
        (
            "restore a date not cancelled",
            post(url(series, "restore-occurrence"), {"occurrence": rule_date}),
        ),
        ("delete a booked series", delete(url(series))),
        ("generate a paused series", post(url(paused, "generate"), {})),
        (
            "an unknown page size",
            lambda language: editor.get(API, {"page_size": "0"}, HTTP_ACCEPT_LANGUAGE=language),
        ),
    ]


@pytest.mark.django_db
@pytest.mark.urls("tests.api_urls")
@override_settings(MIDDLEWARE=LOCALE_MIDDLEWARE)
def test_api_refusals_in_german_hold_no_english_sentence(django_user_model: Any) -> None:
    editor = client(
        user_with(
            django_user_model,
            "editor",
            "view_eventseries",
            "add_eventseries",
            "change_eventseries",
            "delete_eventseries",
        )
    )
    assert_no_english_in_german_answers(_api_refusals(editor))


# -- the admin ------------------------------------------------------------------------


def _page(response: Any) -> list[str]:
    """What a person reads on the page the response ends on, messages included."""
    return read(response.content).lines


def _said(response: Any) -> list[str]:
    """What the action told the person: the page's messages, error notes and form errors."""
    html = response.content.decode()
    lists = re.findall(r'<ul class="(?:messagelist|errorlist)[^"]*"[^>]*>(.*?)</ul>', html, re.S)
    items = [item for block in lists for item in re.findall(r"<li[^>]*>(.*?)</li>", block, re.S)]
    items += re.findall(r'<p class="errornote"[^>]*>(.*?)</p>', html, re.S)
    texts = (" ".join(re.sub(r"<[^>]+>", " ", item).split()) for item in items)
    return [text for text in texts if text]


def _admin_actions(admin_client: Any) -> list[tuple[str, Callable[[str], Any]]]:
    """Each editing action as (what, act): ``act(language)`` runs it on fresh data."""

    def wednesday() -> dt.datetime:
        today = timezone.now().astimezone(VIENNA).date()
        day = today + dt.timedelta(days=(2 - today.weekday()) % 7 or 7)
        return dt.datetime.combine(day, dt.time(18, 30), tzinfo=VIENNA)

    def add_rule_date(language: str) -> Any:
        yoga = generated_series(name="Yoga")
        when = occurrences(yoga)[2].starts_at.astimezone(VIENNA)
        posted = {"when_0": f"{when:%Y-%m-%d}", "when_1": f"{when:%H:%M}"}
        return admin_client.post(
            change_url(yoga, "add-date"), posted, follow=True, HTTP_ACCEPT_LANGUAGE=language
        )

    def add_past_date(language: str) -> Any:
        yoga = generated_series(name="Yoga")
        when = wednesday() - dt.timedelta(weeks=2)
        posted = {"when_0": f"{when:%Y-%m-%d}", "when_1": f"{when:%H:%M}"}
        return admin_client.post(
            change_url(yoga, "add-date"), posted, follow=True, HTTP_ACCEPT_LANGUAGE=language
        )

    def remove_no_extra_date(language: str) -> Any:
        yoga = generated_series(name="Yoga")
        slot = rules.format_instant(occurrences(yoga)[2].starts_at)
        return admin_client.post(
            change_url(yoga, "remove-date"),
            {"instant": slot},
            follow=True,
            HTTP_ACCEPT_LANGUAGE=language,
        )

    def split_off_the_rule(language: str) -> Any:
        yoga = generated_series(name="Yoga")
        tuesday = occurrences(yoga)[2].starts_at + dt.timedelta(days=1)
        return admin_client.post(
            split_url(yoga), split_data(yoga, tuesday), HTTP_ACCEPT_LANGUAGE=language
        )

    def split_no_longer_applies(language: str) -> Any:
        yoga = generated_series(name="Yoga")
        dates = occurrences(yoga)
        at = rules.to_utc(dates[4].recurrence_id)
        shown = admin_client.post(
            split_url(yoga), split_data(yoga, at), HTTP_ACCEPT_LANGUAGE=language
        )
        split_series(yoga, at=rules.to_utc(dates[2].recurrence_id))
        return confirm_split(admin_client, shown, HTTP_ACCEPT_LANGUAGE=language)

    def plan_made_stale(language: str) -> Any:
        yoga = generated_series(name="Yoga")
        dates = occurrences(yoga)
        book(dates[2])
        target = change_url(yoga)
        shown = admin_client.post(
            target, form_data(yoga, weekdays=["1", "3"]), HTTP_ACCEPT_LANGUAGE=language
        )
        cancel_occurrence(yoga, dates[4].starts_at)
        return confirm_plan(admin_client, target, shown, HTTP_ACCEPT_LANGUAGE=language)

    def wrong_holiday_setting(language: str) -> Any:
        yoga = generated_series(name="Yoga")
        return admin_client.post(
            change_url(yoga),
            form_data(yoga, holiday_country="AT", holiday_subdivision="BY"),
            HTTP_ACCEPT_LANGUAGE=language,
        )

    def cancel_stale(language: str) -> Any:
        yoga = mixed_series(name="Yoga")
        target = change_url(yoga, "cancel-stale")
        shown = admin_client.get(target, HTTP_ACCEPT_LANGUAGE=language)
        drifted = re.findall(r'name="occurrence" value="([^"]+)"', shown.content.decode())
        return admin_client.post(
            target,
            {"confirm": "yes", "occurrence": drifted},
            follow=True,
            HTTP_ACCEPT_LANGUAGE=language,
        )

    return [
        ("add a rule date", add_rule_date),
        ("add a past date", add_past_date),
        ("remove what is no extra date", remove_no_extra_date),
        ("split off the rule", split_off_the_rule),
        ("a split that no longer applies", split_no_longer_applies),
        ("a plan made stale", plan_made_stale),
        ("a wrong holiday setting", wrong_holiday_setting),
        ("cancel stale dates", cancel_stale),
    ]


@pytest.mark.django_db
@override_settings(MIDDLEWARE=LOCALE_MIDDLEWARE)
def test_admin_editing_actions_in_german_hold_no_english_sentence(admin_client: Any) -> None:
    leftovers = {}
    for what, act in _admin_actions(admin_client):
        english, german = act("en"), act("de")
        assert english.status_code == german.status_code == 200, what
        # The action's own message or form error, not only the page around it.
        said_in_english, said_in_german = _said(english), _said(german)
        assert said_in_english, what
        assert len(said_in_german) == len(said_in_english), what
        assert not set(said_in_german) & set(said_in_english), what
        found = english_in(_page(german), _page(english))
        if found:
            leftovers[what] = found
    assert not leftovers, "\n".join(f"{what}: {found}" for what, found in leftovers.items())
