"""Enrolments racing the daily pass, generation and a split on a real PostgreSQL server.

Each race runs in both orders, deterministically: one side holds its transaction open
(``held_in_transaction``) while the other, in a thread of its own, is seen waiting for
the series lock (``wait_until_blocked``), then the first commits. Whatever the order, no
date is booked twice, none is lost, nothing deadlocks, and the host's places and the
app's enrolled dates agree.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from revel_recurring.models import Enrolment, EnrolmentDate, EventSeries
from revel_recurring.services.enrolments import end_enrolment, enrol, skip_date
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.splits import split_series
from tests.hosts.testapp.models import Event, SeatHolder
from tests.support.concurrency import Background, held_in_transaction, race, wait_until_blocked
from tests.support.factories import NOW, fresh, occurrences, weekly_series

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]

WEEK = dt.timedelta(weeks=1)
#: Which side holds its transaction while the other waits for the series lock.
ORDERS = ("enrolment first", "schedule first")


def _user(name: str) -> Any:
    return get_user_model().objects.create_user(name, f"{name}@example.com", "pw")


def _class() -> EventSeries:
    """Mondays two weeks ahead, published: two dates, and a pass two weeks on adds two."""
    return weekly_series(auto_publish=True, window_weeks=2)


def _places(user: Any) -> list[Any]:
    """The events the host holds a place on for ``user``, each once: no date booked twice."""
    places = list(SeatHolder.objects.filter(user=user).values_list("event_id", flat=True))
    assert len(places) == len(set(places)), "a date booked twice"
    return places


def _agree(user: Any) -> set[Any]:
    """The host's places and the app's booked dates name the same events."""
    places = set(_places(user))
    booked = set(
        EnrolmentDate.objects.filter(
            user_pk=str(user.pk),
            state__in=(EnrolmentDate.State.BOOKED, EnrolmentDate.State.HELD),
        ).values_list("occurrence_pk", flat=True)
    )
    assert booked == {str(pk) for pk in places}
    return places


def _in_order(order: str, enrolment: Callable[[], Any], schedule: Callable[[], Any]) -> None:
    """Run both, the first of ``order`` holding its transaction while the other waits."""
    first, second = (enrolment, schedule) if order == ORDERS[0] else (schedule, enrolment)
    with held_in_transaction(first):
        waiting = Background(second)
        wait_until_blocked()
    waiting.result()


def _daily_pass(series: EventSeries, now: dt.datetime) -> Callable[[], Any]:
    return lambda: generate_series_chunk_events([series.pk], now=now)


@pytest.mark.parametrize("order", ORDERS)
def test_an_enrolment_made_while_the_daily_pass_runs_books_every_date_once(order: str) -> None:
    series = _class()
    anna, ben = _user("anna"), _user("ben")
    enrol(series, anna, now=NOW)

    _in_order(
        order, lambda: enrol(fresh(series), ben, now=NOW), _daily_pass(series, NOW + 2 * WEEK)
    )

    dates = {row.pk for row in occurrences(series)}
    assert len(dates) == 4, "the pass added its dates"
    assert _agree(anna) == dates
    assert _agree(ben) == dates, "the new date is booked for Ben too, whichever went first"


@pytest.mark.parametrize("order", ORDERS)
def test_an_enrolment_ended_while_the_daily_pass_runs_books_nothing_after_its_end(
    order: str,
) -> None:
    series = _class()
    anna = _user("anna")
    enrolment = enrol(series, anna, now=NOW).enrolment
    kept = {row.pk for row in occurrences(series)}
    last_day = max(row.starts_at for row in occurrences(series)).date()

    _in_order(
        order,
        lambda: end_enrolment(enrolment, on=last_day, now=NOW),
        _daily_pass(series, NOW + 2 * WEEK),
    )

    assert len(occurrences(series)) == 4
    assert _agree(anna) == kept, "the date after her last day is not hers, whichever went first"
    assert Enrolment.objects.get().ends_on == last_day


@pytest.mark.parametrize("order", ORDERS)
def test_a_skip_racing_a_generation_stays_skipped_and_the_new_date_is_booked(order: str) -> None:
    series = _class()
    anna = _user("anna")
    enrolment = enrol(series, anna, now=NOW).enrolment
    second = occurrences(series)[1]

    _in_order(
        order,
        lambda: skip_date(enrolment, second, now=NOW),
        lambda: generate_series_events(fresh(series), now=NOW + 2 * WEEK),
    )

    dates = {row.pk for row in occurrences(series)}
    assert len(dates) == 4
    assert _agree(anna) == dates - {second.pk}
    assert EnrolmentDate.objects.get(occurrence_pk=str(second.pk)).state == "skipped"


def test_skips_enrolments_and_generations_started_at_once_neither_deadlock_nor_double() -> None:
    series = _class()
    anna, ben = _user("anna"), _user("ben")
    enrolment = enrol(series, anna, now=NOW).enrolment
    second = occurrences(series)[1]

    errors = race(
        [
            lambda: skip_date(enrolment, second, now=NOW),
            lambda: enrol(fresh(series), ben, now=NOW),
            lambda: generate_series_events(fresh(series), now=NOW + 2 * WEEK),
            _daily_pass(series, NOW + 2 * WEEK),
        ]
    )

    assert errors == []
    dates = {row.pk for row in occurrences(series)}
    assert len(dates) == 4, "the two generations made two dates between them"
    assert _agree(anna) == dates - {second.pk}
    assert _agree(ben) == dates


@pytest.mark.parametrize("order", ORDERS)
def test_a_split_racing_an_enrolment_carries_it_to_the_continuation(order: str) -> None:
    """Split at the third Monday, the continuation on Mondays and Thursdays, while Ben
    enrols in the series: he is booked on every date of both halves, whichever went first."""
    series = weekly_series(auto_publish=True)
    rows = occurrences(series)
    ben = _user("ben")
    done: list[Any] = []

    def split() -> None:
        done.append(
            split_series(
                fresh(series),
                at=rows[2].starts_at,
                recurrence={"weekdays": [0, 3]},
                notify="none",
                now=NOW,
            )
        )

    _in_order(order, lambda: enrol(fresh(series), ben, now=NOW), split)

    (result,) = done
    both = {row.pk for row in Event.objects.filter(is_template=False)}
    assert len(both) == len(rows) + len(result.created)
    assert _agree(ben) == both, "no date of either half is lost"
    spans = dict(Enrolment.objects.values_list("series_id", "ends_on"))
    assert spans == {
        series.pk: rows[2].starts_at.date() - dt.timedelta(days=1),
        result.continuation.pk: None,
    }
