"""An enrolled user is booked on every date as it is created, once (tests/hosts/testapp).

The host's bookings (seat holders linked to the user) and the app's record of each
date (``EnrolmentDate``) are checked against each other after every step.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from revel_recurring.models import Enrolment, EnrolmentDate, PersonNotice
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.enrolments import end_enrolment, enrol, skip_date, take_back_date
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import Event, SeatHolder
from tests.support.factories import NOW, occurrences, weekly_series

pytestmark = pytest.mark.django_db

WEEK = dt.timedelta(weeks=1)


def _user(name: str) -> Any:
    return get_user_model().objects.create_user(name, f"{name}@example.com", "pw")


def _holders(user: Any) -> list[Any]:
    """The events the host holds a place on for ``user``, in start order."""
    return list(
        SeatHolder.objects.filter(user=user)
        .order_by("event__starts_at")
        .values_list("event_id", flat=True)
    )


def _dates(user: Any, state: str) -> list[str]:
    return list(
        EnrolmentDate.objects.filter(user_pk=str(user.pk), state=state)
        .order_by("starts_at")
        .values_list("occurrence_pk", flat=True)
    )


def _agree(user: Any) -> list[Any]:
    """The host's places and the app's booked and held dates name the same events."""
    held = _holders(user)
    assert sorted(map(str, held)) == sorted(
        _dates(user, EnrolmentDate.State.BOOKED) + _dates(user, EnrolmentDate.State.HELD)
    )
    assert len(held) == len(set(held)), "no date booked twice"
    return held


def test_a_regular_is_booked_on_every_date_skips_one_takes_it_back_and_leaves() -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    anna = _user("anna")

    enrolment = enrol(series, anna, now=NOW).enrolment
    assert _agree(anna) == [row.pk for row in rows]
    (notice,) = PersonNotice.objects.filter(address="anna@example.com")
    assert notice.payload["kind"] == "enrolment"
    assert [date["kind"] for date in notice.payload["dates"]] == ["booked"] * len(rows)
    assert len(notice.payload["request"]) == len(rows)

    # A week later the pass adds a date: booked too, and told in one message.
    created = generate_series_events(series, now=NOW + WEEK)
    assert len(created) == 1
    assert _agree(anna) == [row.pk for row in rows] + [created[0].pk]
    assert PersonNotice.objects.filter(address="anna@example.com").count() == 2

    skipped = skip_date(enrolment, rows[3], now=NOW)
    assert skipped.state == EnrolmentDate.State.SKIPPED
    assert rows[3].pk not in _agree(anna)
    generate_series_events(series, now=NOW + 2 * WEEK)
    assert rows[3].pk not in _agree(anna), "a skipped date is not booked again"

    taken = take_back_date(enrolment, rows[3], now=NOW)
    assert taken.state == EnrolmentDate.State.BOOKED
    assert rows[3].pk in _agree(anna)

    # Ending on the day of the fifth date releases the dates after it, and only those.
    last_day = rows[4].starts_at.date()
    result = end_enrolment(enrolment, on=last_day, now=NOW)
    held = _agree(anna)
    assert held == [row.pk for row in rows[:5]]
    assert result.released == len(occurrences(series)) - 5
    assert Enrolment.objects.get().ends_on == last_day
    before = Event.objects.count()
    generate_series_events(series, now=NOW + 3 * WEEK)
    assert Event.objects.count() == before + 1
    assert _agree(anna) == held, "an ended enrolment books no new date"


def test_a_full_date_is_refused_and_reported_and_the_others_are_booked() -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    Event.objects.filter(pk=rows[2].pk).update(capacity=0)
    ben = _user("ben")

    batch = enrol(series, ben, now=NOW).batch

    assert rows[2].pk not in _agree(ben)
    assert len(_agree(ben)) == len(rows) - 1
    assert _dates(ben, EnrolmentDate.State.REFUSED) == [str(rows[2].pk)]
    assert batch.count() == len(rows) - 1
    (notice,) = PersonNotice.objects.filter(address="ben@example.com")
    refused = [date for date in notice.payload["dates"] if date["kind"] == "refused"]
    assert [(date["pk"], date["reason"]) for date in refused] == [(str(rows[2].pk), "full")]


def test_a_cancelled_then_restored_date_is_not_booked_twice() -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    cleo = _user("cleo")
    enrol(series, cleo, now=NOW)

    cancel_occurrence(series, rows[1].starts_at, include_booked=True, notify="none", now=NOW)
    assert rows[1].pk in _agree(cleo), "a cancelled date releases nothing"
    restore_occurrence(series, rows[1].starts_at, notify="none", now=NOW)

    assert _agree(cleo) == [row.pk for row in rows]
    assert SeatHolder.objects.filter(event=rows[1], user=cleo).count() == 1
    # Still booked through the enrolment: ending it would release the date.
    assert _dates(cleo, EnrolmentDate.State.BOOKED) == [str(row.pk) for row in rows]


def test_a_skipped_date_cancelled_and_restored_stays_skipped() -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    emil = _user("emil")
    enrolment = enrol(series, emil, now=NOW).enrolment
    skip_date(enrolment, rows[2], now=NOW)

    cancel_occurrence(series, rows[2].starts_at, notify="none", now=NOW)
    restore_occurrence(series, rows[2].starts_at, notify="none", now=NOW)

    assert rows[2].pk not in _agree(emil)
    assert _dates(emil, EnrolmentDate.State.SKIPPED) == [str(rows[2].pk)]


def test_a_restored_date_books_an_enrolled_user_who_was_refused_on_it() -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    Event.objects.filter(pk=rows[1].pk).update(capacity=0)
    dora = _user("dora")
    enrol(series, dora, now=NOW)
    assert rows[1].pk not in _agree(dora)

    cancel_occurrence(series, rows[1].starts_at, include_booked=True, notify="none", now=NOW)
    Event.objects.filter(pk=rows[1].pk).update(capacity=20)
    restore_occurrence(series, rows[1].starts_at, notify="none", now=NOW)

    assert rows[1].pk in _agree(dora)


def test_the_message_to_an_enrolled_user_is_sent_after_commit_once(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = weekly_series(auto_publish=True)
    fritz = _user("fritz")

    with django_capture_on_commit_callbacks(execute=True):
        enrol(series, fritz, now=NOW)

    (message,) = mail.outbox
    assert message.to == ["fritz@example.com"]
    assert "8 new dates booked for you" in message.subject
    assert PersonNotice.objects.get().sent_at is not None
