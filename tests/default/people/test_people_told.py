"""The people booked on changed dates are told once per operation (the default host).

The scenario is tests/support/people.py's; this host's series are Monday classes in
Vienna, published, from the coming Monday.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from revel_recurring.models import EventSeries
from revel_recurring.services.lifecycle import create_recurring_series
from tests.support.factories import VIENNA
from tests.support.holidays import coming_monday
from tests.support.people import OPERATIONS, BookPerson, MakeSeries, check_people_told


@pytest.fixture
def make_series(db: Any) -> MakeSeries:
    """Mondays 18:30 Vienna from the coming Monday, 90 minutes, eight weeks generated."""

    def build(*, name: str, **options: Any) -> EventSeries:
        start = coming_monday(VIENNA, hour=18).replace(minute=30)
        return create_recurring_series(
            name=name,
            rule_data={"frequency": "WEEKLY", "dtstart": start, "timezone": "Europe/Vienna"},
            template_data={"title": name, "ends_at": start + dt.timedelta(minutes=90)},
            auto_publish=True,
            generation_window_weeks=8,
            **options,
        )

    return build


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
