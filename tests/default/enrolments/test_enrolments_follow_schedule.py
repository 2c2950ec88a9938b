"""Enrolments follow the schedule (tests/hosts/testapp): a move keeps the enrolled users'
bookings on the same rows, a split carries the enrolments to the continuation, and each
user hears once of each: one message for the dates that moved, one for the new dates
booked for them, never two of a kind for one change."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from email.utils import getaddresses
from typing import Any

import pytest
from django.core import mail

from revel_recurring.models import Enrolment, EnrolmentDate, EventSeries
from revel_recurring.services.editing import update_series
from revel_recurring.services.enrolments import enrol, skip_date
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.splits import split_series
from tests.hosts.testapp.models import Event, SeatHolder
from tests.support.factories import NOW, occurrences, weekly_series
from tests.support.plan_enrolments import check_split_plan_counts, day_of, make_users

pytestmark = pytest.mark.django_db


def _places(user: Any) -> set[Any]:
    return set(SeatHolder.objects.filter(user=user).values_list("event_id", flat=True))


def _dates(user: Any, *states: str) -> dict[str, Any]:
    """The user's enrolled dates in ``states``: occurrence key -> start recorded."""
    return dict(
        EnrolmentDate.objects.filter(user_pk=str(user.pk), state__in=states).values_list(
            "occurrence_pk", "starts_at"
        )
    )


def _agree(user: Any) -> set[Any]:
    """The host's places and the app's booked dates name the same events, at their starts."""
    places = _places(user)
    booked = _dates(user, EnrolmentDate.State.BOOKED, EnrolmentDate.State.HELD)
    assert set(booked) == {str(pk) for pk in places}
    starts = dict(Event.objects.filter(pk__in=places).values_list("pk", "starts_at"))
    assert {key: booked[str(key)] for key in places} == starts, "starts_at follows the date"
    return places


def _messages(capture: Any, change: Any) -> Counter[tuple[str, str]]:
    """Run ``change`` with its after-commit callbacks; the mails sent, by (address, kind)."""
    mail.outbox.clear()
    with capture(execute=True):
        change()
    kinds: Counter[tuple[str, str]] = Counter()
    for message in mail.outbox:
        ((_name, address),) = getaddresses(message.to)
        subject = message.subject
        kinds[(address, "enrolment" if "booked for you" in subject else "change")] += 1
    return kinds


