"""The split flow on the testapp host: a new name reaches the dates and the feed, the
continuation's holiday settings, the halves' public pages and the original's last date."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client, override_settings

from revel_recurring import rules
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.splits import plan_split, split_series
from tests.hosts.testapp.models import Event
from tests.support.api import client, next_tuesday, user_with
from tests.support.factories import VIENNA, make_series, occurrences
from tests.support.split_flow import (
    SITE_ADAPTER,
    feed_events,
    feed_summaries,
    page_links,
    parsed_last_date,
    titles,
)

pytestmark = pytest.mark.django_db

# Years ahead of the wall clock, as the feed tests are.
NOW = dt.datetime(2030, 3, 1, 12, 0, tzinfo=VIENNA)
MONDAY = dt.datetime(2030, 3, 4, 10, 0, tzinfo=VIENNA)
AT = MONDAY + dt.timedelta(weeks=4)


def _mondays(**options: Any) -> EventSeries:
    series = make_series(name="Monday yoga", auto_publish=True, dtstart=MONDAY, **options)
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    return series


def test_a_split_changing_only_the_name_gives_its_dates_and_feed_the_new_name() -> None:
    series = _mondays()

    result = split_series(series, at=AT, name="Evening yoga", now=NOW)

    continuation = result.continuation
    assert len(titles(continuation)) > 4
    assert set(titles(continuation)) == {"Evening yoga"}
    assert set(titles(series)) == {"Monday yoga"}
    assert feed_summaries(continuation) == {"Evening yoga"}
    assert feed_summaries(series) == {"Monday yoga"}


def test_a_title_given_for_the_dates_is_kept_and_the_same_name_changes_no_title() -> None:
    series = _mondays()
    Event.objects.filter(series=series).update(title="Yoga")
    later = AT + dt.timedelta(weeks=2)

    first = split_series(
        series, at=AT, name="Evening yoga", template={"title": "Yoga with Anna"}, now=NOW
    )
    second = split_series(first.continuation, at=later, name="Evening yoga", now=NOW)

    assert set(titles(first.continuation)) == {"Yoga with Anna"}
    assert set(titles(second.continuation)) == {"Yoga with Anna"}


def test_the_plan_of_a_renamed_split_depends_on_the_title_it_gives() -> None:
    series = _mondays()

    follows = plan_split(series, at=AT, name="Evening yoga", now=NOW)
    given = plan_split(series, at=AT, name="Evening yoga", template={"title": "Yoga"}, now=NOW)

    assert follows.hash != given.hash


def test_holiday_settings_given_to_a_split_reach_the_continuation_only() -> None:
    series = _mondays()
    EventSeries.objects.filter(pk=series.pk).update(holiday_country="AT", holiday_policy="skip")
    series.refresh_from_db()

    plain = plan_split(series, at=AT, now=NOW)
    planned = plan_split(series, at=AT, holidays={"policy": "keep"}, now=NOW)
    result = split_series(series, at=AT, holidays={"policy": "keep", "subdivision": "9"}, now=NOW)

    assert planned.hash != plain.hash
    continuation = EventSeries.objects.get(pk=result.continuation.pk)
    assert (continuation.holiday_country, continuation.holiday_subdivision) == ("AT", "9")
    assert continuation.holiday_policy == "keep"
    series.refresh_from_db()
    assert (series.holiday_country, series.holiday_subdivision) == ("AT", "")
    assert series.holiday_policy == "skip"


def test_a_wrong_holiday_setting_refuses_the_split_by_its_field() -> None:
    series = _mondays()

    with pytest.raises(Exception) as refused:
        split_series(series, at=AT, holidays={"country": "XX"}, now=NOW)
    with pytest.raises(Exception) as unknown:
        split_series(series, at=AT, holidays={"calendar": "AT"}, now=NOW)

    assert "holiday_country" in refused.value.message_dict  # type: ignore[attr-defined]
    assert "holidays" in unknown.value.message_dict  # type: ignore[attr-defined]
    assert not EventSeries.objects.filter(split_from=series).exists()


def test_the_public_pages_of_the_two_halves_link_each_other(client: Client) -> None:
    series = _mondays()
    continuation = split_series(series, at=AT, name="Evening yoga", now=NOW).continuation

    assert page_links(client, series) == {
        "continued-by": (f"/series/{continuation.slug}/", "Evening yoga")
    }
    assert page_links(client, continuation) == {
        "continues": (f"/series/{series.slug}/", "Monday yoga")
    }
    page = client.get(f"/series/{series.slug}/").content.decode()
    assert "Continues as" in page
    assert "from Mon 1 Apr 2030 10:00 (Europe/Vienna)" in page
    assert page_links(client, _mondays()) == {}


def test_the_originals_last_date_names_the_continuation_even_without_addresses() -> None:
    series = _mondays()
    continuation = split_series(series, at=AT, name="Evening yoga", now=NOW).continuation

    last = parsed_last_date(series)

    assert str(last["DESCRIPTION"]) == (
        "This series continues as Evening yoga from Mon 1 Apr 2030 10:00 (Europe/Vienna)."
    )
    assert "URL" not in last
    assert last["SUMMARY"] == "Monday yoga"
    # Only the last date: the others stay as the master shows them.
    assert sum("DESCRIPTION" in event for event in feed_events(series)) == 1
    assert all("DESCRIPTION" not in event for event in feed_events(continuation))


def test_the_originals_last_date_carries_the_continuations_page_and_feed() -> None:
    series = _mondays()
    continuation = split_series(series, at=AT, name="Evening yoga", now=NOW).continuation

    with override_settings(REVEL_RECURRING_ADAPTER=SITE_ADAPTER):
        last = parsed_last_date(series)

    page = f"https://yoga.example/series/{continuation.slug}/"
    assert str(last["DESCRIPTION"]) == (
        "This series continues as Evening yoga from Mon 1 Apr 2030 10:00 (Europe/Vienna). "
        f"{page}\nSubscribe to its calendar to keep getting its dates: {page}calendar.ics"
    )
    assert str(last["URL"]) == page
    assert last["DTSTART"].dt == AT - dt.timedelta(weeks=1)


@pytest.mark.urls("tests.api_urls")
def test_the_api_split_renames_the_dates_and_takes_holiday_settings(
    django_user_model: Any,
) -> None:
    rights = ("view_eventseries", "change_eventseries")
    editor = client(user_with(django_user_model, "editor", *rights))
    series = make_series(name="Monday yoga", auto_publish=True, dtstart=next_tuesday())
    generate_series_events(series)
    at = rules.to_utc(occurrences(series)[2].starts_at)
    body = {
        "at": rules.format_instant(at),
        "name": "Evening yoga",
        "holidays": {"country": "AT", "policy": "keep"},
    }

    refused = editor.post(
        f"/api/recurring/series/{series.pk}/split/",
        {**body, "holidays": {"subdivision": "XX", "country": "AT"}},
        format="json",
    )
    planned = editor.post(f"/api/recurring/series/{series.pk}/split-plan/", body, format="json")
    given = editor.post(
        f"/api/recurring/series/{series.pk}/split-plan/",
        {**body, "template": {"title": "Yoga with Anna"}},
        format="json",
    )
    same = editor.post(
        f"/api/recurring/series/{series.pk}/split-plan/", {"at": body["at"]}, format="json"
    )
    response = editor.post(f"/api/recurring/series/{series.pk}/split/", body, format="json")

    assert [planned.json()["title"], given.json()["title"]] == ["Evening yoga", "Yoga with Anna"]
    assert same.json()["title"] == "Monday yoga"
    assert refused.status_code == 400
    assert set(refused.json()["holidays"]) == {"subdivision"}
    assert response.status_code == 201, response.json()
    answer = response.json()["continuation"]
    assert (answer["holidays"]["country"], answer["holidays"]["policy"]) == ("AT", "keep")
    continuation = EventSeries.objects.get(pk=answer["id"])
    assert len(titles(continuation)) > 3
    assert set(titles(continuation)) == {"Evening yoga"}
