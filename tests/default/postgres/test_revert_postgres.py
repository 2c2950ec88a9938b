"""A revert racing a new operation on the same series, on a real PostgreSQL server.

Both were planned from the same state; both apply at once, each in its own thread.
The first to take the series lock holds it (its booking count, asked under the
lock, waits until the test sees the other client waiting), so the other provably
arrives while the first writes: a revert after the plan won is refused (a later
operation), a plan after the revert won is stale; the state is one or the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from django.db import connection

from revel_recurring.exceptions import PlanOutdatedError, RevertRefusedError
from revel_recurring.models import EventSeries, SeriesOperation
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.revert import apply_revert, plan_revert
from tests.default.postgres.test_plans_postgres import HeldLock
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, weekly_series
from tests.support.revert import last_operation, rows_of, rule_of

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]
TUESDAYS, WEDNESDAYS = {"weekdays": [1]}, {"weekdays": [2]}


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> HeldLock:
    count = Event.count_bookings_among.__func__  # type: ignore[attr-defined]
    lock = HeldLock()

    def count_slowly(cls: type[Event], events: Sequence[Event]) -> dict[Any, int]:
        if lock.armed.is_set() and not lock.inside.is_set():
            lock.inside.set()
            assert lock.released.wait(15), "never released"
        return dict(count(cls, events))

    monkeypatch.setattr(Event, "count_bookings_among", classmethod(count_slowly))
    return lock


def test_a_revert_and_a_new_plan_at_once_one_wins(held: HeldLock) -> None:
    series = weekly_series()
    rows, rule = rows_of(series), rule_of(series)
    first = plan_recurrence_change(series, TUESDAYS, now=NOW)
    apply_recurrence_plan(series, first.hash, TUESDAYS, cancel_drift="all", now=NOW)
    operation = last_operation(series, "plan")
    tuesdays = rows_of(series)
    revert = plan_revert(operation, now=NOW)
    second = plan_recurrence_change(series, WEDNESDAYS, now=NOW)
    done: list[str] = []

    def reverting() -> None:
        apply_revert(operation, plan_hash=revert.hash, now=NOW)
        done.append("revert")

    def planning() -> None:
        mine = EventSeries.objects.get(pk=series.pk)
        apply_recurrence_plan(mine, second.hash, WEDNESDAYS, cancel_drift="all", now=NOW)
        done.append("plan")

    errors = held.race([reverting, planning])

    assert len(done) == 1, (done, errors)
    assert len(errors) == 1, (done, errors)
    (error,) = errors
    if done == ["revert"]:
        assert isinstance(error, PlanOutdatedError), repr(error)
        assert (rows_of(series), rule_of(series)) == (rows, rule)
    else:
        assert isinstance(error, RevertRefusedError), repr(error)
        assert rows_of(series) != tuesdays
        assert rule_of(series)["weekdays"] == [2]
        assert not SeriesOperation.objects.filter(kind="revert").exists()
