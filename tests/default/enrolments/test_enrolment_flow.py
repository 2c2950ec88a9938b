"""Enrolments on the default host beyond the three-host checks (test_enrolments.py).

The host's bookings (seat holders linked to the user) and the app's record of each
date (``EnrolmentDate``) are checked against each other after every step.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from revel_recurring.models import EnrolmentDate, PersonNotice
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.enrolments import end_enrolment, enrol, skip_date
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


def test_a_date_booked_by_the_user_is_held_kept_on_a_skip_and_on_the_end() -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    gina = _user("gina")
    SeatHolder.objects.create(event=rows[2], user=gina, address="gina@example.com")

    enrolment = enrol(series, gina, now=NOW).enrolment
    assert _dates(gina, EnrolmentDate.State.HELD) == [str(rows[2].pk)]
    skip_date(enrolment, rows[2], now=NOW)
    end_enrolment(enrolment, now=NOW)

    # Her own place stays hers: the enrolment released only what it booked.
    assert _holders(gina) == [rows[2].pk]
    assert _dates(gina, EnrolmentDate.State.SKIPPED) == [str(rows[2].pk)]


def test_enrolling_again_with_an_earlier_end_releases_what_the_new_days_leave_out() -> None:
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    hugo = _user("hugo")
    enrol(series, hugo, now=NOW)

    result = enrol(series, hugo, ends_on=rows[3].starts_at.date(), now=NOW)

    assert result.released == len(rows) - 4
    assert _holders(hugo) == [row.pk for row in rows[:4]]
    assert len(_dates(hugo, EnrolmentDate.State.RELEASED)) == len(rows) - 4
