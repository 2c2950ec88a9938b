"""Plans count enrolled users beside bookings (tests/hosts/testapp): the service, the API
(recurrence-plan/, split-plan/, drift/), the admin pages, and a bounded number of reads."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.exceptions import PlanOutdatedError
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.enrolments import enrol
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.splits import plan_split, split_series
from tests.support.admin import change_url, form_data, generated_series
from tests.support.drift import drift_without_partners
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.forms import split_data, split_url
from tests.support.plan_enrolments import (
    check_cadence_plan_counts,
    check_split_plan_counts,
    day_of,
    make_users,
)

pytestmark = pytest.mark.django_db

API = "/api/recurring/series/"


def test_a_cadence_plan_counts_the_enrolled_users_on_each_date_and_new_date() -> None:
    check_cadence_plan_counts(
        weekly_series(auto_publish=True), make_users("anna", "ben", "cleo"), now=NOW
    )


def test_a_split_plan_counts_the_enrolments_the_continuation_takes_on() -> None:
    # Mondays; the continuation adds Thursdays.
    check_split_plan_counts(
        weekly_series(auto_publish=True),
        make_users("anna", "ben", "cleo"),
        recurrence={"weekdays": [0, 3]},
        now=NOW,
    )


def test_new_dates_created_as_drafts_book_nobody() -> None:
    series = weekly_series(auto_publish=False)
    (anna,) = make_users("anna")
    enrol(series, anna, now=NOW)

    plan = plan_recurrence_change(series, {"generation_window_weeks": 10}, now=NOW)

    assert plan.enrolled == 1
    assert plan.new
    assert {date.enrolled for date in plan.new} == {0}
    assert plan.enrolled_new == 0


def test_counting_enrolled_users_reads_twice_whatever_the_users_and_dates() -> None:
    """Nobody enrolled: no read at all (the series read says so). Enrolled: the enrolments
    and one aggregate over the dates, for 1 user on 10 dates as for 6 on 40."""
    counts = []
    for users, weeks in ((0, 10), (1, 10), (6, 40)):
        series = weekly_series(auto_publish=True, name=f"Yoga {users}")
        for user in make_users(*(f"u{users}x{n}" for n in range(users))):
            enrol(series, user, now=NOW)
        with CaptureQueriesContext(connection) as queries:
            plan = plan_recurrence_change(series, {"generation_window_weeks": weeks}, now=NOW)
        assert plan.enrolled == users
        assert plan.enrolled_new == users
        counts.append(len(queries.captured_queries))
    assert counts[1] == counts[2] == counts[0] + 2


@pytest.mark.urls("tests.api_urls")
def test_the_api_plans_and_drift_show_the_enrolled_users(admin_user: Any) -> None:
    series = generated_series(name="Yoga", auto_publish=True)
    rows = occurrences(series)
    anna, ben = make_users("anna", "ben")
    enrol(series, anna, now=timezone.now())
    enrol(series, ben, starts_on=day_of(series, rows[4]), now=timezone.now())
    api = APIClient()
    api.force_authenticate(admin_user)

    planned = api.post(
        f"{API}{series.pk}/recurrence-plan/", {"generation_window_weeks": 10}, format="json"
    ).json()
    split = api.post(
        f"{API}{series.pk}/split-plan/",
        {"at": rows[4].starts_at.isoformat(), "recurrence": {"weekdays": [0, 3]}},
        format="json",
    )
    assert split.status_code == 200, split.json()
    drift_without_partners(series, keep=6)
    drift = api.get(f"{API}{series.pk}/drift/").json()

    assert (planned["enrolled"], planned["enrolled_new"]) == (2, 2)
    assert {row["enrolled"] for row in planned["new"]} == {2}
    assert [row["enrolled"] for row in planned["stay"][3:6]] == [1, 2, 2]
    assert [row["id"] for row in planned["stay"]] == [row.pk for row in rows]
    assert all("enrolled" not in row for row in planned["excluded"])
    assert (split.json()["enrolled"], split.json()["enrolled_new"]) == (2, 2)
    assert [row["enrolled"] for row in split.json()["stay"][:2]] == [2, 2]
    assert drift["enrolled"] == {str(row.pk): 2 for row in rows[6:]}


def test_the_admin_plan_and_stale_pages_show_the_enrolled_users(admin_client: Any) -> None:
    """The plan pages say how many users are enrolled and mark each date; the stale
    dates name theirs, and say that cancelling releases none."""
    series = generated_series(name="Yoga", auto_publish=True)
    rows = occurrences(series)
    (anna,) = make_users("anna")
    enrol(series, anna, now=timezone.now())

    plan_page = admin_client.post(change_url(series), form_data(series, weekdays=["1", "3"]))
    split_page = admin_client.post(
        split_url(series), split_data(series, rows[3].starts_at, weekdays=["0", "3"])
    )
    stale = drift_without_partners(series, keep=4)
    stale_page = admin_client.get(change_url(series, "cancel-stale"))

    plan_text = plan_page.content.decode()
    assert plan_page.context["plan"].enrolled == 1
    assert "1 user is enrolled in this series." in plan_text
    assert 'data-enrolled="1"' in plan_text
    split_text = split_page.content.decode()
    assert "1 user enrolled in the series goes on with" in split_text
    assert 'data-enrolled="1"' in split_text
    text = stale_page.content.decode()
    upcoming = [row for row in stale if row.starts_at > timezone.now()]
    assert upcoming
    assert text.count('class="revel-badge-enrolled" data-enrolled="1"') == len(upcoming)
    assert 'id="revel-stale-enrolled"' in text


def test_the_fresh_plan_of_an_outdated_apply_counts_the_enrolled_users() -> None:
    """The 409's plan is the one a person reviews next: it counts them as the first did."""
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    (anna,) = make_users("anna")
    enrol(series, anna, now=NOW)
    window = {"generation_window_weeks": 10}
    seen = plan_recurrence_change(series, window, now=NOW)
    split_seen = plan_split(series, at=rows[3].starts_at, recurrence={"weekdays": [0, 3]}, now=NOW)
    cancel_occurrence(series, rows[1].starts_at, include_booked=True, notify="none", now=NOW)

    with pytest.raises(PlanOutdatedError) as applied:
        apply_recurrence_plan(series, seen.hash, window, now=NOW)
    with pytest.raises(PlanOutdatedError) as split:
        split_series(
            series,
            at=rows[3].starts_at,
            recurrence={"weekdays": [0, 3]},
            plan_hash=split_seen.hash.replace(split_seen.hash[0], "x", 1),
            now=NOW,
        )

    fresh = applied.value.plan
    assert fresh is not None
    assert (fresh.enrolled, fresh.enrolled_new) == (1, 1)
    assert [row.enrolled for row in fresh.stay[:3]] == [1, 1, 1]
    again = split.value.plan
    assert again is not None
    assert (again.enrolled, again.enrolled_new) == (1, 1)
