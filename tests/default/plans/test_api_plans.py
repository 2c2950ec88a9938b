"""Change plans over the API: recurrence-plan/, recurrence-apply/, and what PATCH now answers."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from revel_recurring.exceptions import DuplicateUniqueValueError
from revel_recurring.models import EventSeries
from revel_recurring.services.extra_dates import add_extra_date
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, Seat
from tests.support.api import next_tuesday, user_with
from tests.support.factories import VIENNA, make_series, occurrences

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.api_urls")]
API = "/api/recurring/series/"
MON_WED = {"weekdays": [0, 2]}


@pytest.fixture
def editor(django_user_model: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(
        user_with(django_user_model, "editor", "view_eventseries", "change_eventseries")
    )
    return api


def tue_thu() -> tuple[EventSeries, list[Event]]:
    """Tuesdays and Thursdays 10:00 Vienna for four weeks, the first Thursday booked (3).

    Moved to Mondays and Wednesdays, each date goes to its week's partner (Tuesday to
    Monday, Thursday to Wednesday), except in the first week: its Monday comes before
    the start, so the first Tuesday takes the Wednesday and the booked first Thursday
    has nowhere to go (drift).
    """
    series = make_series(dtstart=next_tuesday(), weekdays=[1, 3], window_weeks=4)
    generate_series_events(series)
    events = occurrences(series)
    Seat.objects.create(event=events[1], label="Front", quantity=5, booked=2)
    Seat.objects.create(event=events[1], label="Back", quantity=5, booked=1)
    return series, events


def weekday_of(stamp: str) -> int:
    return dt.datetime.fromisoformat(stamp).astimezone(VIENNA).weekday()


def url(series: EventSeries, action: str = "") -> str:
    return f"{API}{series.pk}/{action + '/' if action else ''}"


def plan(api: APIClient, series: EventSeries, **body: Any) -> dict[str, Any]:
    response = api.post(url(series, "recurrence-plan"), body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def apply_unbooked(
    api: APIClient, series: EventSeries, seen: dict[str, Any], recurrence: dict[str, Any]
) -> dict[str, Any]:
    """Apply the plan ``seen`` of ``recurrence`` with ``cancel_drift=unbooked``: the answer."""
    body = {"plan_hash": seen["hash"], "recurrence": recurrence, "cancel_drift": "unbooked"}
    response = api.post(url(series, "recurrence-apply"), body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_the_plan_of_tue_thu_to_mon_wed_names_drift_with_the_hosts_booking_counts(
    editor: APIClient,
) -> None:
    series, events = tue_thu()

    answer = plan(editor, series, recurrence=MON_WED)

    counts = Event.count_bookings_among(events)
    assert answer["changed"] == ["weekdays"]
    assert answer["stay"] == []
    assert [row["id"] for row in answer["drift"]] == [event.pk for event in events]
    assert [row["bookings"] for row in answer["drift"]] == [counts.get(e.pk, 0) for e in events]
    assert answer["drift"][1]["bookings"] == 3
    assert answer["drift"][1]["booked"] is True
    assert answer["drift"][0]["booked"] is False
    first = answer["drift"][0]
    assert first["start"] == events[0].starts_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert dt.datetime.fromisoformat(first["local"]) == events[0].starts_at
    assert first["local"].endswith(("+01:00", "+02:00"))
    assert "(Europe/Vienna)" in first["display"]
    # Every date but the first Thursday moves to a Monday or Wednesday of its week:
    # nothing new beside them.
    targets = [row["moves_to"] for row in answer["drift"]]
    assert [target is None for target in targets] == [index == 1 for index in range(len(events))]
    assert weekday_of(targets[0]) == 2  # the first week's Monday is before the start
    assert [weekday_of(target) for target in targets[2:]] == [0, 2] * ((len(events) - 2) // 2)
    assert answer["new"] == []
    assert answer["excluded"] == []
    assert answer["description"] == "Every week on Monday and Wednesday at 10:00 (Europe/Vienna)"
    assert "BYDAY=MO,WE" in answer["rrule_string"]
    assert answer["timezone"] == "Europe/Vienna"
    assert answer["generation_window_weeks"] == 4
    assert len(answer["hash"]) == 80
    # A plan writes nothing.
    series.refresh_from_db()
    assert series.recurrence_rule.weekdays == [1, 3]
    assert occurrences(series) == events


def test_apply_creates_the_new_dates_at_once_and_unbooked_keeps_the_booked_drift(
    editor: APIClient,
) -> None:
    series, events = tue_thu()
    # Two weeks more: besides the moves, the weeks it adds hold new dates.
    seen = plan(editor, series, recurrence=MON_WED, generation_window_weeks=6)
    body = {
        "plan_hash": seen["hash"],
        "recurrence": MON_WED,
        "generation_window_weeks": 6,
        "cancel_drift": "unbooked",
    }

    response = editor.post(url(series, "recurrence-apply"), body, format="json")

    assert response.status_code == 200, response.json()
    answer = response.json()
    assert answer["changed"] == ["generation_window_weeks", "weekdays"]
    created = Event.objects.filter(pk__in=[row["id"] for row in answer["created"]])
    assert [row["start"] for row in answer["created"]] == [row["start"] for row in seen["new"]]
    assert {event.starts_at.astimezone(VIENNA).weekday() for event in created} == {0, 2}
    assert created.count() == len(seen["new"]) > 0
    moving = [events[0], *events[2:]]
    assert answer["moved"] == [event.pk for event in moving]
    assert answer["cancelled"] == []
    assert answer["kept_booked"] == [
        {
            "id": events[1].pk,
            "start": seen["drift"][1]["start"],
            "display": seen["drift"][1]["display"],
        }
    ]
    assert answer["kept_modified"] == []
    assert answer["series"]["recurrence"]["weekdays"] == [0, 2]
    after = {e.pk: e for e in Event.objects.filter(pk__in=[e.pk for e in events])}
    assert after[events[1].pk].occurrence_status != Event.RECURRING_STATUS_CANCELLED
    assert after[events[1].pk].starts_at == events[1].starts_at
    assert [iso_utc(after[e.pk].starts_at) for e in moving] == [
        row["moves_to"] for row in seen["drift"] if row["moves_to"]
    ]
    assert Event.RECURRING_STATUS_CANCELLED not in {e.occurrence_status for e in after.values()}


def test_a_cancel_between_plan_and_apply_answers_409_with_the_fresh_plan(
    editor: APIClient,
) -> None:
    series, events = tue_thu()
    seen = plan(editor, series, recurrence=MON_WED)
    slot = events[2].starts_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    cancelled = editor.post(url(series, "cancel-occurrence"), {"occurrence": slot}, format="json")
    assert cancelled.status_code == 200, cancelled.json()
    body = {"plan_hash": seen["hash"], "recurrence": MON_WED}

    outdated = editor.post(url(series, "recurrence-apply"), body, format="json")

    assert outdated.status_code == 409, outdated.json()
    fresh = outdated.json()["plan"]
    assert "changed since this plan was made" in outdated.json()["detail"]
    assert fresh["hash"] != seen["hash"]
    assert events[2].pk not in [row["id"] for row in fresh["drift"]]
    assert len(fresh["drift"]) == len(seen["drift"]) - 1
    assert fresh["drift"][1]["bookings"] == 3
    again = plan(editor, series, recurrence=MON_WED)
    assert (fresh["hash"], fresh["drift"], fresh["new"]) == (
        again["hash"],
        again["drift"],
        again["new"],
    )
    series.refresh_from_db()
    assert series.recurrence_rule.weekdays == [1, 3]

    applied = editor.post(
        url(series, "recurrence-apply"), {**body, "plan_hash": fresh["hash"]}, format="json"
    )

    assert applied.status_code == 200, applied.json()
    assert applied.json()["cancelled"] == []
    assert len(applied.json()["created"]) == len(fresh["new"])
    # The cancelled Thursday stays where it is, cancelled (a cancellation says nothing of
    # another weekday).
    assert events[2].pk not in applied.json()["moved"]
    assert Event.objects.get(pk=events[2].pk).starts_at == events[2].starts_at
    series.refresh_from_db()
    assert series.recurrence_rule.weekdays == [0, 2]


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ({"recurrence": MON_WED}, "hash"),
        ({"plan_hash": "", "recurrence": MON_WED}, "plan_hash"),
        ({"plan_hash": "0" * 80, "cancel_drift": "some"}, "cancel_drift"),
        ({"plan_hash": "0" * 80, "generation_window_weeks": 0}, "generation_window_weeks"),
        ({"plan_hash": "0" * 80, "shape": "round"}, "shape"),
        ({"plan_hash": "0" * 80, "recurrence": {"interval": 0}}, "recurrence"),
    ],
)
def test_bad_apply_input_is_a_400_naming_the_field(
    editor: APIClient, body: dict[str, Any], key: str
) -> None:
    series, _ = tue_thu()

    response = editor.post(url(series, "recurrence-apply"), body, format="json")

    assert response.status_code == 400, response.json()
    assert list(response.json()) == [key]


@pytest.mark.parametrize(
    "recurrence",
    [
        {"interval": 0},
        {"weekdays": [7]},
        {"frequency": "HOURLY"},
        {"timezone": "Mars/Olympus"},
        {"frequency": "MONTHLY", "monthly_type": "nth_weekday"},
        {"count": 3, "until": "2030-01-01T00:00:00Z"},
    ],
)
def test_a_rule_the_patch_refuses_is_refused_by_the_plan_with_the_same_answer(
    editor: APIClient, recurrence: dict[str, Any]
) -> None:
    series, _ = tue_thu()

    planned = editor.post(url(series, "recurrence-plan"), {"recurrence": recurrence}, format="json")
    patched = editor.patch(url(series), {"recurrence": recurrence}, format="json")

    assert planned.status_code == patched.status_code == 400, (planned.json(), patched.json())
    assert planned.json() == patched.json()
    assert "recurrence" in planned.json()


def test_who_may_not_change_a_series_may_not_plan_or_apply(django_user_model: Any) -> None:
    series, _ = tue_thu()
    viewer, nobody = APIClient(), APIClient()
    viewer.force_authenticate(user_with(django_user_model, "viewer", "view_eventseries"))
    nobody.force_authenticate(user_with(django_user_model, "nobody"))
    body = {"recurrence": MON_WED, "plan_hash": "0" * 80}

    for action in ("recurrence-plan", "recurrence-apply"):
        assert viewer.post(url(series, action), body, format="json").status_code == 403
        assert nobody.post(url(series, action), body, format="json").status_code == 404
    assert viewer.patch(url(series), {"recurrence": MON_WED}, format="json").status_code == 403
    assert APIClient().post(url(series, "recurrence-plan"), body, format="json").status_code in (
        401,
        403,
    )
    series.refresh_from_db()
    assert series.recurrence_rule.weekdays == [1, 3]


def test_a_patch_of_the_rule_generates_the_new_dates_and_names_the_drift(
    editor: APIClient,
) -> None:
    series, events = tue_thu()

    response = editor.patch(url(series), {"recurrence": MON_WED}, format="json")

    assert response.status_code == 200, response.json()
    answer = response.json()
    assert answer["cursor_reset"] is True
    # Every unbooked date moved to its week's Monday or Wednesday (same rows): nothing is
    # new; the booked first Thursday, without a partner, is the drift named.
    assert answer["created"] == []
    after = occurrences(series)
    assert [event.pk for event in after] == [event.pk for event in events]
    moved = [event for event in after if event.pk != events[1].pk]
    assert {event.starts_at.astimezone(VIENNA).weekday() for event in moved} == {0, 2}
    assert [row["id"] for row in answer["drift"]] == [events[1].pk]
    assert [row["bookings"] for row in answer["drift"]] == [3]
    assert all("(Europe/Vienna)" in row["display"] for row in answer["drift"])


def test_a_patch_of_the_name_or_of_a_paused_series_generates_nothing(editor: APIClient) -> None:
    never_generated = make_series(dtstart=next_tuesday(), weekdays=[1, 3], window_weeks=4)
    renamed = editor.patch(url(never_generated), {"name": "Yoga twice"}, format="json").json()
    assert renamed["created"] == []
    assert renamed["drift"] == []
    assert occurrences(never_generated) == []
    series, events = tue_thu()
    editor.post(url(series, "pause"))

    paused = editor.patch(url(series), {"recurrence": MON_WED}, format="json").json()

    assert paused["created"] == []
    # The dates move (same rows); only the booked first Thursday, with no partner, drifts.
    assert [row["id"] for row in paused["drift"]] == [events[1].pk]
    assert [event.pk for event in occurrences(series)] == [event.pk for event in events]


def test_a_window_change_alone_is_planned_and_a_patch_of_it_fills_the_longer_window(
    editor: APIClient,
) -> None:
    series, events = tue_thu()

    answer = plan(editor, series, generation_window_weeks=6)
    patched = editor.patch(url(series), {"generation_window_weeks": 6}, format="json").json()

    assert answer["changed"] == ["generation_window_weeks"]
    assert answer["generation_window_weeks"] == 6
    assert answer["drift"] == []
    assert [row["id"] for row in answer["stay"]] == [event.pk for event in events]
    assert {dt.datetime.fromisoformat(row["local"]).weekday() for row in answer["new"]} == {1, 3}
    assert [row["start"] for row in patched["created"]] == [row["start"] for row in answer["new"]]
    assert len(occurrences(series)) == len(events) + len(answer["new"])


def test_a_series_without_a_rule_answers_409_without_a_plan(editor: APIClient) -> None:
    bare = EventSeries.objects.create(name="No rule yet")

    planned = editor.post(url(bare, "recurrence-plan"), {"recurrence": MON_WED}, format="json")
    applied = editor.post(
        url(bare, "recurrence-apply"), {"recurrence": MON_WED, "plan_hash": "0" * 80}, format="json"
    )
    patched = editor.patch(url(bare), {"name": "Still no rule"}, format="json")

    assert planned.status_code == applied.status_code == 409, (planned.json(), applied.json())
    assert set(applied.json()) == {"detail"}
    assert "no recurrence rule" in applied.json()["detail"]
    assert patched.status_code == 200, patched.json()
    assert (patched.json()["created"], patched.json()["drift"]) == ([], [])


def test_a_patch_whose_generation_fails_answers_the_saved_change_and_why(
    editor: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    series, _ = tue_thu()

    def refuse(cls: Any, template: Any, occurrences: Any) -> None:
        # The host's copy of related rows refuses (a unique value it cannot fill).
        raise DuplicateUniqueValueError("Seat labels must be unique per event.", field="label")

    monkeypatch.setattr(Event, "clone_related", classmethod(refuse))

    # The dates move to Mondays and Wednesdays; the two weeks added are to generate.
    change = {"recurrence": MON_WED, "generation_window_weeks": 6}
    response = editor.patch(url(series), change, format="json")

    assert response.status_code == 200, response.json()
    answer = response.json()
    assert answer["created"] == []
    assert answer["generation_error"] == "Seat labels must be unique per event."
    assert EventSeries.objects.get(pk=series.pk).recurrence_rule.weekdays == [0, 2]
    # Back to Tue/Thu and four weeks: every date exists, nothing to generate, no error (null).
    back = {"recurrence": {"weekdays": [1, 3]}, "generation_window_weeks": 4}
    fine = editor.patch(url(series), back, format="json")
    assert fine.json()["generation_error"] is None


def test_a_patch_of_the_name_is_never_refused_for_the_size_of_the_next_run(
    editor: APIClient, settings: Any
) -> None:
    # Not generated yet, and a budget the next run would exceed: renaming is no
    # schedule change, so neither the change nor its answer weighs that run.
    series = make_series(dtstart=next_tuesday(), weekdays=[1, 3])
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 100

    response = editor.patch(url(series), {"name": "Renamed"}, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["drift"] == []
    assert EventSeries.objects.get(pk=series.pk).name == "Renamed"


# Extra dates in the plan


def saturday(week: int) -> dt.datetime:
    """The Saturday 11:00 (Vienna) of the series' week ``week`` (0 = the first)."""
    day = next_tuesday().date() + dt.timedelta(weeks=week, days=4)
    return dt.datetime.combine(day, dt.time(11, 0), tzinfo=VIENNA)


