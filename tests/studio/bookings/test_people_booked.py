"""Who is booked on each lesson, per pupil: ``Booking`` joined to the studio's ``User``."""

from __future__ import annotations

from typing import Any

import pytest

from revel_recurring.people import BookedPerson
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import MakeSeries, lessons
from tests.support.people import BookPerson

pytestmark = pytest.mark.django_db


def test_people_booked_among_names_each_lessons_pupils_in_one_query(
    make_series: MakeSeries, book_person: BookPerson, django_assert_num_queries: Any
) -> None:
    rows = lessons(make_series(weekdays=(1, 3)))
    anna = book_person(rows[1], "anna@studio.example", name="Anna", language="de")
    ben = book_person(rows[1], "ben@studio.example", timezone="America/New_York")
    anna_again = book_person(rows[4], "anna@studio.example")

    with django_assert_num_queries(1):
        people = Lesson.people_booked_among(rows)

    assert people == {rows[1].pk: [anna, ben], rows[4].pk: [anna]}
    assert anna_again == anna == BookedPerson("anna@studio.example", "Anna", "de", "")
    assert ben == BookedPerson("ben@studio.example", "", "", "America/New_York")


def test_an_unbooked_lesson_names_nobody(make_series: MakeSeries, book_person: BookPerson) -> None:
    rows = lessons(make_series())
    book_person(rows[2], "anna@studio.example")

    people = Lesson.people_booked_among(rows)

    assert list(people) == [rows[2].pk]
    assert Lesson.people_booked_among(rows[:2]) == {}


def test_a_pupil_booked_twice_is_named_once_and_counted_twice(
    make_series: MakeSeries, pupil: User
) -> None:
    rows = lessons(make_series())
    Booking.objects.create(lesson=rows[0], pupil=pupil)
    Booking.objects.create(lesson=rows[0], pupil=pupil)

    assert Lesson.people_booked_among(rows) == {rows[0].pk: [BookedPerson(pupil.email)]}
    assert Lesson.count_bookings_among(rows) == {rows[0].pk: 2}


def test_no_lessons_no_query(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        assert Lesson.people_booked_among([]) == {}


def test_a_booked_person_books_the_lesson(make_series: MakeSeries, book_person: BookPerson) -> None:
    rows = lessons(make_series())
    book_person(rows[3], "anna@studio.example")

    assert Lesson.booked_among(rows) == {rows[3].pk}
    assert Lesson.count_bookings_among(rows) == {rows[3].pk: 1}