def test_a_planned_move_keeps_the_enrolled_places_and_tells_each_user_once_of_each(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Mondays become Tuesdays and Fridays: each Monday moves to its Tuesday (the same row,
    its places kept) and the Fridays are new, booked for the enrolled users."""
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    anna, ben = make_users("anna", "ben")
    enrol(series, anna, now=NOW)
    skip_date(enrol(series, ben, now=NOW).enrolment, rows[2], now=NOW)
    before = {user.pk: _agree(user) for user in (anna, ben)}
    change = {"weekdays": [1, 4]}
    plan = plan_recurrence_change(series, change, notify="all", now=NOW)
    assert [row.enrolled for row in plan.drift[:3]] == [2, 2, 1]

    def apply() -> None:
        applied = apply_recurrence_plan(
            series, plan.hash, change, cancel_drift="all", notify="all", now=NOW
        )
        assert sorted(applied.moved) == sorted(row.pk for row in rows)
        assert len(applied.created) == len(rows)

    sent = _messages(django_capture_on_commit_callbacks, apply)

    fridays = {row.pk for row in occurrences(series)} - {row.pk for row in rows}
    assert _agree(anna) == before[anna.pk] | fridays
    assert _agree(ben) == before[ben.pk] | fridays
    assert rows[2].pk not in _agree(ben), "the skipped date stays skipped where it moved"
    assert set(_dates(ben, EnrolmentDate.State.SKIPPED)) == {str(rows[2].pk)}
    assert sent == {
        ("anna@example.com", "change"): 1,
        ("anna@example.com", "enrolment"): 1,
        ("ben@example.com", "change"): 1,
        ("ben@example.com", "enrolment"): 1,
    }


def test_a_patch_of_the_rule_moves_the_enrolled_dates_with_their_places(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    (anna,) = make_users("anna")
    enrol(series, anna, now=NOW)

    sent = _messages(
        django_capture_on_commit_callbacks,
        lambda: update_series(
            series, rule_changes={"weekdays": [2]}, generate=True, notify="all", now=NOW
        ),
    )

    moved = occurrences(series)
    assert [row.pk for row in moved] == [row.pk for row in rows]
    assert {row.starts_at.weekday() for row in moved} == {2}
    assert _agree(anna) == {row.pk for row in rows}
    assert sent == {("anna@example.com", "change"): 1}


def test_a_split_carries_the_enrolments_and_books_the_continuations_new_dates(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Split at the third Monday, the continuation on Mondays and Thursdays: Anna's and
    Ben's enrolments go on with it (Cleo's ended), the Mondays keep their places, and
    the Thursdays book them as their enrolments cover them."""
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    anna, ben, cleo = users = make_users("anna", "ben", "cleo")
    recurrence = {"weekdays": [0, 3]}
    plan = check_split_plan_counts(series, users, recurrence=recurrence, now=NOW)
    before = {user.pk: _agree(user) for user in users}
    result: list[Any] = []

    def split() -> None:
        result.append(
            split_series(
                series,
                at=rows[2].starts_at,
                recurrence=recurrence,
                plan_hash=plan.hash,
                notify="all",
                now=NOW,
            )
        )

    sent = _messages(django_capture_on_commit_callbacks, split)

    (done,) = result
    continuation: EventSeries = done.continuation
    thursdays = {event.pk for event in done.created}
    assert len(thursdays) == len(plan.new)
    spans = {
        (enrolment.series_id, enrolment.user_pk): (enrolment.starts_on, enrolment.ends_on)
        for enrolment in Enrolment.objects.all()
    }
    split_day = day_of(series, rows[2])
    assert spans[(continuation.pk, str(anna.pk))][0] == split_day
    assert spans[(continuation.pk, str(ben.pk))][0] == day_of(series, rows[3])
    assert (continuation.pk, str(cleo.pk)) not in spans
    assert spans[(series.pk, str(anna.pk))][1] < split_day
    assert (series.pk, str(ben.pk)) not in spans, "Ben's enrolment began after the split"
    moved = {str(pk) for pk in done.moved}
    assert (
        set(
            EnrolmentDate.objects.filter(series=continuation).values_list(
                "occurrence_pk", flat=True
            )
        )
        >= moved
    )
    assert not EnrolmentDate.objects.filter(series=series, occurrence_pk__in=moved).exists()
    bens_first = rows[3].starts_at
    assert _agree(anna) == before[anna.pk] | thursdays
    assert _agree(ben) == before[ben.pk] | {
        event.pk for event in done.created if event.starts_at >= bens_first
    }
    assert _agree(cleo) == before[cleo.pk]
    assert sent == {
        ("anna@example.com", "change"): 1,
        ("anna@example.com", "enrolment"): 1,
        ("ben@example.com", "change"): 1,
        ("ben@example.com", "enrolment"): 1,
    }


def test_enrolling_in_a_series_already_split_goes_on_with_the_continuation() -> None:
    """The split came first: Dora's enrolment in the original covers the continuation's
    dates too, as the split would have carried it; Emil's, from after the split day, is
    the continuation's alone."""
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    done = split_series(series, at=rows[3].starts_at, recurrence={"weekdays": [0, 3]}, now=NOW)
    dora, emil = make_users("dora", "emil")

    first = enrol(series, dora, now=NOW).enrolment
    later = enrol(series, emil, starts_on=day_of(series, rows[5]), now=NOW).enrolment

    both = {row.pk for row in Event.objects.filter(is_template=False)}
    assert _agree(dora) == both
    assert first.series_id == series.pk
    assert first.ends_on == day_of(series, rows[3]) - dt.timedelta(days=1)
    assert later.series_id == done.continuation.pk
    assert _agree(emil) == {
        row.pk
        for row in Event.objects.filter(series=done.continuation, starts_at__gte=rows[5].starts_at)
    }
    assert not Enrolment.objects.filter(series=series, user_pk=str(emil.pk)).exists()
