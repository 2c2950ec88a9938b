"""Schedule changes that move dates: the scenarios every test host runs (issue 35).

Host-neutral: rows are read through the mixin (``occurrence_start``, ``occurrence_status``),
the series through the API every host mounts at ``API``; a host passes its booking
function. Each scenario changes a weekly series' time or weekday, by a plan applied
with its hash or by a split, and checks what an organiser expects: the same rows at
the new dates (ids kept, bookings kept), no week with an open date at the old and the
new time (unless a booked one was kept on purpose), the rows exactly what the plan
said, and three calendar consumers expanding exactly the open rows.

Booked dates (issue 36): with their people told (``REVEL_RECURRING_NOTIFY_PEOPLE``
"all", the default, and a host that says who is booked, as every test host does) a
booked date moves like a free one; with nobody told it moves only when ticked. The
``..._told`` checks hold the first; the others, which a host runs with the setting
"none", the second.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from revel_recurring.models import EventSeries, OccurrenceChange, get_event_model
from tests.support.feed_consumers import CONSUMERS, expand_many, shown_instances, window

API = "/api/recurring/series/"
Book = Callable[[Any], None]


def rows_of(series: EventSeries) -> list[Any]:
    """The series' occurrences in start order."""
    model = get_event_model()
    rows = model._default_manager.filter(series=series, is_template=False)
    return sorted(rows, key=lambda row: (row.occurrence_start, str(row.pk)))


def is_open(row: Any) -> bool:
    model = type(row)
    return not model.is_status(row.occurrence_status, model.RECURRING_STATUS_CANCELLED)


def local(row: Any, zone: str) -> dt.datetime:
    from zoneinfo import ZoneInfo

    return row.occurrence_start.astimezone(ZoneInfo(zone))


def open_per_week(*series: EventSeries, since: dt.datetime) -> Counter[tuple[int, int]]:
    """How many open dates each ISO week holds from ``since`` on, over ``series``."""
    weeks: Counter[tuple[int, int]] = Counter()
    for one in series:
        for row in rows_of(one):
            if is_open(row) and row.occurrence_start >= since:
                year, week, _ = row.occurrence_start.isocalendar()
                weeks[(year, week)] += 1
    return weeks


def _url(series: EventSeries, action: str) -> str:
    return f"{API}{series.pk}/{action}/"