def iso_utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_extra_dates_are_planned_as_new_and_applied_with_the_rule_change(
    editor: APIClient,
) -> None:
    series, events = tue_thu()
    recurrence = {**MON_WED, "extra_dates": [saturday(1).isoformat(), saturday(9).isoformat()]}

    seen = plan(editor, series, recurrence=recurrence)

    assert seen["changed"] == ["extra_dates", "weekdays"]
    assert iso_utc(saturday(1)) in [row["start"] for row in seen["new"]]
    assert iso_utc(saturday(9)) not in [row["start"] for row in seen["new"]]  # beyond 4 weeks
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []
    answer = apply_unbooked(editor, series, seen, recurrence)
    assert answer["changed"] == ["extra_dates", "weekdays"]
    assert [row["start"] for row in answer["created"]] == [row["start"] for row in seen["new"]]
    assert answer["series"]["extra_dates"] == [iso_utc(saturday(1)), iso_utc(saturday(9))]
    assert [row["id"] for row in answer["kept_booked"]] == [events[1].pk]


def test_an_extra_date_left_out_is_drift_and_a_booked_one_is_kept_and_named(
    editor: APIClient,
) -> None:
    series, _ = tue_thu()
    free, booked = (add_extra_date(series, saturday(week)) for week in (1, 2))
    Seat.objects.create(event=booked, label="Front", quantity=5, booked=1)

    seen = plan(editor, series, recurrence={"extra_dates": []})

    assert [(row["id"], row["bookings"]) for row in seen["drift"]] == [(free.pk, 0), (booked.pk, 1)]
    assert seen["new"] == []
    answer = apply_unbooked(editor, series, seen, {"extra_dates": []})
    assert answer["cancelled"] == [free.pk]
    assert answer["kept_booked"] == [
        {"id": booked.pk, "start": iso_utc(saturday(2)), "display": seen["drift"][1]["display"]}
    ]
    assert answer["series"]["extra_dates"] == []
    assert Event.objects.get(pk=booked.pk).occurrence_status != Event.RECURRING_STATUS_CANCELLED


