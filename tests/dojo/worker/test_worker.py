"""The daily pass on the dojo through a real Celery worker on Redis (PostgreSQL or MariaDB)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.db import connection

from revel_recurring.models import EventSeries
from tests.dojo.conftest import MakeSeries, trainings
from tests.hosts.dojo.models import Training
from tests.support.worker_process import celery_worker, redis_answers, wait_until

pytestmark = [
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor not in ("postgresql", "mysql"),
        reason="the worker needs a database server (PostgreSQL or MariaDB)",
    ),
    pytest.mark.skipif(not redis_answers(), reason="no Redis on 127.0.0.1:6379"),
]


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
