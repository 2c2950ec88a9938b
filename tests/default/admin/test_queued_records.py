"""A queued admin action keeps a record: the series list shows it running, then finished.

The tasks wait in the in-memory broker (``broker``) until the test runs them as a
worker would, so the list is read both while the action is queued and after it
finished. The real worker on Redis is in tests/default/worker/test_admin_worker.py.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from revel_recurring.models import EventSeries, QueuedAction, QueuedActionFailure
from revel_recurring.services import queued_actions
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import delete_series
from revel_recurring.tasks import generate_all_series
from tests.default.admin.test_admin_queued import book, staff
from tests.support.admin import texts
from tests.support.factories import make_series, occurrences
from tests.support.queued import CHANGELIST, Broker, broker, broker_down, select_all

__all__ = ["broker", "broker_down"]  # fixtures, used by name

pytestmark = pytest.mark.django_db

SMALL_LIMIT = override_settings(
    REVEL_RECURRING_ADMIN_INLINE_LIMIT=3, REVEL_RECURRING_GENERATION_CHUNK_SIZE=2
)
RECORDS = "/admin/revel_recurring/queuedaction/"


def recent(client: Client) -> str:
    """The "Recent bulk actions" module of the series list, as text ("" when absent)."""
    html = client.get(CHANGELIST).content.decode()
    start = html.find('id="revel-queued"')
    if start == -1:
        return ""
    return html[start : html.index("</div>", start)]


def generated(name: str) -> EventSeries:
    series = make_series(name=name)
    generate_series_events(series, now=timezone.now())
    return series


@SMALL_LIMIT
def test_a_queued_deletion_shows_running_then_finished_with_the_booked_series_named(
    admin_client: Client, admin_user: Any, broker: Broker
) -> None:
    series = [generated(f"Yoga {n}") for n in range(5)]
    book(occurrences(series[3])[0].pk)
    data = select_all("delete_selected", [series[0].pk])

    admin_client.post(CHANGELIST, data)
    done = admin_client.post(CHANGELIST, {**data, "post": "yes"}, follow=True)
    running = recent(admin_client)
    broker.run()
    finished = recent(admin_client)

    said = " ".join(texts(done))
    assert said.startswith("5 series queued for deletion")
    assert "this page shows when it has finished" in said.lower()
    assert "Celery" not in said
    assert "worker" not in said
    record = QueuedAction.objects.get()
    assert (record.action, record.user_name, record.user_pk) == (
        "delete",
        admin_user.get_username(),
        str(admin_user.pk),
    )
    assert (record.series_count, record.done, record.failed) == (5, 4, 1)
    assert record.finished_at is not None
    assert "Recent bulk actions" in running
    assert "Delete, 5 series, queued" in running
    assert "Running: 0 of 5 series done, 0 failed." in running
    assert "Finished " in finished
    assert ": 4 of 5 series done, 1 failed." in finished
    failure = QueuedActionFailure.objects.get()
    assert (failure.series_pk, failure.series_name) == (series[3].pk, "Yoga 3")
    assert "has bookings" in failure.reason
    assert f"<li>Yoga 3: {failure.reason}</li>" in finished.replace("&#x27;", "'")
    assert "Celery" not in finished
    assert "worker" not in finished
    assert set(EventSeries.objects.values_list("name", flat=True)) == {"Yoga 3"}


@SMALL_LIMIT
def test_every_queued_action_completes_its_record_chunk_by_chunk(
    admin_client: Client, broker: Broker
) -> None:
    series = [generated(f"Run {n}") for n in range(5)]
    shown = [series[0].pk]

    for action in ("pause_action", "resume_action", "generate_now_action"):
        admin_client.post(CHANGELIST, select_all(action, shown))
    # Gone before its turn: the pause names it as failed, the resume too.
    gone = series[4].pk
    delete_series(series[4])
    results = broker.run()

    # Chunks of two series: each record is counted by three chunks.
    assert len(results["revel_recurring.pause_series_chunk"]) == 3
    records = {r.action: r for r in QueuedAction.objects.all()}
    assert {a: (r.series_count, r.done, r.failed) for a, r in records.items()} == {
        "pause": (5, 4, 1),
        "resume": (5, 4, 1),
        "generate": (5, 5, 0),  # a series gone has nothing left to generate
    }
    assert all(r.finished_at is not None for r in records.values())
    assert list(
        QueuedActionFailure.objects.filter(queued_action=records["pause"]).values_list(
            "series_pk", "series_name", "reason"
        )
    ) == [(gone, f"#{gone}", "The series no longer exists.")]


@SMALL_LIMIT
def test_the_list_shows_only_the_viewers_own_actions_and_the_records_page_is_read_only(
    admin_client: Client, client: Client, django_user_model: Any, broker: Broker
) -> None:
    series = [generated(f"Swim {n}") for n in range(4)]
    admin_client.post(CHANGELIST, select_all("pause_action", [series[0].pk]))
    clerk = staff(client, django_user_model)
    client.post(CHANGELIST, select_all("resume_action", [series[0].pk]))
    broker.run()
    mine = QueuedAction.objects.get(user_pk=str(clerk.pk))
    theirs = QueuedAction.objects.exclude(pk=mine.pk).get()

    shown = recent(client)
    listed = client.get(RECORDS)
    page = client.get(f"{RECORDS}{mine.pk}/change/")
    other = client.get(f"{RECORDS}{theirs.pk}/change/")
    posted = client.post(f"{RECORDS}{mine.pk}/change/", {"done": "0"})
    admin_listed = admin_client.get(RECORDS)

    assert "Resume, 4 series" in shown
    assert "Pause" not in shown
    assert f'href="{RECORDS}{mine.pk}/change/"' in shown
    assert listed.status_code == 200
    assert list(listed.context["cl"].result_list) == [mine]
    assert page.status_code == 200
    assert "4 of 4 series done, 0 failed" in page.content.decode()
    assert other.status_code == 302  # not theirs to read: back to the admin index
    assert posted.status_code == 403
    assert client.get(f"{RECORDS}add/").status_code == 403
    assert set(admin_listed.context["cl"].result_list) == {mine, theirs}
    mine.refresh_from_db()
    assert mine.done == 4


@SMALL_LIMIT
def test_with_the_broker_down_no_record_is_left(admin_client: Client, broker_down: str) -> None:
    series = [generated(f"Dive {n}") for n in range(4)]

    done = admin_client.post(CHANGELIST, select_all("pause_action", [series[0].pk]), follow=True)

    assert texts(done)[0].startswith("Nothing was queued")
    assert not QueuedAction.objects.exists()
    assert recent(admin_client) == ""


def old_record(days: float, *, failures: int = 0) -> QueuedAction:
    record = QueuedAction.objects.create(
        action="pause",
        series_count=failures or 1,
        failed=failures,
        queued_at=timezone.now() - dt.timedelta(days=days),
    )
    QueuedActionFailure.objects.bulk_create(
        QueuedActionFailure(queued_action=record, series_pk=n, series_name=f"S{n}", reason="x")
        for n in range(failures)
    )
    return record


@override_settings(REVEL_RECURRING_QUEUED_ACTION_DAYS=3)
def test_the_daily_pass_removes_records_older_than_the_setting_in_bounded_batches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(queued_actions, "PURGE_BATCH", 2)
    old = [old_record(3.5, failures=2) for _ in range(5)]
    kept = [old_record(2.5, failures=1), old_record(0)]

    with CaptureQueriesContext(connection) as queries:
        generate_all_series.delay().get()

    assert set(QueuedAction.objects.all()) == set(kept)
    assert QueuedActionFailure.objects.count() == 1
    assert not QueuedActionFailure.objects.filter(queued_action_id__in=[r.pk for r in old])
    # Five old records, two per batch: three reads of at most two ids each.
    table = f"FROM {connection.ops.quote_name('revel_recurring_queuedaction')}"
    reads = [q["sql"] for q in queries if table in q["sql"]]
    assert len([sql for sql in reads if "LIMIT 2" in sql]) == 3


@SMALL_LIMIT
@override_settings(REVEL_RECURRING_QUEUED_ACTION_DAYS=1)
def test_a_new_queued_action_removes_the_records_past_the_setting(
    admin_client: Client, broker: Broker
) -> None:
    old = old_record(1.5, failures=1)
    series = [generated(f"Row {n}") for n in range(4)]

    admin_client.post(CHANGELIST, select_all("pause_action", [series[0].pk]))
    broker.run()

    assert not QueuedAction.objects.filter(pk=old.pk).exists()
    assert QueuedAction.objects.get().action == "pause"
    assert "Pause, 4 series" in recent(admin_client)


@override_settings(REVEL_RECURRING_QUEUED_ACTION_DAYS=2)
def test_the_list_leaves_out_a_record_past_the_setting_not_yet_removed(
    admin_client: Client, admin_user: Any
) -> None:
    record = old_record(2.5)
    QueuedAction.objects.filter(pk=record.pk).update(user_pk=str(admin_user.pk))

    assert recent(admin_client) == ""
    assert admin_client.get(f"{RECORDS}{record.pk}/change/").status_code == 302
