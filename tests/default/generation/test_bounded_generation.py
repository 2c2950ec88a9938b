"""Generation bounded by size: inserts cut by bytes, an over-budget run refused, parking."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext

from revel_recurring import tasks
from revel_recurring.checks import check_setting_values
from revel_recurring.exceptions import GenerationTooLargeError
from revel_recurring.host_model import RowSizer
from revel_recurring.models import EventSeries
from revel_recurring.services.generation import generate_series_events, insert_batches
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.lifecycle import pause_series, resume_series
from revel_recurring.services.propagation import update_template
from revel_recurring.services.toolbox.parking import PARKED_REASON_MAX_LENGTH, park_failed_series
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, make_series, occurrences

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


def inserts_of_events(captured: CaptureQueriesContext) -> int:
    table = Event._meta.db_table
    return sum(
        1
        for query in captured.captured_queries
        # Up to the column list: "INSERT INTO <quoted table>", whatever the quotes.
        if query["sql"].startswith("INSERT") and table in query["sql"].split("(")[0]
    )


def long_titled_series(name: str, size: int) -> EventSeries:
    series = make_series(name=name)
    Event.objects.filter(series=series, is_template=True).update(title=name[0] * size)
    return series


def row_bytes(series: EventSeries) -> int:
    """The estimated size of one occurrence of ``series`` (its template's row)."""
    return RowSizer(Event).row_bytes(Event.objects.get(series=series, is_template=True))


def test_rows_are_cut_into_insert_batches_by_their_estimated_bytes(settings: Any) -> None:
    settings.REVEL_RECURRING_INSERT_BATCH_BYTES = 1100
    small = [Event(title="x" * 10, venue="", starts_at=NOW) for _ in range(5)]
    large = [Event(title="é" * 150, venue="", starts_at=NOW) for _ in range(5)]  # 300 bytes
    columns = len(Event._meta.concrete_fields)

    # Every column counts at least 16 bytes, however often its value was weighed
    # before: a row of small values is never free, the fifth one starts a batch.
    sizer = RowSizer(Event)
    assert [sizer.row_bytes(row) for row in small] == [16 * columns] * 5
    assert [len(batch) for batch in insert_batches(Event, small)] == [4, 1]
    # 300 bytes of UTF-8 plus the small columns: three rows pass 1100 bytes.
    assert [len(batch) for batch in insert_batches(Event, large)] == [2, 2, 1]
    settings.REVEL_RECURRING_INSERT_BATCH_BYTES = 1
    assert [len(batch) for batch in insert_batches(Event, small)] == [1] * 5


def test_generation_inserts_large_rows_in_several_statements(settings: Any) -> None:
    series = long_titled_series("Lecture", 200)
    size = row_bytes(series)
    settings.REVEL_RECURRING_INSERT_BATCH_BYTES = 2 * size + size // 2  # two rows per INSERT

    with CaptureQueriesContext(connection) as captured:
        created = generate_series_events(series, now=NOW)

    assert len(created) == 8
    assert len(occurrences(series)) == 8
    assert all(event.pk is not None for event in created)
    assert inserts_of_events(captured) == 4


def test_the_chunk_inserts_large_rows_in_several_statements(settings: Any) -> None:
    first, second = long_titled_series("Lecture", 200), long_titled_series("Seminar", 200)
    size = row_bytes(first)
    settings.REVEL_RECURRING_INSERT_BATCH_BYTES = 2 * size + size // 2

    with CaptureQueriesContext(connection) as captured:
        result = generate_series_chunk_events([first.pk, second.pk], now=NOW)

    assert (result.chunked, result.created, result.failures) == (2, 16, {})
    assert [len(occurrences(s)) for s in (first, second)] == [8, 8]
    assert inserts_of_events(captured) == 8


def test_small_rows_still_go_in_one_statement() -> None:
    series = make_series()
    with CaptureQueriesContext(connection) as captured:
        generate_series_events(series, now=NOW)
    assert inserts_of_events(captured) == 1


def test_a_run_over_the_generation_budget_writes_nothing_and_names_the_field(
    settings: Any,
) -> None:
    series = long_titled_series("Lecture", 150)
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1000  # 8 rows of about 300 bytes

    with pytest.raises(GenerationTooLargeError) as caught:
        generate_series_events(series, now=NOW)

    assert caught.value.field == "title"
    assert "8 occurrences" in str(caught.value)
    assert "Shorten 'title'" in str(caught.value)
    assert occurrences(series) == []
    series.refresh_from_db()
    assert (series.last_generated_until, series.parked_at) == (None, None)


def test_the_task_parks_a_series_that_fails_for_good_and_due_skips_it(
    settings: Any,
) -> None:
    series = long_titled_series("Lecture", 150)
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 1000
    EventSeries.objects.filter(pk=series.pk).update(next_due_at=NOW)
    assert list(EventSeries.objects.due(now=NOW)) == [series]

    with pytest.raises(GenerationTooLargeError):
        tasks.generate_series.apply(args=(series.pk,), kwargs={"now": NOW.isoformat()}).get()

    series.refresh_from_db()
    assert series.parked_at == NOW
    assert series.parked_reason.startswith("GenerationTooLargeError: Lecture would write ")
    assert series.next_due_at == NOW  # still due by its dates, left out for the parking
    assert not EventSeries.objects.due(now=NOW + dt.timedelta(days=3)).exists()
    assert list(EventSeries.objects.parked()) == [series]


def test_a_transient_error_parks_nothing() -> None:
    series = make_series()
    from django.db import OperationalError

    assert park_failed_series(series.pk, OperationalError("database is locked")) is False
    series.refresh_from_db()
    assert series.parked_at is None


def test_a_long_reason_is_cut_and_the_first_reason_is_kept() -> None:
    series = make_series()
    park_failed_series(series.pk, IntegrityError("x" * 5000), now=NOW)
    park_failed_series(series.pk, RuntimeError("later"), now=NOW + dt.timedelta(days=1))

    series.refresh_from_db()
    assert len(series.parked_reason) == PARKED_REASON_MAX_LENGTH
    assert series.parked_reason.startswith("IntegrityError: xxx")
    assert series.parked_at == NOW


def test_resume_unparks_an_active_series() -> None:
    series = make_series()
    park_failed_series(series.pk, RuntimeError("host hook failed"), now=NOW)
    series.refresh_from_db()

    assert resume_series(series, now=NOW) is True
    assert (series.parked_at, series.parked_reason) == (None, "")
    series.refresh_from_db()
    assert (series.parked_at, series.parked_reason) == (None, "")
    assert EventSeries.objects.due(now=NOW).filter(pk=series.pk).exists()
    assert resume_series(series, now=NOW) is False  # nothing left to do


def test_resume_of_a_paused_parked_series_unparks_it_too() -> None:
    series = make_series()
    pause_series(series, now=NOW)
    park_failed_series(series.pk, RuntimeError("host hook failed"), now=NOW)

    assert resume_series(series, now=NOW) is True
    series.refresh_from_db()
    assert (series.is_active, series.parked_at) == (True, None)


def test_a_template_edit_unparks_the_series(settings: Any) -> None:
    series = long_titled_series("Lecture", 200)  # the column's maximum
    # Eight rows with the long title do not fit; with a 7-character one they do.
    settings.REVEL_RECURRING_MAX_GENERATION_BYTES = 8 * (row_bytes(series) - 100)
    generate_series_chunk_events([series.pk], now=NOW)
    series.refresh_from_db()
    assert series.parked_at is not None

    update_template(series, {"title": "Lecture"}, now=NOW)

    series.refresh_from_db()
    assert (series.parked_at, series.parked_reason) == (None, "")
    result = generate_series_chunk_events([series.pk], now=NOW)
    assert (result.created, result.parked) == (8, [])


def test_a_successful_generation_unparks_the_series() -> None:
    series = make_series()
    park_failed_series(series.pk, RuntimeError("host hook failed"), now=NOW)

    created = generate_series_events(series, now=NOW)

    assert len(created) == 8
    series.refresh_from_db()
    assert (series.parked_at, series.parked_reason) == (None, "")


def test_a_generation_that_creates_nothing_leaves_the_series_parked() -> None:
    series = make_series()
    assert len(generate_series_events(series, now=NOW)) == 8
    park_failed_series(series.pk, RuntimeError("host hook failed"), now=NOW)
    series.refresh_from_db()
    cursor = series.last_generated_until
    assert cursor is not None

    # An until before the cursor, then a window already full: nothing to write,
    # so nothing shows the hook works again.
    assert generate_series_events(series, until=cursor - dt.timedelta(weeks=4), now=NOW) == []
    assert generate_series_events(series, now=NOW) == []

    series.refresh_from_db()
    assert (series.parked_at, series.parked_reason) == (NOW, "RuntimeError: host hook failed")
    assert series.last_generated_until == cursor
    # A week later the window has a new date to write: that run unparks it.
    assert len(generate_series_events(series, now=NOW + dt.timedelta(weeks=1))) == 1
    series.refresh_from_db()
    assert (series.parked_at, series.parked_reason) == (None, "")


def test_parking_a_series_parked_already_answers_false_and_counts_once() -> None:
    series = make_series()

    assert park_failed_series(series.pk, RuntimeError("first"), now=NOW) is True
    assert park_failed_series(series.pk, RuntimeError("second"), now=NOW) is False
    series.refresh_from_db()
    assert series.parked_reason == "RuntimeError: first"


def test_the_chunk_leaves_a_parked_series_alone() -> None:
    parked, fine = make_series(name="parked"), make_series(name="fine")
    park_failed_series(parked.pk, RuntimeError("host hook failed"), now=NOW)

    result = generate_series_chunk_events([parked.pk, fine.pk], now=NOW)

    assert (result.created, result.parked, result.failures) == (8, [], {})
    assert occurrences(parked) == []


@pytest.mark.parametrize("name", ["INSERT_BATCH_BYTES", "MAX_GENERATION_BYTES"])
@pytest.mark.parametrize("value", [0, -1, "16MB", 1.5])
def test_e009_byte_budgets_must_be_positive_whole_numbers(
    name: str, value: object, settings: Any
) -> None:
    setattr(settings, f"REVEL_RECURRING_{name}", value)

    errors = check_setting_values()

    assert [e.id for e in errors] == ["revel_recurring.E009"]
    assert f"REVEL_RECURRING_{name}" in errors[0].msg


def test_the_admin_lists_and_filters_parked_series_and_shows_the_reason(
    admin_client: Any,
) -> None:
    parked, fine = make_series(name="Parked yoga"), make_series(name="Fine yoga")
    park_failed_series(parked.pk, RuntimeError("host hook failed"), now=NOW)

    page = admin_client.get(CHANGELIST).content.decode()
    assert "RuntimeError: host hook failed" in page
    only_parked = admin_client.get(CHANGELIST + "?parked=yes")
    assert [s.pk for s in only_parked.context["cl"].result_list] == [parked.pk]
    not_parked = admin_client.get(CHANGELIST + "?parked=no")
    assert [s.pk for s in not_parked.context["cl"].result_list] == [fine.pk]
    change = admin_client.get(f"{CHANGELIST}{parked.pk}/change/").content.decode()
    assert "RuntimeError: host hook failed" in change
