"""Enrolments on any test host: the host's bookings and the app's record always agree.

Each host's ``enrolments`` folder (tests/default, tests/studio, tests/dojo) has a
conftest with the fixture ``enrolment_host`` (an :class:`EnrolmentHost`: how that
host makes series and users, which events it holds a booking on for a user, how
it fills a date) and a test file whose class inherits the tests of
:class:`EnrolmentTests`, which call the checks here. Every check
compares, after each step, the events the host holds a booking on for the user
with the app's ``EnrolmentDate`` rows in state booked or held (:func:`agree`).

The checks run on the real clock: a host's series starts on a coming weekday and
its first window is generated (published dates), as its ``make_series`` does.
:func:`check_daily_pass_on_worker` runs the daily pass on a real Celery worker on
Redis (tests/support/worker_process.py) against this test's database, so it needs
PostgreSQL or MariaDB and a ``transaction=True`` test (:func:`on_a_worker`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.db import models
from django.utils import timezone

from revel_recurring.models import Enrolment, EnrolmentDate, EventSeries, PersonNotice
from revel_recurring.notices.compose import message_id
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.enrolments import end_enrolment, enrol, skip_date, take_back_date
from revel_recurring.services.generation import generate_series_events
from tests.support.moves import rows_of
from tests.support.smtp import mail_server
from tests.support.worker_process import SERVER_WORKER_MARKS, celery_worker, wait_until

Capture = Callable[..., Any]
Test = Callable[..., None]


def on_a_worker(test: Test) -> Test:
    """Mark ``test`` as one running a worker (``SERVER_WORKER_MARKS``)."""
    for mark in SERVER_WORKER_MARKS:
        test = mark(test)
    return test


@dataclass(frozen=True)
class EnrolmentHost:
    """What the checks need from a host (the ``enrolment_host`` fixture).

    ``make_series(name=..., **options)``: a weekly series on the real clock, dates
    published, first window generated, ``options`` passed to
    ``create_recurring_series``. ``make_user(name)``: a user whose e-mail is
    ``{name}@...``. ``bookings(user)``: the pks of the events the host holds a
    booking on for ``user``, one per booking. ``make_full(row)``: no place left on
    ``row``. ``full``: the host's reason for a full date. ``person``: the language
    and zone the host names its users in (``get_enrolled_people``). ``settings``:
    the host's settings module, for the worker.
    """

    make_series: Callable[..., EventSeries]
    make_user: Callable[[str], Any]
    bookings: Callable[[Any], list[Any]]
    make_full: Callable[[Any], None]
    full: str
    person: tuple[str, str]
    settings: str


def booking_host(
    booking: type[models.Model], *, event_field: str, user_field: str, **rest: Any
) -> EnrolmentHost:
    """An :class:`EnrolmentHost` whose bookings are ``booking`` rows (foreign keys
    ``event_field`` and ``user_field``) on events with a nullable ``capacity``."""
    events = booking._meta.get_field(event_field).related_model
    assert isinstance(events, type)

    def bookings(user: Any) -> list[Any]:
        rows = booking._default_manager.filter(**{user_field: user})
        return list(rows.values_list(f"{event_field}_id", flat=True))

    def make_full(row: Any) -> None:
        events._default_manager.filter(pk=row.pk).update(capacity=0)

    return EnrolmentHost(bookings=bookings, make_full=make_full, **rest)


def _dates(user: Any, *states: str) -> list[str]:
    found = EnrolmentDate.objects.filter(user_pk=str(user.pk), state__in=states)
    return sorted(found.values_list("occurrence_pk", flat=True))


def agree(host: EnrolmentHost, user: Any) -> list[str]:
    """The host's bookings for ``user`` and the app's booked and held dates are the same
    events, none booked twice; their pks as text, sorted."""
    held = [str(pk) for pk in host.bookings(user)]
    assert len(held) == len(set(held)), f"a date booked twice: {held}"
    assert sorted(held) == _dates(user, EnrolmentDate.State.BOOKED, EnrolmentDate.State.HELD)
    return sorted(held)


def keys(rows: list[Any]) -> list[str]:
    return sorted(str(row.pk) for row in rows)


def _day(series: EventSeries, row: Any) -> dt.date:
    """The day of ``row`` on the series' wall clock."""
    rule = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk).recurrence_rule
    assert rule is not None
    return row.occurrence_start.astimezone(ZoneInfo(rule.timezone)).date()


def _notices(user: Any) -> list[PersonNotice]:
    return list(PersonNotice.objects.filter(address__iexact=user.email).order_by("pk"))


def check_enrol_skip_take_back_and_end(host: EnrolmentHost) -> None:
    """Enrol: every date booked, told once; a new date booked by generation; a skip
    released and never booked again; taken back; the end releases the later dates."""
    now = timezone.now()
    series = host.make_series(name="Enrolled class", generation_window_weeks=6)
    rows = rows_of(series)
    anna = host.make_user("anna")

    enrolment = enrol(series, anna, now=now).enrolment
    assert agree(host, anna) == keys(rows)
    (notice,) = _notices(anna)
    assert notice.payload["kind"] == "enrolment"
    assert [date["kind"] for date in notice.payload["dates"]] == ["booked"] * len(rows)
    assert (notice.language, notice.timezone) == host.person

    EventSeries.objects.filter(pk=series.pk).update(generation_window_weeks=7)
    (created,) = generate_series_events(EventSeries.objects.get(pk=series.pk), now=now)
    rows = rows_of(series)
    assert created.pk == rows[-1].pk
    assert agree(host, anna) == keys(rows)
    assert len(_notices(anna)) == 2, "the new date is told in a message of its own"

    assert skip_date(enrolment, rows[2], now=now).state == EnrolmentDate.State.SKIPPED
    assert agree(host, anna) == keys(rows[:2] + rows[3:])
    assert take_back_date(enrolment, rows[2], now=now).state == EnrolmentDate.State.BOOKED
    assert agree(host, anna) == keys(rows)
    assert skip_date(enrolment, rows[1], now=now).state == EnrolmentDate.State.SKIPPED

    result = end_enrolment(enrolment, on=_day(series, rows[3]), now=now)
    assert agree(host, anna) == keys([rows[0], rows[2], rows[3]])
    assert result.released == len(rows) - 4
    assert Enrolment.objects.get().ends_on == _day(series, rows[3])
    assert _dates(anna, EnrolmentDate.State.SKIPPED) == keys([rows[1]])


