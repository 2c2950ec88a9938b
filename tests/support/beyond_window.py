"""Dates beyond the window: the scenarios every test host runs (issue 39, decision 0063).

Host-neutral: rows are read through the mixin, the series through the API every host
mounts at ``API``; a host passes its booking function. A weekly series with an
8-week window lists its later dates as not materialized, capped by
``REVEL_RECURRING_BEYOND_WINDOW_DATES``; ``materialize-date/`` makes one a row (once,
whoever asks twice); the daily pass reaching it keeps that row; a plan or a split over
it treats it like every other row.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.utils import timezone
from rest_framework.test import APIClient

from revel_recurring.models import EventSeries, get_event_model
from revel_recurring.services.generation import generate_series_events
from tests.support.moves import is_open, later_by, plan_and_apply, plan_and_split, rows_of
from tests.support.worker_process import celery_worker, wait_until

API = "/api/recurring/series/"
Book = Callable[[Any], None]


def _url(series: EventSeries, action: str) -> str:
    return f"{API}{series.pk}/{action}/"


def listed(api: APIClient, series: EventSeries, **query: Any) -> list[dict[str, Any]]:
    """Every row of ``occurrences/`` with ``query``, page after page."""
    rows: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = api.get(_url(series, "occurrences"), {**query, "page": page})
        assert answer.status_code == 200, answer.json()
        body = answer.json()
        rows.extend(body["results"])
        if not body["next"]:
            return rows
        page += 1


def materialize(api: APIClient, series: EventSeries, start: str) -> Any:
    return api.post(_url(series, "materialize-date"), {"start": start}, format="json")


def beyond(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [row for row in rows if not row["materialized"]]


def check_list_shows_dates_beyond_the_window(
    api: APIClient, series: EventSeries, settings: Any
) -> None:
    """``beyond_window=true`` adds the later dates, marked, capped, in start order, paged."""
    settings.REVEL_RECURRING_BEYOND_WINDOW_DATES = 10
    made = rows_of(series)
    plain = listed(api, series)
    assert beyond(plain) == [], "nothing beyond without asking"
    assert [str(row["id"]) for row in plain] == [str(row.pk) for row in made]

    both = listed(api, series, beyond_window="true")
    later = beyond(both)
    assert len(later) == 10, "capped by the setting"
    assert all(row["id"] is None and row["status"] is None for row in later)
    assert all(row["occurrence_index"] is None for row in later)
    cursor = EventSeries.objects.get(pk=series.pk).last_generated_until
    assert cursor is not None
    assert all(dt.datetime.fromisoformat(row["start"]) > cursor for row in later)
    starts = [row["start"] for row in both]
    assert starts == sorted(starts)
    assert [row["id"] for row in both[: len(made)]] == [row["id"] for row in plain]
    # One week apart, each a date of the rule on the rows' clock time.
    first, second = (dt.datetime.fromisoformat(row["start"]) for row in later[:2])
    assert abs(second - first - dt.timedelta(weeks=1)) <= dt.timedelta(hours=1)
    # Small pages give the same list.
    assert listed(api, series, beyond_window="true", page_size=3) == both
    # Only the date filters apply to them.
    assert beyond(listed(api, series, beyond_window="true", is_modified="false")) == []
    assert beyond(listed(api, series, beyond_window="true", is_future="false")) == []
    upto = later[4]["start"]
    cut = listed(api, series, beyond_window="true", date_from_before=upto)
    assert [row["start"] for row in beyond(cut)] == [row["start"] for row in later[:4]]
    settings.REVEL_RECURRING_BEYOND_WINDOW_DATES = 0
    assert beyond(listed(api, series, beyond_window="true")) == []


def check_materialize_far_ahead(
    api: APIClient, series: EventSeries, book: Book, settings: Any
) -> tuple[Any, str]:
    """A date six months ahead becomes a row once (201, then 200 with the same row);
    the list shows it materialized and the dates around it still beyond; the host books
    it. Returns the row and its start."""
    settings.REVEL_RECURRING_BEYOND_WINDOW_DATES = 40
    later = beyond(listed(api, series, beyond_window="true"))
    made = rows_of(series)
    six_months = timezone.now() + dt.timedelta(weeks=26)
    target = next(row for row in later if dt.datetime.fromisoformat(row["start"]) >= six_months)
    start = dt.datetime.fromisoformat(target["start"])

    first = materialize(api, series, target["start"])
    assert first.status_code == 201, first.json()
    body = first.json()
    assert body["created"] is True
    assert body["occurrence"]["materialized"] is True
    assert body["occurrence"]["recurrence_id"] == target["recurrence_id"]
    again = materialize(api, series, target["start"])
    assert again.status_code == 200, again.json()
    assert again.json()["created"] is False
    assert again.json()["occurrence"]["id"] == body["occurrence"]["id"]

    rows = rows_of(series)
    assert len(rows) == len(made) + 1
    row = next(one for one in rows if str(one.pk) == str(body["occurrence"]["id"]))
    assert row.occurrence_start == start
    assert is_open(row) == series.auto_publish
    assert row.occurrence_index == max(one.occurrence_index for one in made) + 1
    # The cursor did not move: the window still ends where it ended.
    assert EventSeries.objects.get(pk=series.pk).last_generated_until == (
        series.last_generated_until
    )
    now_listed = listed(api, series, beyond_window="true")
    assert [r["id"] for r in now_listed if r["start"] == target["start"]] == [
        body["occurrence"]["id"]
    ]
    assert len(beyond(now_listed)) == 40
    book(row)
    return row, target["start"]


def check_refusals(api: APIClient, series: EventSeries) -> None:
    """Bad dates are 400s keyed ``start``; a paused series is a 409."""
    later = beyond(listed(api, series, beyond_window="true"))
    start = dt.datetime.fromisoformat(later[3]["start"])
    for wrong in (
        (start + dt.timedelta(minutes=30)).isoformat(),  # not a date of the rule
        (rows_of(series)[0].occurrence_start - dt.timedelta(weeks=52)).isoformat(),  # past
        "2027-01-01T10:00:00",  # naive
        "soon",
    ):
        answer = materialize(api, series, wrong)
        assert answer.status_code == 400, (wrong, answer.json())
        assert list(answer.json()) == ["start"], answer.json()
    # A cancelled date stays cancelled.
    row = rows_of(series)[1]
    cancelled = api.post(
        _url(series, "cancel-occurrence"),
        {"occurrence": row.recurrence_id.isoformat(), "include_booked": True},
        format="json",
    )
    assert cancelled.status_code == 200, cancelled.json()
    answer = materialize(api, series, row.occurrence_start.isoformat())
    assert answer.status_code == 400, answer.json()
    assert list(answer.json()) == ["start"]
    paused = api.post(_url(series, "pause"), {}, format="json")
    assert paused.status_code == 200, paused.json()
    assert beyond(listed(api, series, beyond_window="true")) == []
    answer = materialize(api, series, start.isoformat())
    assert answer.status_code == 409, answer.json()
    assert (
        get_event_model()._default_manager.filter(series=series, recurrence_id=start).count() == 0
    )


def check_window_reaches_it(series: EventSeries, row: Any, start: str) -> None:
    """Generation runs with the clock six months on: the same row, no second one."""
    moment = dt.datetime.fromisoformat(start) - dt.timedelta(weeks=2)
    generate_series_events(EventSeries.objects.get(pk=series.pk), now=moment)
    _assert_one_row(series, row, start, moment)


def _assert_one_row(series: EventSeries, row: Any, start: str, moment: dt.datetime) -> None:
    at = dt.datetime.fromisoformat(start)
    rows = rows_of(series)
    same = [one for one in rows if one.occurrence_start == at]
    assert [str(one.pk) for one in same] == [str(row.pk)], "one row, the same id"
    assert same[0].occurrence_index == row.occurrence_index
    stored = EventSeries.objects.get(pk=series.pk)
    assert stored.last_generated_until is not None
    assert stored.last_generated_until > at
    # The dates around it were made by the pass, each once.
    slots = [one.recurrence_id for one in rows]
    assert len(slots) == len(set(slots))
    indices = [one.occurrence_index for one in rows]
    assert len(indices) == len(set(indices))
    assert any(one.occurrence_start > at for one in rows)
    assert any(moment < one.occurrence_start < at for one in rows)


def check_daily_pass_on_a_worker_keeps_the_row(
    series: EventSeries, row: Any, start: str, tmp_path: Path, *, settings_module: str
) -> None:
    """The daily pass on a real Celery worker, its clock two weeks before the date."""
    moment = dt.datetime.fromisoformat(start) - dt.timedelta(weeks=2)
    log = tmp_path / "worker.log"
    at = dt.datetime.fromisoformat(start)

    def reached() -> bool:
        cursor = EventSeries.objects.get(pk=series.pk).last_generated_until
        return cursor is not None and cursor > at

    with celery_worker(log, settings=settings_module) as client:
        result = client.send_task(
            "revel_recurring.generate_all_series", kwargs={"now": moment.isoformat()}
        )
        assert result.get(timeout=90)["failed"] == 0, log.read_text()
        assert wait_until(reached, seconds=90), log.read_text()
    _assert_one_row(series, row, start, moment)


def check_plan_moves_it_like_any_row(api: APIClient, series: EventSeries, row: Any) -> None:
    """A time change by plan moves the row materialized ahead with the others (same id)."""
    before = {one.pk: one.occurrence_start for one in rows_of(series)}
    plan, applied = plan_and_apply(
        api, series, later_by(series, dt.timedelta(minutes=30)), cancel_drift="none"
    )
    assert str(row.pk) in {str(one["id"]) for one in plan["drift"]}
    assert str(row.pk) in set(map(str, applied["moved"]))
    after = {one.pk: one for one in rows_of(series)}
    assert after[row.pk].occurrence_start == before[row.pk] + dt.timedelta(minutes=30)
    assert after[row.pk].recurrence_id == after[row.pk].occurrence_start
    # No new date beside it, none doubled.
    starts = [one.occurrence_start for one in after.values() if is_open(one)]
    assert len(starts) == len(set(starts))
    assert not [
        one
        for one in after.values()
        if one.occurrence_start == before[row.pk] and one.pk != row.pk and is_open(one)
    ]


def check_split_carries_it(api: APIClient, series: EventSeries, row: Any) -> EventSeries:
    """A split before it moves the row to the continuation, like every later row."""
    rows = rows_of(series)
    at = rows[2].recurrence_id
    _, done = plan_and_split(api, series, at, {"dtstart": at.isoformat()}, cancel_drift="unbooked")
    continuation = EventSeries.objects.get(pk=done["continuation"]["id"])
    carried = {one.pk: one for one in rows_of(continuation)}
    assert row.pk in carried
    assert carried[row.pk].occurrence_start == row.occurrence_start
    slots = [one.recurrence_id for one in carried.values()]
    assert len(slots) == len(set(slots))
    # The continuation lists beyond its window without doubling the carried row.
    later = listed(api, continuation, beyond_window="true")
    doubled = [
        one
        for one in later
        if not one["materialized"]
        and dt.datetime.fromisoformat(one["start"]) == row.occurrence_start
    ]
    assert doubled == []
    return continuation
