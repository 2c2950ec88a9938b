"""Who is booked on each date, per person, on the default host (``SeatHolder`` rows).

``people_booked_among`` names the holders; ``Seat.booked`` places are bookings of
nobody in particular, counted by ``booked_among`` and ``count_bookings_among`` and
named by no one.
"""

from __future__ import annotations

from typing import Any

import pytest

from revel_recurring.people import BookedPerson
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import occurrences, weekly_series
from tests.support.people import BookPerson

pytestmark = pytest.mark.django_db


def test_people_booked_among_names_each_dates_holders_in_one_query(
    book_person: BookPerson, django_assert_num_queries: Any
) -> None:
    rows = occurrences(weekly_series(frequency="DAILY", window_weeks=4))
    alice = book_person(rows[1], "alice@example.com", name="Alice", language="de")
    bob = book_person(rows[1], "bob@example.com", timezone="America/New_York")
    carol = book_person(rows[20], "carol@example.com", name="Carol", language="en")

    with django_assert_num_queries(1):
        people = Event.people_booked_among(rows)

    assert people == {rows[1].pk: [alice, bob], rows[20].pk: [carol]}
    assert alice == BookedPerson("alice@example.com", "Alice", "de", "")
    assert bob == BookedPerson("bob@example.com", "", "", "America/New_York")


def test_an_unbooked_date_and_seats_booked_by_nobody_in_particular_name_nobody(
    book_person: BookPerson,
) -> None:
    rows = occurrences(weekly_series())
    Seat.objects.create(event=rows[2], label="Door", quantity=5, booked=3)
    book_person(rows[1], "alice@example.com")

    people = Event.people_booked_among(rows)

    assert rows[0].pk not in people
    assert rows[2].pk not in people
    assert list(people) == [rows[1].pk]


def test_a_person_holding_two_places_is_named_once(book_person: BookPerson) -> None:
    rows = occurrences(weekly_series())
    alice = book_person(rows[1], "alice@example.com", name="Alice")
    book_person(rows[1], "Alice@Example.COM", name="Alice again")

    assert Event.people_booked_among(rows) == {rows[1].pk: [alice]}


def test_no_events_no_query(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        assert Event.people_booked_among([]) == {}


def test_a_holder_books_the_date_and_counts_beside_the_seats_places(
    book_person: BookPerson, django_assert_num_queries: Any
) -> None:
    rows = occurrences(weekly_series())
    book_person(rows[1], "alice@example.com")
    book_person(rows[3], "bob@example.com")
    Seat.objects.create(event=rows[3], label="Door", quantity=5, booked=2)
    Seat.objects.create(event=rows[5], label="Door", quantity=5, booked=4)
    Seat.objects.create(event=rows[6], label="Door", quantity=5, booked=0)

    with django_assert_num_queries(1):
        assert Event.booked_among(rows) == {rows[1].pk, rows[3].pk, rows[5].pk}
    with django_assert_num_queries(1):
        assert Event.count_bookings_among(rows) == {rows[1].pk: 1, rows[3].pk: 3, rows[5].pk: 4}
    assert [row.has_bookings() for row in rows[:7]] == [
        False,
        True,
        False,
        True,
        False,
        True,
        False,
    ]