def test_an_add_date_between_plan_and_apply_answers_409_and_writes_nothing(
    editor: APIClient,
) -> None:
    series, _ = tue_thu()
    recurrence = {"extra_dates": [saturday(1).isoformat()]}
    seen = plan(editor, series, recurrence=recurrence)
    added = editor.post(url(series, "add-date"), {"instant": saturday(2).isoformat()}, "json")
    assert added.status_code == 200, added.json()

    outdated = editor.post(
        url(series, "recurrence-apply"),
        {"plan_hash": seen["hash"], "recurrence": recurrence},
        format="json",
    )

    assert outdated.status_code == 409, outdated.json()
    fresh = outdated.json()["plan"]
    assert [row["start"] for row in fresh["drift"]] == [iso_utc(saturday(2))]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == [iso_utc(saturday(2))]


BAD_EXTRA_DATES: dict[str, tuple[Callable[[], Any], str]] = {
    "naive": (lambda: ["2030-01-04T11:00:00"], "UTC offset"),
    "past": (lambda: ["2020-01-04T11:00:00Z"], "in the past"),
    "not a list": (lambda: "2030-01-04T11:00:00Z", "list"),
    # One Saturday, in Vienna and in UTC.
    "twice": (lambda: [saturday(1).isoformat(), iso_utc(saturday(1))], "is given twice"),
    "too many": (
        lambda: [iso_utc(saturday(1) + dt.timedelta(hours=n)) for n in range(501)],
        "no more than 500",
    ),
}


