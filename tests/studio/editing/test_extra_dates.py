"""Extra dates on the studio host: UUID lesson keys, a pupil's booking on an extra date."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest
from django.core.exceptions import ValidationError

from revel_recurring import rules
from revel_recurring.exceptions import OccurrenceHasBookingsError
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import detect_cadence_drift
from revel_recurring.services.extra_dates import add_extra_date, remove_extra_date
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.splits import split_series
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.conftest import BERLIN, MakeSeries, lessons

pytestmark = pytest.mark.django_db


def _saturday_after(lesson: Lesson) -> dt.datetime:
    day = lesson.begins.astimezone(BERLIN) + dt.timedelta(days=2)
    return day.replace(hour=11, minute=0)


def test_a_booked_extra_date_is_kept_through_a_cadence_change_and_never_removed_silently(
    make_series: MakeSeries, pupil: User
) -> None:
    series = make_series(generation_window_weeks=6)
    saturday = _saturday_after(lessons(series)[1])
    extra = add_extra_date(series, saturday)
    assert extra is not None
    assert isinstance(extra.pk, uuid.UUID)
    assert [row.pk for row in lessons(series)].count(extra.pk) == 1
    Booking.objects.create(lesson=extra, pupil=pupil)

    with pytest.raises(OccurrenceHasBookingsError) as caught:
        remove_extra_date(series, saturday)
    assert [date.id for date in caught.value.booked] == [extra.pk]
    assert "11:00" in str(caught.value)
    with pytest.raises(OccurrenceHasBookingsError):
        cancel_occurrence(series, saturday)

    # Thursdays -> Fridays: every Thursday drifts, the booked Saturday stays.
    plan = plan_recurrence_change(series, {"weekdays": [4]})
    assert {row.id: row.bookings for row in plan.stay} == {extra.pk: 1}
    assert extra.pk not in {row.id for row in plan.drift}
    apply_recurrence_plan(series, plan.hash, {"weekdays": [4]}, cancel_drift="unbooked")
    assert extra.pk not in detect_cadence_drift(EventSeries.objects.get(pk=series.pk))
    kept = Lesson.objects.get(pk=extra.pk)
    assert kept.occurrence_status != Lesson.RECURRING_STATUS_CANCELLED
    assert Booking.objects.get(pupil=pupil).lesson_id == extra.pk
    assert rules.to_utc(kept.begins) == rules.to_utc(saturday)

    cancel_occurrence(series, saturday, include_booked=True)
    restore_occurrence(series, saturday)
    assert Lesson.objects.get(pk=extra.pk).occurrence_status != Lesson.RECURRING_STATUS_CANCELLED


def test_a_split_carries_a_booked_extra_date_to_the_continuation(
    make_series: MakeSeries, pupil: User
) -> None:
    series = make_series(generation_window_weeks=6)
    rows = lessons(series)
    saturday = _saturday_after(rows[3])
    extra = add_extra_date(series, saturday)
    assert extra is not None
    Booking.objects.create(lesson=extra, pupil=pupil)
    continuation = split_series(series, at=rules.to_utc(rows[2].begins)).continuation
    assert continuation.extra_dates == [rules.format_instant(saturday)]
    assert EventSeries.objects.get(pk=series.pk).extra_dates == []
    assert Lesson.objects.get(pk=extra.pk).series_id == continuation.pk
    assert detect_cadence_drift(continuation) == []
    with pytest.raises(ValidationError):
        add_extra_date(continuation, saturday)
