"""The dojo through a real Celery worker on Redis (PostgreSQL or MariaDB).

The daily pass, and a queued admin action whose record the worker completes.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from django.test import Client, override_settings

from revel_recurring.models import EventSeries, QueuedAction, QueuedActionFailure
from tests.dojo.conftest import MakeSeries, trainings
from tests.hosts.dojo.models import Booking, Training, User
from tests.support.queued import CHANGELIST, select_all
from tests.support.worker_process import (
    SERVER_WORKER_MARKS,
    celery_worker,
    sending_through,
    wait_until,
)

pytestmark = SERVER_WORKER_MARKS


def test_the_daily_pass_on_a_real_worker_gives_every_training_its_slug(
    make_series: MakeSeries, tmp_path: Path
) -> None:
    karate = make_series(generate=False, generation_window_weeks=3)
    judo = make_series(name="Judo Kinder", weekdays=(3,), generate=False, auto_publish=False)
    assert not trainings(karate)
    assert not trainings(judo)
    log = tmp_path / "worker.log"

    with celery_worker(log, settings="tests.settings_dojo") as client:
        result = client.send_task("revel_recurring.generate_all_series")
        assert result.get(timeout=90)["failed"] == 0, log.read_text()
        assert wait_until(lambda: bool(trainings(karate)) and bool(trainings(judo))), (
            log.read_text()
        )

    made = trainings(karate)
    assert len(made) == 3, log.read_text()
    assert [row.slug for row in made] == [
        f"karate-anfanger-{karate.pk}-{row.begins_at.astimezone(dt.UTC):%Y%m%d-%H%M}"
        for row in made
    ]
    assert {row.status for row in made} == {Training.Status.BUCHBAR}
    assert {row.status for row in trainings(judo)} == {Training.Status.ENTWURF}
    assert all(row.slug.startswith(f"judo-kinder-{judo.pk}-") for row in trainings(judo))
    assert EventSeries.objects.get(pk=karate.pk).last_generated_until is not None


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=2, REVEL_RECURRING_GENERATION_CHUNK_SIZE=2)
def test_a_queued_deletion_on_a_worker_completes_its_record_and_the_list_names_the_booked_one(
    make_series: MakeSeries, trainer: User, member: User, tmp_path: Path
) -> None:
    made = [make_series(name=name) for name in ("Karate", "Judo", "Aikido", "Kendo")]
    Booking.objects.create(training=trainings(made[1])[0], member=member)
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.force_login(trainer)  # type: ignore[arg-type]
    data = select_all("delete_selected", [made[0].pk])
    log = tmp_path / "worker.log"

    with celery_worker(log, settings="tests.settings_dojo") as app, sending_through(app):
        client.post(CHANGELIST, data)
        client.post(CHANGELIST, {**data, "post": "yes"})
        assert wait_until(
            lambda: QueuedAction.objects.filter(finished_at__isnull=False).exists(), seconds=90
        ), log.read_text()

    record = QueuedAction.objects.get()
    assert (record.user_pk, record.user_name) == (str(trainer.pk), trainer.email)
    assert (record.series_count, record.done, record.failed) == (4, 3, 1)
    failure = QueuedActionFailure.objects.get(queued_action=record)
    assert (failure.series_pk, failure.series_name) == (made[1].pk, "Judo")
    shown = client.get(CHANGELIST).content.decode()
    assert "Letzte Sammelaktionen" in shown
    assert ": 3 von 4 Serien erledigt, 1 fehlgeschlagen." in shown
    assert "<li>Judo: " in shown
    assert list(EventSeries.objects.values_list("name", flat=True)) == ["Judo"]
