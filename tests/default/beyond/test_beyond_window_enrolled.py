"""A date made ahead of the window books the users enrolled in the series, once."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from revel_recurring.models import EnrolmentDate
from revel_recurring.services.beyond_window import materialize_date
from revel_recurring.services.enrolments import enrol
from revel_recurring.services.generation import generate_series_events
from tests.hosts.testapp.models import SeatHolder
from tests.support.factories import NOW, fresh, monday, occurrences, weekly_series

pytestmark = pytest.mark.django_db


def _user(name: str) -> Any:
    return get_user_model().objects.create_user(name, f"{name}@example.com", "pw")


def test_an_enrolled_user_is_booked_on_a_date_made_ahead_and_only_once() -> None:
    series = weekly_series(auto_publish=True)
    emil = _user("emil")
    enrol(series, emil, now=NOW)
    far = monday(26)

    made = materialize_date(series, far, now=NOW)

    assert made.created
    held = set(SeatHolder.objects.filter(user=emil).values_list("event_id", flat=True))
    assert made.occurrence.pk in held
    booked = EnrolmentDate.objects.filter(
        user_pk=str(emil.pk), occurrence_pk=str(made.occurrence.pk)
    )
    assert [date.state for date in booked] == [EnrolmentDate.State.BOOKED]

    # The window reaches it: the same row, no second booking, the dates around it booked.
    generate_series_events(fresh(series), now=monday(24))
    rows = [row for row in occurrences(series) if row.recurrence_id == far]
    assert [row.pk for row in rows] == [made.occurrence.pk]
    places = list(SeatHolder.objects.filter(user=emil).values_list("event_id", flat=True))
    assert places.count(made.occurrence.pk) == 1
    assert len(places) == len(set(places))
    assert {row.pk for row in occurrences(series) if row.starts_at > monday(24)} <= set(places)
