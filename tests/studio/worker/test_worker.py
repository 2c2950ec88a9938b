"""The studio through a real Celery worker on Redis: a queued action's record, UUID user.

The studio's user has a UUID key; the record keeps it as text, and the worker
completes the record the series list shows.
"""

from __future__ import annotations

from pathlib import Path

from django.test import Client, override_settings

from revel_recurring.models import EventSeries, QueuedAction, QueuedActionFailure
from tests.hosts.studio.models import Booking, Lesson, User
from tests.studio.bookings.test_admin_bookings import owner
from tests.studio.conftest import MakeSeries
from tests.support.queued import CHANGELIST, select_all
from tests.support.worker_process import (
    SERVER_WORKER_MARKS,
    celery_worker,
    sending_through,
    wait_until,
)

__all__ = ["owner"]  # the fixture, used by name

pytestmark = SERVER_WORKER_MARKS


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2, REVEL_RECURRING_GENERATION_CHUNK_SIZE=2)
def test_a_queued_deletion_on_a_worker_records_the_uuid_user_and_names_the_booked_series(
    owner: Client, make_series: MakeSeries, pupil: User, tmp_path: Path
) -> None:
    made = [make_series(name=name) for name in ("Salsa", "Tango", "Bachata")]
    Booking.objects.create(lesson=Lesson.objects.filter(series=made[2]).first(), pupil=pupil)
    data = select_all("delete_selected", [made[0].pk])
    log = tmp_path / "worker.log"

    with celery_worker(log, settings="tests.settings_studio") as app, sending_through(app):
        owner.post(CHANGELIST, data)
        owner.post(CHANGELIST, {**data, "post": "yes"})
        assert wait_until(
            lambda: QueuedAction.objects.filter(finished_at__isnull=False).exists(), seconds=90
        ), log.read_text()

    user = User.objects.get(email="owner@studio.example")
    record = QueuedAction.objects.get()
    assert (record.user_pk, record.user_name) == (str(user.pk), "owner@studio.example")
    assert (record.series_count, record.done, record.failed) == (3, 2, 1)
    failure = QueuedActionFailure.objects.get(queued_action=record)
    assert (failure.series_pk, failure.series_name) == (made[2].pk, "Bachata")
    shown = owner.get(CHANGELIST).content.decode()
    assert ": 2 of 3 series done, 1 failed." in shown
    assert "<li>Bachata: " in shown
    assert list(EventSeries.objects.values_list("name", flat=True)) == ["Bachata"]