@pytest.mark.parametrize("case", list(BAD_EXTRA_DATES))
def test_bad_extra_dates_are_a_400_under_recurrence_extra_dates(
    editor: APIClient, case: str
) -> None:
    series, _ = tue_thu()
    extra_dates, words = BAD_EXTRA_DATES[case]
    body = {"recurrence": {"extra_dates": extra_dates()}}

    planned = editor.post(url(series, "recurrence-plan"), body, format="json")
    applied = editor.post(
        url(series, "recurrence-apply"), {**body, "plan_hash": "0" * 80}, format="json"
    )

    for response in (planned, applied):
        assert response.status_code == 400, response.json()
        assert list(response.json()) == ["recurrence"]
        assert list(response.json()["recurrence"]) == ["extra_dates"]
        assert words in str(response.json()["recurrence"]["extra_dates"])
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []


def test_with_nobody_told_a_date_booked_after_the_plan_makes_apply_all_a_409_and_stays_booked(
    editor: APIClient, settings: Any
) -> None:
    """Nobody told: under ``unbooked`` the booked dates are kept (the last step)."""
    settings.REVEL_RECURRING_NOTIFY_PEOPLE = "none"
    series, events = tue_thu()
    seen = plan(editor, series, recurrence=MON_WED)
    assert seen["drift"][2]["bookings"] == 0
    Seat.objects.create(event=events[2], label="Late", quantity=5, booked=1)
    body = {"plan_hash": seen["hash"], "recurrence": MON_WED, "cancel_drift": "all"}

    outdated = editor.post(url(series, "recurrence-apply"), body, format="json")

    assert outdated.status_code == 409, outdated.json()
    fresh = outdated.json()["plan"]
    assert fresh["drift"][2]["bookings"] == 1
    assert fresh["hash"] == plan(editor, series, recurrence=MON_WED)["hash"]
    assert Event.objects.get(pk=events[2].pk).occurrence_status != Event.RECURRING_STATUS_CANCELLED
    series.refresh_from_db()
    assert series.recurrence_rule.weekdays == [1, 3]
    # With cancel_drift=unbooked the same hash applies: the booked date is kept.
    answer = apply_unbooked(editor, series, seen, MON_WED)
    assert [row["id"] for row in answer["kept_booked"]] == [events[1].pk, events[2].pk]
