"""Queued admin actions run on a real Celery worker process through Redis, on PostgreSQL.

The worker completes each action's record (done, failed and why, when it finished),
which the series list then shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.test import override_settings
from django.utils import timezone

from revel_recurring.models import EventSeries, QueuedAction, QueuedActionFailure
from revel_recurring.services.generation import generate_series_events
from tests.default.admin.test_admin_bulk_scope import ADAPTER, state
from tests.default.admin.test_admin_queued import book, staff
from tests.default.worker.test_worker import WORKER_MARKS
from tests.support.admin import texts
from tests.support.factories import make_series, occurrences
from tests.support.queued import CHANGELIST, select_all
from tests.support.worker_process import celery_worker, sending_through, wait_until

pytestmark = WORKER_MARKS


@override_settings(
    REVEL_RECURRING_ADAPTER=ADAPTER,
    REVEL_RECURRING_ADMIN_INLINE_LIMIT=3,
)
def test_queued_admin_actions_change_exactly_the_editable_selection_on_a_worker(
    client: Any, django_user_model: Any, tmp_path: Path
) -> None:
    mine = [make_series(name=f"Mine {n}") for n in range(5)]
    theirs = make_series(name="Theirs Mine")  # found by the search, only viewable
    other = make_series(name="Elsewhere")  # not found by the search
    kept = {series.pk: state(series) for series in (theirs, other)}
    staff(client, django_user_model)
    log = tmp_path / "worker.log"

    with celery_worker(log) as app, sending_through(app):
        generated = client.post(
            f"{CHANGELIST}?q=Mine", select_all("generate_now_action", [mine[0].pk]), follow=True
        )
        assert wait_until(lambda: all(len(occurrences(s)) == 8 for s in mine)), log.read_text()
        paused = client.post(
            f"{CHANGELIST}?q=Mine", select_all("pause_action", [mine[0].pk]), follow=True
        )
        assert wait_until(
            lambda: not EventSeries.objects.filter(pk__in=[s.pk for s in mine], is_active=True)
        ), log.read_text()

    assert any(text.startswith("5 series queued for generation") for text in texts(generated))
    assert "5 series queued to be paused; this page shows when it has finished." in texts(paused)
    worked = log.read_text()
    assert "revel_recurring.fan_out_series_chunks" in worked
    assert "revel_recurring.generate_series_chunk" in worked
    assert "revel_recurring.pause_series_chunk" in worked
    assert {pk: state(EventSeries.objects.get(pk=pk)) for pk in kept} == kept


@override_settings(REVEL_RECURRING_ADMIN_INLINE_LIMIT=3)
def test_a_queued_deletion_on_a_worker_completes_its_record_with_the_booked_series_named(
    admin_client: Any, admin_user: Any, tmp_path: Path
) -> None:
    series = [make_series(name=f"Yoga {n}") for n in range(5)]
    for one in series:
        generate_series_events(one, now=timezone.now())
    book(occurrences(series[2])[0].pk)
    data = select_all("delete_selected", [series[0].pk])
    log = tmp_path / "worker.log"

    with celery_worker(log) as app, sending_through(app):
        admin_client.post(CHANGELIST, data)
        admin_client.post(CHANGELIST, {**data, "post": "yes"})
        assert wait_until(
            lambda: QueuedAction.objects.filter(finished_at__isnull=False).exists()
        ), log.read_text()

    record = QueuedAction.objects.get()
    assert (record.action, record.user_pk) == ("delete", str(admin_user.pk))
    assert (record.series_count, record.done, record.failed) == (5, 4, 1)
    failure = QueuedActionFailure.objects.get(queued_action=record)
    assert (failure.series_pk, failure.series_name) == (series[2].pk, "Yoga 2")
    assert "has bookings" in failure.reason
    shown = admin_client.get(CHANGELIST).content.decode()
    assert ": 4 of 5 series done, 1 failed." in shown
    assert "<li>Yoga 2: " in shown
    assert "revel_recurring.delete_series_chunk" in log.read_text()
