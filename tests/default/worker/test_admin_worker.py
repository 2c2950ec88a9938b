"""Queued admin actions run on a real Celery worker process through Redis, on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from celery import Celery, current_app
from django.test import override_settings

from revel_recurring.models import EventSeries
from tests.default.admin.test_admin_bulk_scope import ADAPTER, state
from tests.default.admin.test_admin_queued import staff
from tests.default.worker.test_worker import WORKER_MARKS
from tests.support.admin import texts
from tests.support.factories import make_series, occurrences
from tests.support.queued import CHANGELIST, select_all
from tests.support.worker_process import celery_worker, wait_until

pytestmark = WORKER_MARKS


@contextmanager
def sending_through(app: Celery) -> Iterator[None]:
    """The admin's tasks go to ``app``'s broker (Redis) instead of running eagerly here."""
    previous = current_app._get_current_object()  # type: ignore[attr-defined]
    app.set_current()
    try:
        yield
    finally:
        previous.set_current()


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
    assert "5 series queued to be paused." in texts(paused)
    worked = log.read_text()
    assert "revel_recurring.fan_out_series_chunks" in worked
    assert "revel_recurring.generate_series_chunk" in worked
    assert "revel_recurring.pause_series_chunk" in worked
    assert {pk: state(EventSeries.objects.get(pk=pk)) for pk in kept} == kept
