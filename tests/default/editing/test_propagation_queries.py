"""A propagated template edit costs the same queries for 30 occurrences as for 364.

And validates every row as the host's ``full_clean()`` would, unique groups
included, with the set's queries instead of each row's.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import connection
from django.db.models import CheckConstraint, Q
from django.test.utils import CaptureQueriesContext

from revel_recurring.models import EventSeries
from revel_recurring.services.propagation import update_template
from tests.hosts.testapp.models import Event
from tests.support.factories import FIRST_MONDAY, occurrences, template_of, weekly_series

pytestmark = pytest.mark.django_db

# Just before the first slot: every generated occurrence lies ahead.
BEFORE_FIRST = FIRST_MONDAY.astimezone(dt.UTC) - dt.timedelta(minutes=1)


def daily(count: int, *, name: str = "Morning swim") -> EventSeries:
    series = weekly_series(
        frequency="DAILY", count=count, window_weeks=52, now=BEFORE_FIRST, name=name
    )
    assert Event.objects.filter(series=series, is_template=False).count() == count
    return series


def propagate(series: EventSeries, changes: dict[str, Any]) -> tuple[int, int]:
    """(occurrences changed, statements run) of one all_future propagation.

    Not counted: the INSERTs of the history record's rows, one per page whose size
    the backend's parameter limit sets (a few on SQLite for 364 rows, one elsewhere).
    """
    with CaptureQueriesContext(connection) as queries:
        updated = update_template(series, changes, propagate="all_future", now=BEFORE_FIRST)
    pages = [q for q in queries.captured_queries if "revel_recurring_operationrow" in q["sql"]]
    assert len(pages) <= -(-updated // 50)
    return updated, len(queries) - len(pages)


@pytest.fixture
def sizes() -> tuple[EventSeries, EventSeries]:
    return daily(30, name="Small"), daily(364, name="Large")


def test_propagation_costs_the_same_queries_for_30_and_364_occurrences(
    sizes: tuple[EventSeries, EventSeries],
) -> None:
    small, large = sizes
    changes = {"title": "Evening swim", "capacity": 12}
    (updated_small, small_queries), (updated_large, large_queries) = (
        propagate(small, changes),
        propagate(large, changes),
    )
    assert (updated_small, updated_large) == (30, 364)
    assert large_queries == small_queries
    # Under 20, and the history's record: its INSERT, its series', its UPDATE, the
    # rows read after, the series read after, the host's bookings once per page.
    assert large_queries < 20 + 6
    stored = {(e.title, e.capacity, e.is_modified) for e in occurrences(large)}
    assert stored == {("Evening swim", 12, False)}


def test_the_per_instance_switch_costs_one_statement_per_row_and_calls_save_each_time(
    sizes: tuple[EventSeries, EventSeries], monkeypatch: pytest.MonkeyPatch
) -> None:
    saved: list[Any] = []
    original = Event.save

    def save(self: Event, *args: Any, **kwargs: Any) -> None:
        if not self.is_template:
            saved.append(self.pk)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Event, "RECURRING_PROPAGATE_WITH_SAVE", True)
    monkeypatch.setattr(Event, "save", save)
    small, large = sizes
    _, small_queries = propagate(small, {"venue": "Pool 2"})
    assert sorted(saved) == sorted(e.pk for e in occurrences(small))
    saved.clear()
    _, large_queries = propagate(large, {"venue": "Pool 2"})
    assert sorted(saved) == sorted(e.pk for e in occurrences(large))
    assert len(saved) == len(set(saved)) == 364
    # The rest is the same: only the UPDATE of each row is added.
    assert large_queries - small_queries == 364 - 30


@pytest.fixture
def title_unique_per_start() -> Iterator[None]:
    """The host declares ``unique_together = [("title", "starts_at")]`` (validation only)."""
    original = Event._meta.unique_together
    Event._meta.unique_together = (("title", "starts_at"),)
    try:
        yield
    finally:
        Event._meta.unique_together = original


@pytest.mark.usefixtures("title_unique_per_start")
def test_a_unique_group_with_a_propagated_field_is_checked_once_for_the_set() -> None:
    series = daily(30)
    # The template's own start is the first slot's: keep it out of the way.
    Event.objects.filter(pk=template_of(series).pk).update(
        starts_at=FIRST_MONDAY - dt.timedelta(days=7)
    )
    clash = occurrences(series)[17]
    one_off = Event.objects.create(title="Evening swim", starts_at=clash.starts_at)
    with CaptureQueriesContext(connection) as queries, pytest.raises(ValidationError) as excinfo:
        update_template(series, {"title": "Evening swim"}, propagate="all_future", now=BEFORE_FIRST)
    [message] = excinfo.value.message_dict[NON_FIELD_ERRORS]
    assert message.startswith(f"occurrence {clash.pk} on ")
    assert message.endswith("Event with this Title and Starts at already exists.")
    column = connection.ops.quote_name("starts_at")  # "starts_at", or `starts_at` on MariaDB
    lookups = [q["sql"] for q in queries.captured_queries if f"{column} IN" in q["sql"]]
    assert len(lookups) == 1
    assert {e.title for e in occurrences(series)} == {"Morning swim"}
    assert template_of(series).title == "Morning swim"

    one_off.delete()
    updated = update_template(
        series, {"title": "Evening swim"}, propagate="all_future", now=BEFORE_FIRST
    )
    assert updated == 30


@contextlib.contextmanager
def venue_unique() -> Iterator[None]:
    """The host's ``venue`` declared ``unique=True`` (validation only; after generation,
    which refuses to copy a unique value)."""
    field = Event._meta.get_field("venue")
    # Field.unique is a cached_property: set the cached value itself.
    field.__dict__["unique"] = True
    try:
        yield
    finally:
        field.__dict__.pop("unique")


def test_a_unique_field_copied_onto_every_row_is_refused_on_the_first() -> None:
    series = weekly_series(now=BEFORE_FIRST)
    for number, event in enumerate(occurrences(series)):
        Event.objects.filter(pk=event.pk).update(venue=f"Room {number}")
    Event.objects.filter(pk=template_of(series).pk).update(venue="Room T")
    first = occurrences(series)[0]
    with venue_unique(), pytest.raises(ValidationError) as excinfo:
        update_template(series, {"venue": "Hall"}, propagate="all_future", now=BEFORE_FIRST)
    [message] = excinfo.value.message_dict["venue"]
    assert message.startswith(f"occurrence {first.pk} on ")
    assert message.endswith("Event with this Venue already exists.")
    assert template_of(series).venue == "Room T"


@pytest.fixture
def doors_before_capacity_check() -> Iterator[CheckConstraint]:
    """A check reading a propagated field and a per-row one (validation only)."""
    constraint = CheckConstraint(
        condition=Q(capacity__isnull=True) | Q(capacity__lte=100) | Q(doors_open_at__isnull=True),
        name="testapp_event_big_rooms_have_no_doors_time",
    )
    original = Event._meta.constraints
    Event._meta.constraints = [*original, constraint]
    try:
        yield constraint
    finally:
        Event._meta.constraints = original


@pytest.mark.usefixtures("doors_before_capacity_check")
def test_a_check_reading_a_propagated_and_a_per_row_field_is_asked_once_per_value() -> None:
    series = daily(30)
    rows = occurrences(series)
    # The template and the last twenty rows have no doors time; the first ten do.
    Event.objects.filter(series=series).exclude(pk__in=[e.pk for e in rows[:10]]).update(
        doors_open_at=None
    )

    def checks(queries: CaptureQueriesContext) -> int:
        # Answers to this check (the one-template constraint is an EXISTS).
        sql = [q["sql"] for q in queries.captured_queries]
        name = connection.ops.quote_name("_check")
        return len([s for s in sql if name in s and "EXISTS" not in s])

    with CaptureQueriesContext(connection) as queries, pytest.raises(ValidationError) as excinfo:
        update_template(series, {"capacity": 500}, propagate="all_future", now=BEFORE_FIRST)
    assert excinfo.value.message_dict[NON_FIELD_ERRORS][0].startswith(f"occurrence {rows[0].pk}")
    assert checks(queries) == 2  # the template's, then the first row's, which fails
    assert {e.capacity for e in occurrences(series)} == {20}

    Event.objects.filter(series=series).update(doors_open_at=None)
    with CaptureQueriesContext(connection) as queries:
        updated = update_template(
            series, {"capacity": 500}, propagate="all_future", now=BEFORE_FIRST
        )
    assert updated == 30
    # The template's, then one for the thirty rows: they hold the same values.
    assert checks(queries) == 2


@pytest.fixture
def title_unique_per_doors_time() -> Iterator[None]:
    original = Event._meta.unique_together
    Event._meta.unique_together = (("title", "doors_open_at"),)
    try:
        yield
    finally:
        Event._meta.unique_together = original


@pytest.mark.usefixtures("title_unique_per_doors_time")
def test_two_rows_given_the_same_unique_values_are_refused_before_the_database_sees_them() -> None:
    series = daily(30)
    rows = occurrences(series)
    # Two dates share a doors time (no clash while their titles differ from the new
    # one); the template's is not the first date's, as it is after generation.
    Event.objects.filter(pk=rows[20].pk).update(doors_open_at=rows[12].doors_open_at)
    Event.objects.filter(pk=template_of(series).pk).update(doors_open_at=None)
    with pytest.raises(ValidationError) as excinfo:
        update_template(series, {"title": "Evening swim"}, propagate="all_future", now=BEFORE_FIRST)
    [message] = excinfo.value.message_dict[NON_FIELD_ERRORS]
    assert message.startswith(f"occurrence {rows[12].pk} on ")
    assert message.endswith("Event with this Title and Doors open at already exists.")
    assert {e.title for e in occurrences(series)} == {"Morning swim"}
