"""Dates in the hour a fall-back night repeats: refused as twins, exported to their instants.

On 31 October 2027 Vienna's clocks go back from 03:00 to 02:00: 02:30 happens at
00:30 UTC (+02:00) and again at 01:30 UTC (+01:00). A calendar app reads a date on
the wall clock of its TZID, where the two are one time, so an extra date whose
wall-clock time is already a date of the series (its fold twin) is refused,
naming it; and every date the series holds there (stored before that refusal
existed, moved there by hand, or a date of the rule) is exported so that the three
consumers expand exactly the rows.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring import rules
from revel_recurring.ical import series_feed
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.plans import plan_recurrence_change
from tests.hosts.testapp.models import Event
from tests.support.admin import change_url, generated_series
from tests.support.api import client, user_with
from tests.support.factories import UTC, VIENNA, make_series, occurrences
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window

pytestmark = pytest.mark.django_db
API = "/api/recurring/series/"

# 02:30 on the fall-back night, first (summer time) and second (winter time), on
# Vienna's clock and as the UTC instants the app stores (an aware datetime with
# fold=1 compares unequal to any other zone's, PEP 495: tests compare in UTC).
LOCAL_FIRST = dt.datetime(2027, 10, 31, 2, 30, tzinfo=VIENNA)
LOCAL_SECOND = dt.datetime(2027, 10, 31, 2, 30, fold=1, tzinfo=VIENNA)
FIRST, SECOND = LOCAL_FIRST.astimezone(dt.UTC), LOCAL_SECOND.astimezone(dt.UTC)
NOW = dt.datetime(2027, 10, 1, 12, 0, tzinfo=VIENNA)


def test_the_two_instants_are_an_hour_apart_and_each_others_twin() -> None:
    assert (
        dt.datetime(2027, 10, 31, 0, 30, tzinfo=UTC),
        dt.datetime(2027, 10, 31, 1, 30, tzinfo=UTC),
    ) == (FIRST, SECOND)
    assert rules.fold_twin(LOCAL_FIRST, VIENNA) == SECOND
    assert rules.fold_twin(SECOND, VIENNA) == FIRST
    assert rules.fold_twin(FIRST + dt.timedelta(hours=2), VIENNA) is None
    assert rules.fold_twin(FIRST, dt.UTC) is None  # type: ignore[arg-type]


def mondays() -> EventSeries:
    """Mondays 10:00 from 4 October 2027, generated on 1 October for eight weeks."""
    series = make_series(dtstart=dt.datetime(2027, 10, 4, 10, 0, tzinfo=VIENNA), auto_publish=True)
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    return series


def sundays_at_half_past_two() -> EventSeries:
    """Sundays 02:30 Vienna: the rule's 31 October is the first 02:30 (+02:00)."""
    series = make_series(
        name="Night walk",
        dtstart=dt.datetime(2027, 10, 3, 2, 30, tzinfo=VIENNA),
        weekdays=[6],
        auto_publish=True,
    )
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    return series


def test_an_extra_date_on_the_wall_clock_of_another_extra_date_is_refused_naming_it() -> None:
    series = mondays()
    add_extra_date(series, FIRST, now=NOW)
    with pytest.raises(ValidationError) as caught:
        add_extra_date(series, SECOND, now=NOW)
    (message,) = caught.value.message_dict["instant"]
    assert message.startswith("Sun 31 Oct 2027 02:30 (Europe/Vienna, UTC+01:00) shows the same")
    assert "Sun 31 Oct 2027 02:30 (Europe/Vienna, UTC+02:00)" in message
    assert EventSeries.objects.get(pk=series.pk).extra_dates == ["2027-10-31T00:30:00Z"]
    # Either order: the second added is the one refused.
    other = mondays()
    add_extra_date(other, SECOND, now=NOW)
    with pytest.raises(ValidationError):
        add_extra_date(other, FIRST, now=NOW)
    # An hour earlier or later is another time on the clock, and welcome.
    add_extra_date(other, SECOND + dt.timedelta(hours=1), now=NOW)


def test_an_extra_date_on_the_wall_clock_of_a_rule_date_is_refused() -> None:
    series = sundays_at_half_past_two()
    with pytest.raises(ValidationError) as caught:
        add_extra_date(series, SECOND, now=NOW)
    assert "shows the same time on the clock" in caught.value.message_dict["instant"][0]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []


def test_a_plan_refuses_the_later_of_two_new_twins_naming_it() -> None:
    series = mondays()
    with pytest.raises(ValidationError) as caught:
        plan_recurrence_change(series, {"extra_dates": [SECOND, FIRST]}, now=NOW)
    (message,) = caught.value.message_dict["extra_dates"]
    assert message.startswith("Sun 31 Oct 2027 02:30 (Europe/Vienna, UTC+01:00)")


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    return client(user_with(django_user_model, "editor", "view_eventseries", "change_eventseries"))


def _api_series() -> EventSeries:
    # The API reads the real clock: a series that starts tomorrow, 31 October 2027 ahead.
    start = (timezone.now() + dt.timedelta(days=1)).astimezone(VIENNA)
    series = make_series(dtstart=start.replace(hour=10, minute=0, second=0, microsecond=0))
    generate_series_events(series)
    return series


