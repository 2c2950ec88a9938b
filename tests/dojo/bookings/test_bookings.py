"""The dojo's three booking hooks at work, and a template replaced under the host's key."""

from __future__ import annotations

import datetime as dt

import pytest

from revel_recurring.exceptions import OccurrenceHasBookingsError, SeriesHasBookingsError
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences, detect_cadence_drift
from revel_recurring.services.lifecycle import delete_series
from revel_recurring.services.templates import replace_template
from tests.dojo.conftest import template_of
from tests.hosts.dojo.models import Booking, Training, User
from tests.support.drift import drift_every_date

pytestmark = pytest.mark.django_db

Status = Training.Status


def test_a_booked_training_is_cancelled_only_when_asked_for_by_name(
    booked: tuple[EventSeries, list[Training]],
) -> None:
    series, rows = booked

    with pytest.raises(OccurrenceHasBookingsError):
        cancel_occurrence(series, rows[1].begins_at)
    assert Training.objects.get(pk=rows[1].slug).status == Status.BUCHBAR
    cancel_occurrence(series, rows[1].begins_at, include_booked=True)
    assert Training.objects.get(pk=rows[1].slug).status == Status.ABGESAGT


def test_cancel_stale_keeps_the_booked_training_and_deleting_the_series_is_refused(
    booked: tuple[EventSeries, list[Training]], member: User
) -> None:
    series, rows = booked
    Booking.objects.create(training=rows[3], member=member)
    drift_every_date(series)  # the rule ends before the trainings: all drift, none can move
    assert set(detect_cadence_drift(series)) >= {rows[1].slug, rows[3].slug}

    cancel_stale_occurrences(series)

    left = dict(Training.objects.filter(series=series).values_list("slug", "status"))
    assert left[rows[1].slug] == left[rows[3].slug] == Status.BUCHBAR
    assert left[rows[0].slug] == Status.ABGESAGT
    with pytest.raises(SeriesHasBookingsError) as refused:
        delete_series(series)
    assert {date.id for date in refused.value.booked} == {rows[1].slug, rows[3].slug}
    assert EventSeries.objects.filter(pk=series.pk).exists()


def test_a_replaced_template_gets_a_fresh_key_from_the_host(
    booked: tuple[EventSeries, list[Training]],
) -> None:
    series, _ = booked
    old = template_of(series).slug

    new = replace_template(
        series, {"title": "Karate Fortgeschrittene", "duration": dt.timedelta(hours=2)}
    )

    assert new.pk != old
    assert new.pk.startswith("karate-fortgeschrittene-serie-")
    assert template_of(series).pk == new.pk
    assert not Training.objects.filter(pk=old).exists()
