"""Who is booked on each training, per member: ``Booking`` joined to the dojo's ``User``.

Members read German unless they chose another language (the user's default, "de").
"""

from __future__ import annotations

from typing import Any

import pytest

from revel_recurring.people import BookedPerson
from tests.dojo.conftest import MakeSeries, trainings
from tests.hosts.dojo.models import Booking, Training, User
from tests.support.people import BookPerson

pytestmark = pytest.mark.django_db


def test_people_booked_among_names_each_trainings_members_in_one_query(
    make_series: MakeSeries, book_person: BookPerson, django_assert_num_queries: Any
) -> None:
    rows = trainings(make_series(weekdays=(1, 3)))
    jana = book_person(rows[1], "jana@dojo.example", name="Jana")
    kim = book_person(rows[1], "kim@dojo.example", language="en", timezone="Asia/Tokyo")
    kim_again = book_person(rows[5], "KIM@dojo.example")

    with django_assert_num_queries(1):
        people = Training.people_booked_among(rows)

    assert people == {rows[1].pk: [jana, kim], rows[5].pk: [kim]}
    assert jana == BookedPerson("jana@dojo.example", "Jana", "de", "")
    assert kim_again == kim == BookedPerson("kim@dojo.example", "", "en", "Asia/Tokyo")


def test_an_unbooked_training_names_nobody(
    make_series: MakeSeries, book_person: BookPerson
) -> None:
    rows = trainings(make_series())
    book_person(rows[2], "jana@dojo.example")

    assert list(Training.people_booked_among(rows)) == [rows[2].pk]
    assert Training.people_booked_among(rows[:2]) == {}


def test_a_member_booked_twice_is_named_once_in_german(
    make_series: MakeSeries, member: User
) -> None:
    rows = trainings(make_series())
    Booking.objects.create(training=rows[0], member=member)
    Booking.objects.create(training=rows[0], member=member)

    assert Training.people_booked_among(rows) == {
        rows[0].pk: [BookedPerson(member.email, language="de")]
    }
    assert Training.count_bookings_among(rows) == {rows[0].pk: 2}


def test_no_trainings_no_query(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        assert Training.people_booked_among([]) == {}


def test_a_booked_person_books_the_training(
    make_series: MakeSeries, book_person: BookPerson
) -> None:
    rows = trainings(make_series())
    book_person(rows[3], "jana@dojo.example")

    assert Training.booked_among(rows) == {rows[3].pk}
    assert Training.count_bookings_among(rows) == {rows[3].pk: 1}