@pytest.mark.urls("tests.api_urls")
def test_the_api_answers_400_naming_the_twin_on_add_date_patch_and_plan(
    editor: APIClient,
) -> None:
    series = _api_series()
    url = f"{API}{series.pk}/"
    first, second = LOCAL_FIRST.isoformat(), LOCAL_SECOND.isoformat()
    assert first.endswith("+02:00")
    assert second.endswith("+01:00")
    for path, body, where in (
        ("", {"recurrence": {"extra_dates": [first, second]}}, ("recurrence", "extra_dates")),
        (
            "recurrence-plan/",
            {"recurrence": {"extra_dates": [first, second]}},
            ("recurrence", "extra_dates"),
        ),
    ):
        call = editor.patch if not path else editor.post
        response = call(url + path, body, format="json")
        assert response.status_code == 400, (path, response.json())
        found: Any = response.json()
        for key in where:
            assert list(found) == [key], response.json()
            found = found[key]
        assert len(found) == 1, found
        assert "UTC+01:00) shows the same time" in found[0], found
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []

    added = editor.post(url + "add-date/", {"instant": first}, format="json")
    assert added.status_code in (200, 201), added.json()
    refused = editor.post(url + "add-date/", {"instant": second}, format="json")
    assert refused.status_code == 400, refused.json()
    assert list(refused.json()) == ["instant"]
    assert "UTC+01:00) shows the same time" in refused.json()["instant"][0]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == ["2027-10-31T00:30:00Z"]


@pytest.mark.urls("tests.urls")
def test_the_admin_refuses_the_twin_on_its_form_naming_it(admin_client: Any) -> None:
    yoga = generated_series(name="Yoga")
    add_extra_date(yoga, SECOND)
    # The admin reads a wall-clock time, and takes its first reading (+02:00).
    response = admin_client.post(
        change_url(yoga, "add-date"), {"when_0": "2027-10-31", "when_1": "02:30"}, follow=True
    )
    assert response.status_code == 200
    # On "Add a date" itself, where the page opens, with what was typed.
    assert response.redirect_chain[-1][0].endswith("#revel-add-date")
    form = response.context["add_date_form"]
    shown = [str(error) for error in form.errors["when"]]
    assert len(shown) == 1
    assert "(Europe/Vienna, UTC+02:00) shows the same time" in shown[0]
    assert form.data == {"when_0": "2027-10-31", "when_1": "02:30"}
    yoga.refresh_from_db()
    assert yoga.extra_dates == ["2027-10-31T01:30:00Z"]


def _store_extra_dates(series: EventSeries, *instants: dt.datetime) -> EventSeries:
    """Extra dates written as an older version stored them, without the twin check."""
    stored = rules.normalize_exdates([*series.extra_date_instants, *instants])
    EventSeries.objects.filter(pk=series.pk).update(extra_dates=stored)
    series.refresh_from_db()
    # Generation steps back to create the dates it had passed.
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=NOW)
    generate_series_events(EventSeries.objects.get(pk=series.pk), now=NOW)
    series.refresh_from_db()
    return series


def _fold_feeds() -> list[EventSeries]:
    # Two extra dates that are twins, on a Monday series.
    twins = _store_extra_dates(mondays(), FIRST, SECOND)
    # The rule's own 02:30 and a stored extra date at the second 02:30.
    night = _store_extra_dates(sundays_at_half_past_two(), SECOND)
    # The rule's 02:30, renamed; the week after, moved into the repeated hour; a
    # third cancelled, which was the rule's 02:30 on the fall-back night.
    renamed = sundays_at_half_past_two()
    by_start = {event.starts_at: event for event in occurrences(renamed)}
    Event.objects.filter(pk=by_start[FIRST].pk).update(title="Night walk (lanterns)")
    moved = by_start[FIRST - dt.timedelta(weeks=1)]
    Event.objects.filter(pk=moved.pk).update(
        starts_at=SECOND,
        ends_at=SECOND + dt.timedelta(hours=1),
    )
    cancelled = sundays_at_half_past_two()
    cancel_occurrence(cancelled, FIRST, now=NOW)
    return [twins, night, renamed, cancelled]


def test_every_date_in_the_fold_has_a_row() -> None:
    twins, night, renamed, cancelled = _fold_feeds()
    assert {FIRST, SECOND} <= {e.starts_at for e in occurrences(twins)}
    assert {FIRST, SECOND} <= {e.starts_at for e in occurrences(night)}
    assert [e.starts_at for e in occurrences(renamed)].count(SECOND) == 1
    assert [e.starts_at for e in occurrences(renamed)].count(FIRST) == 1
    assert FIRST not in [instant for instant, _ in shown_instances(cancelled)]


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_dates_in_the_fold_expand_to_exactly_their_rows(consumer: str) -> None:
    series_list = _fold_feeds()
    jobs = [(series_feed(series, now=NOW).body, *window(series)) for series in series_list]
    expected = [shown_instances(series) for series in series_list]
    assert all(expected)
    assert expand_many(consumer, jobs) == expected
