"""Who acts, through what: the API, the admin, a command and a queued task name themselves."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.core.management import call_command

from revel_recurring.models import QueuedAction, SeriesOperation
from revel_recurring.tasks import pause_series_chunk
from tests.support.admin import change_url
from tests.support.api import client, user_with
from tests.support.factories import occurrences
from tests.support.history_checks import MakeSeries

API = "/api/recurring/series/"

pytestmark = pytest.mark.django_db


def _newest() -> SeriesOperation:
    newest = SeriesOperation.objects.order_by("-created_at", "-pk").first()
    assert newest is not None
    return newest


@pytest.mark.urls("tests.api_urls")
def test_a_change_through_the_api_names_its_user(
    django_user_model: Any, history_series: MakeSeries
) -> None:
    editor = user_with(django_user_model, "editor", "change_eventseries")
    series = history_series(name="Api")
    first = occurrences(series)[0]

    answer = client(editor).post(
        f"{API}{series.pk}/cancel-occurrence/",
        {"occurrence": first.starts_at.isoformat()},
        format="json",
    )

    assert answer.status_code == 200, answer.json()
    record = _newest()
    assert (record.kind, record.face, record.actor, record.actor_name) == (
        "cancel",
        "api",
        str(editor.pk),
        "editor",
    )
    assert list(record.rows.values_list("occurrence_pk", flat=True)) == [str(first.pk)]


def test_a_change_in_the_admin_names_its_user(
    admin_client: Any, admin_user: Any, history_series: MakeSeries
) -> None:
    series = history_series(name="Admin")

    admin_client.post(change_url(series, "pause"), follow=True)

    record = _newest()
    assert (record.kind, record.face, record.actor) == ("pause", "admin", str(admin_user.pk))
    assert record.before["is_active"] is True
    assert record.after["is_active"] is False


def test_a_command_records_through_the_face_command(history_series: MakeSeries) -> None:
    series = history_series(name="Command", generate=False)

    call_command("revel_recurring_generate", "--series", str(series.pk), stdout=None)

    record = _newest()
    assert (record.kind, record.face, record.actor) == ("generate", "command", "")
    assert record.row_count == len(occurrences(series)) > 0


def test_a_queued_action_acts_for_the_user_who_queued_it(history_series: MakeSeries) -> None:
    several = [history_series(name=f"Queued {n}") for n in range(2)]
    queued = QueuedAction.objects.create(
        action=QueuedAction.Action.PAUSE, user_pk="42", user_name="ada", series_count=2
    )

    pause_series_chunk.apply(
        args=([one.pk for one in several],), kwargs={"queued_action": queued.pk}
    ).get()

    records = list(SeriesOperation.objects.filter(kind="pause"))
    assert len(records) == 2
    assert {(r.face, r.actor, r.actor_name) for r in records} == {("task", "42", "ada")}
    assert {r.batch_id for r in records} == {uuid.UUID(int=queued.pk)}
