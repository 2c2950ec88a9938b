"""The people booked on changed dates are told once per operation (the dojo: slug keys, German).

The scenario is tests/support/people.py's, on its Tuesday trainings (Berlin, a slug
primary key, IntegerChoices status, a duration instead of an end, German by default).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.people import OPERATIONS, BookPerson, MakeSeries, check_people_told


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_each_person_booked_on_a_changed_date_is_told_once_with_their_dates(
    make_series: MakeSeries,
    book_person: BookPerson,
    django_capture_on_commit_callbacks: Any,
    operation: str,
) -> None:
    check_people_told(make_series, book_person, django_capture_on_commit_callbacks, operation)


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_nobody_is_told_when_the_operation_says_none(
    make_series: MakeSeries,
    book_person: BookPerson,
    django_capture_on_commit_callbacks: Any,
    operation: str,
) -> None:
    check_people_told(
        make_series, book_person, django_capture_on_commit_callbacks, operation, notify="none"
    )
