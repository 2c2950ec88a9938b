"""One batch: atomicity, the digest after commit, suppression, constant query count."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.notifications import event_notifications_suppressed
from revel_recurring.services.generation import generate_series_events
from revel_recurring.signals import series_events_generated
from tests.hosts.testapp import notifier
from tests.hosts.testapp.models import Event, Seat
from tests.support.factories import NOW, make_series, occurrences

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clear_recordings() -> None:
    notifier.digests.clear()
    notifier.per_event_notifications.clear()


def test_failure_on_third_occurrence_rolls_back_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    series = make_series()
    before = (series.last_generated_until, series.next_due_at)
    original = Event.prepare_occurrence
    calls = {"n": 0}

    def flaky(self: Event, **kwargs: Any) -> Event:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("host hook failed")
        return original(self, **kwargs)

    monkeypatch.setattr(Event, "prepare_occurrence", flaky)
    with pytest.raises(RuntimeError, match="host hook failed"):
        generate_series_events(series, now=NOW)
    series.refresh_from_db()
    assert occurrences(series) == []
    assert (series.last_generated_until, series.next_due_at) == before


def test_failure_after_insert_rolls_back_occurrences_and_cursor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    series.refresh_from_db()
    cursor = series.last_generated_until

    def broken_clone(cls: type[Event], template: Event, created: Sequence[Event]) -> None:
        assert all(e.pk for e in created)  # the rows were inserted before this failed
        raise RuntimeError("tier copy failed")

    monkeypatch.setattr(Event, "clone_related", classmethod(broken_clone))
    with pytest.raises(RuntimeError, match="tier copy failed"):
        generate_series_events(series, now=NOW + dt.timedelta(weeks=3))
    series.refresh_from_db()
    assert len(occurrences(series)) == 8
    assert series.last_generated_until == cursor


def test_one_digest_per_batch_after_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = make_series(auto_publish=True)
    received: list[dict[str, Any]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        received.append(kwargs)

    series_events_generated.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            created = generate_series_events(series, now=NOW)
            assert notifier.digests == []  # nothing is sent before commit
    finally:
        series_events_generated.disconnect(receiver)
    assert len(callbacks) == 1
    assert len(notifier.digests) == 1
    digest = notifier.digests[0]
    assert digest.notification_type == "SERIES_EVENTS_GENERATED"
    assert [e.pk for e in digest.occurrences] == [e.pk for e in created]
    assert digest.url == f"/series/{series.slug}/"
    assert len(received) == 1
    assert received[0]["series"].pk == series.pk


def test_no_digest_when_nothing_was_created(django_capture_on_commit_callbacks: Any) -> None:
    series = make_series()
    generate_series_events(series, now=NOW)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert generate_series_events(series, now=NOW) == []
    assert callbacks == []


def test_failing_notifier_keeps_the_occurrences(
    settings: Any, django_capture_on_commit_callbacks: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.REVEL_RECURRING_NOTIFIER = (
        "tests.default.generation.test_generation_batch.exploding_notifier"
    )
    series = make_series()
    with django_capture_on_commit_callbacks(execute=True):
        created = generate_series_events(series, now=NOW)
    assert len(created) == 8
    assert len(occurrences(series)) == 8
    assert (
        "notifier tests.default.generation.test_generation_batch.exploding_notifier failed"
        in caplog.text
    )


def exploding_notifier(digest: Any) -> None:
    raise ConnectionError("mail server down")


def test_per_event_notifications_are_suppressed_during_the_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    series = make_series()
    notifier.per_event_notifications.clear()  # the template's own creation
    seen: list[bool] = []
    original = Event.clone_related.__func__  # type: ignore[attr-defined]

    def clone_and_save(cls: type[Event], template: Event, created: Sequence[Event]) -> None:
        seen.append(event_notifications_suppressed())
        # A host hook that saves rows fires post_save; the host receiver stays quiet.
        created[0].save()
        Event.objects.create(title="one-off", starts_at=NOW)
        original(cls, template, created)

    monkeypatch.setattr(Event, "clone_related", classmethod(clone_and_save))
    generate_series_events(series, now=NOW)
    assert seen == [True]
    assert notifier.per_event_notifications == []
    assert not event_notifications_suppressed()
    Event.objects.create(title="after", starts_at=NOW)
    assert len(notifier.per_event_notifications) == 1  # receivers were never disconnected


def _queries_for_batch(*, count: int, seats: int) -> list[str]:
    series = make_series(frequency="DAILY", seats=seats, dtstart=NOW)
    with CaptureQueriesContext(connection) as captured:
        created = generate_series_events(series, now=NOW, until=NOW + dt.timedelta(days=count - 1))
    assert len(created) == count
    assert Seat.objects.filter(event__series=series, event__is_template=False).count() == (
        count * seats
    )
    return [q["sql"] for q in captured.captured_queries]


@pytest.mark.parametrize("seats", [0, 2])
def test_query_count_does_not_grow_with_occurrences(seats: int) -> None:
    small = _queries_for_batch(count=4, seats=seats)
    large = _queries_for_batch(count=365, seats=seats)
    if connection.vendor == "sqlite":
        # SQLite splits one bulk INSERT by its bound-parameter limit; every other
        # statement must match one for one.
        def not_insert(sql: list[str]) -> list[str]:
            return [s for s in sql if not s.startswith("INSERT")]

        assert len(not_insert(small)) == len(not_insert(large))
    else:
        assert len(small) == len(large)
    # 14, and the history's record of the run: one INSERT each for the record, its
    # series and its rows (docs/decisions/0059-one-record-per-operation.md).
    assert len(small) <= 14 + 3