def check_full_date_refused_and_reported(host: EnrolmentHost, capture: Capture) -> None:
    """A full date is refused with the host's reason, named in the message; the rest booked."""
    now = timezone.now()
    series = host.make_series(name="Full class")
    rows = rows_of(series)
    host.make_full(rows[2])
    ben = host.make_user("ben")

    with capture(execute=True):
        batch = enrol(series, ben, now=now).batch

    assert agree(host, ben) == keys(rows[:2] + rows[3:])
    assert _dates(ben, EnrolmentDate.State.REFUSED) == keys([rows[2]])
    assert EnrolmentDate.objects.get(state=EnrolmentDate.State.REFUSED).reason == host.full
    assert batch.count() == len(rows) - 1
    (notice,) = _notices(ben)
    refused = [date for date in notice.payload["dates"] if date["kind"] == "refused"]
    assert [(date["pk"], date["reason"]) for date in refused] == [(str(rows[2].pk), host.full)]
    (message,) = mail.outbox
    assert ben.email in message.to[0]
    assert host.full in message.body
    assert notice.sent_at is not None


def check_cancelled_and_restored_date_booked_once(host: EnrolmentHost) -> None:
    """A cancelled date keeps its booking; restored, it is not booked a second time."""
    now = timezone.now()
    series = host.make_series(name="Restored class")
    rows = rows_of(series)
    cleo = host.make_user("cleo")
    enrol(series, cleo, now=now)

    cancel_occurrence(series, rows[1].occurrence_start, include_booked=True, notify="none", now=now)
    assert agree(host, cleo) == keys(rows), "a cancelled date releases nothing"
    restore_occurrence(series, rows[1].occurrence_start, notify="none", now=now)

    assert agree(host, cleo) == keys(rows)
    assert _dates(cleo, EnrolmentDate.State.BOOKED) == keys(rows)


def check_daily_pass_on_worker(host: EnrolmentHost, tmp_path: Path, monkeypatch: Any) -> None:
    """The daily pass on a real worker books the new dates; the worker sends their message
    (to this test's SMTP server) and records it sent."""
    now = timezone.now()
    series = host.make_series(name="Worker class", generation_window_weeks=2)
    dora = host.make_user("dora")
    enrol(series, dora, now=now)
    first = rows_of(series)
    assert agree(host, dora) == keys(first)
    # A wider window: the next dates are due now.
    EventSeries.objects.filter(pk=series.pk).update(generation_window_weeks=4, next_due_at=now)
    log = tmp_path / "worker.log"

    with mail_server() as server:
        monkeypatch.setenv("REVEL_TEST_SMTP_PORT", str(server.port))
        with celery_worker(log, settings=host.settings) as client:
            result = client.send_task("revel_recurring.generate_all_series")
            assert result.get(timeout=90)["failed"] == 0, log.read_text()
            sent = lambda: all(n.sent_at for n in _notices(dora)[1:2])  # noqa: E731
            assert wait_until(lambda: len(_notices(dora)) == 2 and sent(), seconds=90), (
                log.read_text()
            )

    rows = rows_of(series)
    assert len(rows) > len(first), log.read_text()
    assert agree(host, dora) == keys(rows)
    latest = _notices(dora)[-1]
    assert sorted(date["pk"] for date in latest.payload["dates"]) == keys(rows[len(first) :])
    (message,) = server.to(dora.email)
    assert str(message.parsed()["Message-ID"]).strip() == message_id(latest)


class EnrolmentTests:
    """The tests every host runs: ``class TestEnrolments(EnrolmentTests): ...`` in its folder."""

    @pytest.mark.django_db
    def test_enrol_skip_take_back_and_end(self, enrolment_host: EnrolmentHost) -> None:
        check_enrol_skip_take_back_and_end(enrolment_host)

    @pytest.mark.django_db
    def test_a_full_date_is_refused_and_reported(
        self, enrolment_host: EnrolmentHost, django_capture_on_commit_callbacks: Capture
    ) -> None:
        check_full_date_refused_and_reported(enrolment_host, django_capture_on_commit_callbacks)

    @pytest.mark.django_db
    def test_a_cancelled_and_restored_date_is_booked_once(
        self, enrolment_host: EnrolmentHost
    ) -> None:
        check_cancelled_and_restored_date_booked_once(enrolment_host)

    @on_a_worker
    def test_the_daily_pass_on_a_worker_books_the_new_dates(
        self, enrolment_host: EnrolmentHost, tmp_path: Path, monkeypatch: Any
    ) -> None:
        check_daily_pass_on_worker(enrolment_host, tmp_path, monkeypatch)