def plan_and_apply(
    api: APIClient, series: EventSeries, recurrence: dict[str, Any], **apply: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``recurrence-plan/`` then ``recurrence-apply/`` with its hash; both answers."""
    plan = api.post(_url(series, "recurrence-plan"), {"recurrence": recurrence}, format="json")
    assert plan.status_code == 200, plan.json()
    body = {"recurrence": recurrence, "plan_hash": plan.json()["hash"], **apply}
    applied = api.post(_url(series, "recurrence-apply"), body, format="json")
    assert applied.status_code == 200, applied.json()
    return plan.json(), applied.json()


def plan_and_split(
    api: APIClient, series: EventSeries, at: dt.datetime, recurrence: dict[str, Any], **split: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``split-plan/`` then ``split/`` with its hash; both answers."""
    body: dict[str, Any] = {"at": at.isoformat(), "recurrence": recurrence}
    plan = api.post(_url(series, "split-plan"), body, format="json")
    assert plan.status_code == 200, plan.json()
    done = api.post(
        _url(series, "split"), {**body, "plan_hash": plan.json()["hash"], **split}, format="json"
    )
    assert done.status_code == 201, done.json()
    return plan.json(), done.json()


def later_by(series: EventSeries, delta: dt.timedelta) -> dict[str, Any]:
    """The rule change that moves every date of ``series`` by ``delta`` (its dtstart's)."""
    series.recurrence_rule.refresh_from_db()
    return {"dtstart": (series.recurrence_rule.dtstart + delta).isoformat()}


def check_time_change_by_plan(
    api: APIClient, series: EventSeries, book: Book, *, zone: str
) -> None:
    """18:30 -> 19:00 (or the host's time + 30 minutes) by plan/apply with nobody told
    (the caller sets ``REVEL_RECURRING_NOTIFY_PEOPLE`` "none"): every date moves, ids
    kept; a booked one moves only when ticked."""
    before = rows_of(series)
    booked, ticked = before[2], before[4]
    book(booked)
    book(ticked)
    old_times = {row.pk: local(row, zone).time() for row in before}
    plan, applied = plan_and_apply(
        api, series, later_by(series, dt.timedelta(minutes=30)), cancel_drift="none"
    )
    drift = {str(row["id"]): row for row in plan["drift"]}
    assert set(drift) == {str(row.pk) for row in before}
    assert all(row["moves_to"] and row["new_slot"] for row in drift.values())
    # New dates only beside the booked dates, which stay unless ticked.
    beside = {str(date["beside"]) for date in plan["new"] if date["beside"] is not None}
    assert beside == {str(booked.pk), str(ticked.pk)}
    assert {str(date["beside"]) for date in plan["new"]} == beside
    # ``none``: the unbooked dates move, the booked ones stay where they are.
    assert sorted(map(str, applied["moved"])) == sorted(
        str(row.pk) for row in before if row.pk not in (booked.pk, ticked.pk)
    )
    assert {str(row["id"]) for row in applied["kept_booked"]} == {str(booked.pk), str(ticked.pk)}
    after = {row.pk: row for row in rows_of(series)}
    assert set(after) >= set(old_times), "no row was lost"
    for pk, row in after.items():
        if pk in (booked.pk, ticked.pk):
            assert local(row, zone).time() == old_times[pk]
        elif pk in old_times:
            assert local(row, zone).time().minute == (old_times[pk].minute + 30) % 60
            assert row.recurrence_id == row.occurrence_start
    # A booked date kept on purpose has the new date beside it: the only doubles.
    doubled = {
        week
        for week, count in open_per_week(series, since=before[0].occurrence_start).items()
        if count > 1
    }
    booked_weeks = {row.occurrence_start.isocalendar()[:2] for row in (booked, ticked)}
    assert doubled == booked_weeks


def check_time_change_by_plan_told(
    api: APIClient, series: EventSeries, book: Book, *, zone: str
) -> None:
    """The same time change with the people told (the default): ``none`` cancels
    nothing and moves every date, the booked ones with their bookings; the plan shows
    no new date beside a booked one, and no week is doubled."""
    before = rows_of(series)
    booked = (before[2], before[4])
    for row in booked:
        book(row)
    old_times = {row.pk: local(row, zone).time() for row in before}
    plan, applied = plan_and_apply(
        api, series, later_by(series, dt.timedelta(minutes=30)), cancel_drift="none"
    )
    drift = {str(row["id"]): row for row in plan["drift"]}
    assert {str(row.pk) for row in booked} <= set(drift)
    assert all(drift[str(row.pk)]["bookings"] == 1 for row in booked)
    assert [date for date in plan["new"] if date["beside"] is not None] == []
    assert sorted(map(str, applied["moved"])) == sorted(str(row.pk) for row in before)
    assert applied["kept_booked"] == []
    assert applied["cancelled"] == []
    after = {row.pk: row for row in rows_of(series)}
    for pk, old in old_times.items():
        assert local(after[pk], zone).time().minute == (old.minute + 30) % 60
        assert after[pk].recurrence_id == after[pk].occurrence_start
    model = get_event_model()
    assert model.booked_among([after[row.pk] for row in booked]) == {row.pk for row in booked}
    assert all(
        count == 1 for count in open_per_week(series, since=before[0].occurrence_start).values()
    )


def check_weekday_change_by_plan(
    api: APIClient, series: EventSeries, book: Book, *, zone: str, weekday: int
) -> None:
    """One weekday to the next by plan/apply with ``all``: each date moves to the new
    weekday of its week (ids kept, the booked one with its bookings), none is doubled.
    The people are told (the default): the plan shows the booked date moving too, so
    no new date beside it."""
    before = rows_of(series)
    booked = before[1]
    book(booked)
    new_day = (weekday + 1) % 7
    plan, applied = plan_and_apply(api, series, {"weekdays": [new_day]}, cancel_drift="all")
    drift = {str(row["id"]): row for row in plan["drift"]}
    assert drift[str(booked.pk)]["bookings"] == 1
    assert drift[str(booked.pk)]["moves_to"]
    after = rows_of(series)
    ids = {row.pk for row in after}
    assert {row.pk for row in before} <= ids
    moved = set(map(str, applied["moved"]))
    for row in after:
        if str(row.pk) in moved:
            assert local(row, zone).weekday() == new_day
            assert row.recurrence_id == row.occurrence_start
    assert str(booked.pk) in moved, "ticked with all: the booked date moves with its bookings"
    assert applied["cancelled"] == []
    assert all(
        count == 1 for count in open_per_week(series, since=before[0].occurrence_start).values()
    )
    # Exactly the rows the plan named: moved ones at moves_to, new ones at the plan's
    # dates but the one beside the booked date, which moved there itself (``all``).
    starts = sorted(row.occurrence_start for row in after if is_open(row))
    planned = sorted(
        [dt.datetime.fromisoformat(row["moves_to"]) for row in plan["drift"]]
        + [dt.datetime.fromisoformat(row["start"]) for row in plan["stay"]]
        + [
            dt.datetime.fromisoformat(date["start"])
            for date in plan["new"]
            if date["beside"] is None
        ]
    )
    assert [date["beside"] for date in plan["new"] if date["beside"]] == []
    assert starts == planned


def check_change_feed_reports_rescheduled(
    api: APIClient, series: EventSeries, *, since: dt.datetime
) -> None:
    """``modified_since`` names each moved row's old slot (``rescheduled_from``)."""
    records = OccurrenceChange.objects.filter(series=series, kind=OccurrenceChange.Kind.RESCHEDULED)
    assert records.exists()
    expected = {record.occurrence_pk: record.recurrence_id for record in records}
    answer = api.get(
        _url(series, "occurrences"),
        {"modified_since": since.isoformat(), "page_size": "500"},
    )
    assert answer.status_code == 200, answer.json()
    listed = answer.json()["results"] if "results" in answer.json() else answer.json()
    found = {str(row["id"]): row["rescheduled_from"] for row in listed if row["rescheduled_from"]}
    assert set(found) == set(expected)
    for pk, old in expected.items():
        assert dt.datetime.fromisoformat(found[pk]) == old


def check_split_time_change(
    api: APIClient, series: EventSeries, book: Book, *, zone: str, delta: dt.timedelta
) -> tuple[EventSeries, EventSeries]:
    """Split from the third date with the time changed by ``delta``, nobody told (the
    caller sets ``REVEL_RECURRING_NOTIFY_PEOPLE`` "none"): the moved dates go to the
    new time (ids kept); no week holds an open date at both times but the booked one
    kept; the original keeps its earlier dates."""
    before = rows_of(series)
    at = before[2].recurrence_id
    booked = before[4]
    book(booked)
    plan, done = plan_and_split(
        api, series, at, {"dtstart": (at + delta).isoformat()}, cancel_drift="unbooked"
    )
    assert {str(row["id"]) for row in plan["drift"]} == {str(row.pk) for row in before[2:]}
    continuation = EventSeries.objects.get(pk=done["continuation"]["id"])
    assert {str(row["id"]) for row in done["kept_booked"]} == {str(booked.pk)}
    moved = set(map(str, done["rescheduled"]))
    assert moved == {str(row.pk) for row in before[2:] if row.pk != booked.pk}
    assert done["cancelled"] == []
    kept = {row.pk: row for row in rows_of(continuation)}
    for row in before[2:]:
        assert row.pk in kept, "the same rows, in the continuation"
        if row.pk != booked.pk:
            assert kept[row.pk].occurrence_start == row.occurrence_start + delta
            assert kept[row.pk].recurrence_id == kept[row.pk].occurrence_start
    doubled = {
        week for week, count in open_per_week(series, continuation, since=at).items() if count > 1
    }
    assert doubled == {booked.occurrence_start.isocalendar()[:2]}
    assert [row.pk for row in rows_of(series)] == [row.pk for row in before[:2]]
    return series, continuation


def check_split_time_change_told(
    api: APIClient, series: EventSeries, book: Book, *, zone: str, delta: dt.timedelta
) -> tuple[EventSeries, EventSeries]:
    """The same split with the people told (the default): ``unbooked`` moves the booked
    date too, with its bookings; no week is doubled, none kept."""
    before = rows_of(series)
    at = before[2].recurrence_id
    booked = before[4]
    book(booked)
    plan, done = plan_and_split(
        api, series, at, {"dtstart": (at + delta).isoformat()}, cancel_drift="unbooked"
    )
    assert [date for date in plan["new"] if date["beside"] is not None] == []
    continuation = EventSeries.objects.get(pk=done["continuation"]["id"])
    assert done["kept_booked"] == []
    assert sorted(map(str, done["rescheduled"])) == sorted(str(row.pk) for row in before[2:])
    assert done["cancelled"] == []
    kept = {row.pk: row for row in rows_of(continuation)}
    for row in before[2:]:
        assert kept[row.pk].occurrence_start == row.occurrence_start + delta
        assert kept[row.pk].recurrence_id == kept[row.pk].occurrence_start
    assert get_event_model().booked_among([kept[booked.pk]]) == {booked.pk}
    assert all(count == 1 for count in open_per_week(series, continuation, since=at).values())
    assert [row.pk for row in rows_of(series)] == [row.pk for row in before[:2]]
    return series, continuation


def check_split_weekday_change(
    api: APIClient, series: EventSeries, *, zone: str, weekday: int
) -> EventSeries:
    """Split from the second date moving to the next weekday with ``unbooked``: every
    moved date goes to the new weekday of its week; none doubled, none lost."""
    before = rows_of(series)
    at = before[1].recurrence_id
    new_day = (weekday + 1) % 7
    plan, done = plan_and_split(api, series, at, {"weekdays": [new_day]}, cancel_drift="unbooked")
    continuation = EventSeries.objects.get(pk=done["continuation"]["id"])
    rows = rows_of(continuation)
    assert {row.pk for row in before[1:]} <= {row.pk for row in rows}
    # The same rows, open at the new weekday: moved, not cancelled and made again.
    assert sorted(map(str, done["rescheduled"])) == sorted(str(row.pk) for row in before[1:])
    assert done["cancelled"] == []
    assert all(is_open(row) for row in rows if row.pk in {one.pk for one in before})
    assert {local(row, zone).weekday() for row in rows if is_open(row)} == {new_day}
    assert all(count == 1 for count in open_per_week(series, continuation, since=at).values())
    planned = sorted(
        [dt.datetime.fromisoformat(row["moves_to"]) for row in plan["drift"] if row["moves_to"]]
        + [dt.datetime.fromisoformat(date["start"]) for date in plan["new"]]
    )
    assert sorted(row.occurrence_start for row in rows if is_open(row)) == planned
    return continuation


def check_patch_moves_unbooked(
    api: APIClient, series: EventSeries, book: Book, *, zone: str, weekday: int
) -> None:
    """A PATCH to the next weekday with nobody told (the caller sets
    ``REVEL_RECURRING_NOTIFY_PEOPLE`` "none") moves the dates nobody booked, cancels
    nothing, and names the booked one it left (``drift``) beside the ones it moved
    (``moved``)."""
    before = rows_of(series)
    booked = before[3]
    book(booked)
    new_day = (weekday + 1) % 7
    answer = api.patch(f"{API}{series.pk}/", {"recurrence": {"weekdays": [new_day]}}, format="json")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert sorted(str(row["id"]) for row in body["moved"]) == sorted(
        str(row.pk) for row in before if row.pk != booked.pk
    )
    assert [str(row["id"]) for row in body["drift"]] == [str(booked.pk)]
    after = {row.pk: row for row in rows_of(series)}
    assert all(is_open(row) for row in after.values())
    assert after[booked.pk].occurrence_start == booked.occurrence_start
    for row in before:
        if row.pk != booked.pk:
            assert local(after[row.pk], zone).weekday() == new_day


def check_patch_moves_booked_when_told(
    api: APIClient, series: EventSeries, book: Book, *, zone: str, weekday: int
) -> None:
    """A PATCH to the next weekday with the people told (the default) moves every date,
    the booked one with its bookings, cancels nothing and leaves no drift."""
    before = rows_of(series)
    booked = before[3]
    book(booked)
    new_day = (weekday + 1) % 7
    answer = api.patch(f"{API}{series.pk}/", {"recurrence": {"weekdays": [new_day]}}, format="json")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert sorted(str(row["id"]) for row in body["moved"]) == sorted(str(row.pk) for row in before)
    assert body["drift"] == []
    after = {row.pk: row for row in rows_of(series)}
    assert all(is_open(row) for row in after.values())
    for row in before:
        assert local(after[row.pk], zone).weekday() == new_day
    assert get_event_model().booked_among([after[booked.pk]]) == {booked.pk}


def check_feeds_expand_the_rows(api: APIClient, *series: EventSeries) -> None:
    """Each consumer expands each series' feed to exactly its open rows."""
    for consumer in CONSUMERS:
        jobs = []
        for one in series:
            start, end = window(one)
            jobs.append((b"".join(api.get(f"{API}{one.pk}/ical/")), start, end))
        assert expand_many(consumer, jobs) == [shown_instances(one) for one in series], consumer
