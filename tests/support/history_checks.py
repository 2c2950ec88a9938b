"""A series' history on any test host: each operation leaves one record naming its rows.

Each host's ``history`` folder (tests/default, tests/studio, tests/dojo) has a
conftest with the fixture ``history_series`` (a callable making a weekly series
of that host, published, first window generated) and a test file whose class
inherits :class:`HistoryTests`. Every check reads the host's rows straight from
the database before and after an operation (:func:`db_rows`) and compares the
rows that changed there with the rows the operation's record names
(:func:`one_record`): the same rows, the same starts, statuses and series.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from revel_recurring.context import acting
from revel_recurring.models import (
    EventSeries,
    OccurrenceChange,
    OperationRow,
    OperationSeries,
    SeriesOperation,
    get_event_model,
)
from revel_recurring.services.bulk import pause_many
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import cancel_stale_occurrences
from revel_recurring.services.editing import update_series
from revel_recurring.services.extra_dates import (
    add_extra_date,
    remove_extra_date,
    replace_extra_dates,
)
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.generation.chunks import generate_series_chunk_events
from revel_recurring.services.history import purge_history
from revel_recurring.services.lifecycle import delete_series, pause_series, resume_series
from revel_recurring.services.plans import apply_recurrence_plan, plan_recurrence_change
from revel_recurring.services.propagation import update_template
from revel_recurring.services.splits import split_series
from tests.support.drift import drift_without_partners

MakeSeries = Callable[..., EventSeries]
Row = tuple[Any, Any, Any, str]


def db_rows() -> dict[str, Row]:
    """Every occurrence of the host as stored: pk -> (series, slot, start, status)."""
    model = get_event_model()
    return {
        str(pk): (series_id, slot, start, str(status))
        for pk, series_id, slot, start, status in model._base_manager.filter(
            is_template=False
        ).values_list(
            "pk",
            "series_id",
            "recurrence_id",
            model.RECURRING_START_FIELD,
            model.RECURRING_STATUS_FIELD,
        )
    }


@dataclass
class Probe:
    """The rows and records before an operation; after it, what changed."""

    rows: dict[str, Row] = field(default_factory=dict)
    records: set[Any] = field(default_factory=set)
    after: dict[str, Row] = field(default_factory=dict)
    new: list[SeriesOperation] = field(default_factory=list)
    entries: set[Any] = field(default_factory=set)

    def changed(self) -> set[str]:
        """The rows whose series, slot, start or status changed, or that came or went."""
        keys = set(self.rows) | set(self.after)
        return {pk for pk in keys if self.rows.get(pk) != self.after.get(pk)}


@contextmanager
def probe() -> Iterator[Probe]:
    """Watch the database across the block: :attr:`Probe.new` holds the records it wrote."""
    seen = Probe(
        rows=db_rows(),
        records=set(SeriesOperation.objects.values_list("pk", flat=True)),
        entries=set(OccurrenceChange.objects.values_list("pk", flat=True)),
    )
    yield seen
    seen.after = db_rows()
    seen.new = list(
        SeriesOperation.objects.exclude(pk__in=seen.records).order_by("created_at", "pk")
    )


def _status_word(model: Any, value: str) -> str:
    if model.is_status(value, model.RECURRING_STATUS_CANCELLED):
        return "cancelled"
    if model.is_status(value, model.RECURRING_STATUS_DRAFT):
        return "draft"
    return "live"


def _as_status(model: Any, raw: str) -> Any:
    field_ = model._meta.get_field(model.RECURRING_STATUS_FIELD)
    return field_.to_python(raw)


def one_record(seen: Probe, kind: str, *, rows: bool = True) -> SeriesOperation:
    """The one record ``seen`` holds, of ``kind``, whose rows are exactly those changed.

    Rows recorded "renamed" (their calendar identity changed with the rule) or
    "edited" (values other than date and status) may be unchanged in the table.
    """
    assert [record.kind for record in seen.new] == [kind], [r.kind for r in seen.new]
    record = seen.new[0]
    written = list(OperationRow.objects.filter(operation=record).order_by("position"))
    assert record.row_count == len(written)
    assert [row.position for row in written] == list(range(1, len(written) + 1))
    recorded = {row.occurrence_pk: row for row in written}
    changed = seen.changed()
    quiet = {pk for pk, row in recorded.items() if row.change in ("renamed", "edited")}
    assert changed <= set(recorded), sorted(changed - set(recorded))
    assert set(recorded) - changed <= quiet, sorted(set(recorded) - changed - quiet)
    model = get_event_model()
    for pk in changed:
        row, before, after = recorded[pk], seen.rows.get(pk), seen.after.get(pk)
        assert (row.start_before, row.slot_before, row.series_before) == (
            (None, None, None) if before is None else (before[2], before[1], before[0])
        )
        assert (row.start_after, row.slot_after, row.series_after) == (
            (None, None, None) if after is None else (after[2], after[1], after[0])
        )
        if before is not None:
            assert row.status_before == _status_word(model, _as_status(model, before[3]))
        if after is not None:
            assert row.status_after == _status_word(model, _as_status(model, after[3]))
        assert row.change == (
            "created" if before is None else "deleted" if after is None else row.change
        )
    if not rows:
        assert written == []
    links = set(
        OperationSeries.objects.filter(operation=record).values_list("series_ref", flat=True)
    )
    assert record.series_ref in links
    touched = {
        value[0] for pk in changed for value in (seen.rows.get(pk), seen.after.get(pk)) if value
    }
    assert touched <= links
    return record


def _rows(series: EventSeries) -> list[Any]:
    model = get_event_model()
    return list(
        model._base_manager.filter(series=series, is_template=False).order_by(
            model.RECURRING_START_FIELD, "pk"
        )
    )


# The operations: each takes a fresh series and changes it once.


def op_cancel(series: EventSeries) -> None:
    cancel_occurrence(series, _rows(series)[2].recurrence_id)


def op_restore(series: EventSeries) -> None:
    cancel_occurrence(series, _rows(series)[2].recurrence_id)
    restore_occurrence(series, _rows(series)[2].recurrence_id)


def op_cancel_stale(series: EventSeries) -> None:
    drift_without_partners(series, keep=2)
    cancel_stale_occurrences(series)


def op_plan(series: EventSeries) -> None:
    plan = plan_recurrence_change(series, {"interval": 2})
    apply_recurrence_plan(series, plan.hash, {"interval": 2}, cancel_drift="all")


def op_split(series: EventSeries) -> None:
    split_series(series, at=_rows(series)[3].recurrence_id, name=f"{series.name} (new)")


def op_move(series: EventSeries) -> None:
    update_series(series, rule_changes={"interval": 2})


def _extra(series: EventSeries) -> dt.datetime:
    """A date off the rule inside the window: a day after the series' third date."""
    return _rows(series)[2].recurrence_id + dt.timedelta(days=1)


def op_extra_add(series: EventSeries) -> None:
    add_extra_date(series, _extra(series))


def op_extra_add_and_cancel(series: EventSeries) -> None:
    add_extra_date(series, _extra(series))
    cancel_occurrence(series, _extra(series))


def op_extra_remove(series: EventSeries) -> None:
    remove_extra_date(series, _extra(series))


def op_extra_replace(series: EventSeries) -> None:
    instant = _extra(series)
    replace_extra_dates(series, [instant + dt.timedelta(days=1), instant + dt.timedelta(days=7)])


def op_template(series: EventSeries) -> None:
    update_template(series, {"title": "Renamed class"}, propagate="all_future")


#: kind -> (a step before the probe, the operation probed). None: nothing before.
#: Each callable's answer is ignored: the record and the rows are what the checks read.
OPERATIONS: dict[str, tuple[Callable[[EventSeries], object] | None, Callable[..., object]]] = {
    "cancel": (None, op_cancel),
    "restore": (
        lambda s: cancel_occurrence(s, _rows(s)[2].recurrence_id),
        lambda s: restore_occurrence(s, _rows(s)[2].recurrence_id),
    ),
    "cancel_stale": (lambda s: drift_without_partners(s, keep=2), cancel_stale_occurrences),
    "plan": (None, op_plan),
    "split": (None, op_split),
    "move": (None, op_move),
    "extra_date": (None, op_extra_add),
    "extra_date removed": (op_extra_add_and_cancel, op_extra_remove),
    "extra_date replaced": (op_extra_add_and_cancel, op_extra_replace),
    "pause": (None, pause_series),
    "resume": (pause_series, resume_series),
    "edit": (None, lambda s: update_series(s, name="Another name", auto_publish=False)),
    "template": (None, op_template),
    "generate": (
        lambda s: update_series(s, generation_window_weeks=12),
        lambda s: generate_series_events(s),
    ),
    "delete": (None, delete_series),
}

#: Kinds whose operation changes settings only: a record without rows.
NO_ROWS = {"pause", "resume", "edit"}


def check_operation_records_its_rows(make_series: MakeSeries, kind: str) -> None:
    series = make_series(name=f"History {kind}")
    first, operation = OPERATIONS[kind]
    if first is not None:
        first(series)
    series = EventSeries.objects.get(pk=series.pk)
    with probe() as seen:
        operation(series)
    record = one_record(seen, kind.split()[0], rows=kind not in NO_ROWS)
    assert record.face == "code"
    assert record.series_ref == series.pk
    assert (record.row_count > 0) == (kind not in NO_ROWS)
    assert record.before is not None
    if kind == "delete":
        # The record outlives the series: named by value, every row "deleted".
        assert record.series_id is None
        assert record.after is None
        assert set(record.rows.values_list("change", flat=True)) == {"deleted"}
        assert record.row_count == len(seen.rows)
    else:
        assert record.after is not None
        assert record.after["id"] == series.pk
    if kind in NO_ROWS:
        assert record.before != record.after
    # The occurrence change feed's entries written by the operation point to it.
    entries = OccurrenceChange.objects.exclude(pk__in=seen.entries)
    assert {entry.operation_id for entry in entries} <= {record.pk}


def check_rolled_back_change_leaves_nothing(make_series: MakeSeries) -> None:
    series = make_series(name="History rollback")

    class Boom(Exception):
        pass

    def change_then_fail() -> None:
        with transaction.atomic():
            cancel_occurrence(series, _rows(series)[2].recurrence_id)
            raise Boom

    with probe() as seen, pytest.raises(Boom):
        change_then_fail()
    assert seen.new == []
    assert seen.changed() == set()


def check_who_acts(make_series: MakeSeries, user: Any) -> None:
    series = make_series(name="History who")
    with probe() as seen, acting(user, face="admin"):
        cancel_occurrence(series, _rows(series)[1].recurrence_id, now=timezone.now())
    record = one_record(seen, "cancel")
    assert (record.face, record.actor) == ("admin", str(user.pk))
    assert record.actor_name == user.get_username()


def check_create_records_its_first_dates(make_series: MakeSeries) -> None:
    with probe() as seen:
        series = make_series(name="History create")
    record = one_record(seen, "create")
    assert record.before is None
    assert record.after is not None
    assert record.after["name"] == "History create"
    assert record.after["rule"]["frequency"] == "WEEKLY"
    assert record.row_count == len(_rows(series)) > 0
    assert set(record.rows.values_list("change", flat=True)) == {"created"}


def check_daily_pass_one_summary_per_chunk(make_series: MakeSeries) -> None:
    several = [make_series(name=f"History pass {n}", generate=False) for n in range(3)]
    with probe() as seen:
        result = generate_series_chunk_events([one.pk for one in several])
    assert result.created > 0
    assert [record.kind for record in seen.new] == ["generate"]
    summary = seen.new[0]
    assert summary.face == "task"
    assert summary.row_count == 0
    assert not summary.rows.exists()
    links = {link.series_ref: link.created for link in summary.series_links.all()}
    made = {one.pk: len(_rows(one)) for one in several}
    assert links == made
    assert summary.summary == {str(pk): count for pk, count in made.items()}
    # A second pass with nothing due writes nothing.
    with probe() as again:
        generate_series_chunk_events([one.pk for one in several])
    assert again.new == []


def check_history_off_records_only_people_told(make_series: MakeSeries, settings: Any) -> None:
    settings.REVEL_RECURRING_HISTORY = False
    series = make_series(name="History off")
    with probe() as seen:
        cancel_occurrence(series, _rows(series)[1].recurrence_id)
        generate_series_chunk_events([series.pk])
    assert seen.new == []
    assert seen.changed()


def check_bulk_records_share_a_batch(make_series: MakeSeries) -> None:
    several = [make_series(name=f"History bulk {n}") for n in range(3)]
    with probe() as seen:
        pause_many([one.pk for one in several])
    assert [record.kind for record in seen.new] == ["pause"] * 3
    assert {record.series_ref for record in seen.new} == {one.pk for one in several}
    batches = {record.batch_id for record in seen.new}
    assert len(batches) == 1
    assert None not in batches


def check_old_records_are_purged(make_series: MakeSeries) -> None:
    series = make_series(name="History purge")
    cancel_occurrence(series, _rows(series)[1].recurrence_id)
    records = SeriesOperation.objects.filter(series_ref=series.pk)
    assert records.count() == 2  # created, cancelled
    later = timezone.now() + dt.timedelta(days=401)
    assert purge_history(now=timezone.now()) == 0
    assert purge_history(now=later) == 2
    assert not records.exists()
    assert not OperationRow.objects.filter(operation__series_ref=series.pk).exists()
    assert OccurrenceChange.objects.filter(series=series).exists()  # the feed stays


class HistoryTests:
    """The tests every host runs: ``class TestHistory(HistoryTests): ...`` in its folder."""

    @pytest.mark.django_db
    @pytest.mark.parametrize("kind", sorted(OPERATIONS))
    def test_each_operation_leaves_one_record_naming_the_rows_it_changed(
        self, history_series: MakeSeries, kind: str
    ) -> None:
        check_operation_records_its_rows(history_series, kind)

    @pytest.mark.django_db
    def test_a_rolled_back_change_leaves_no_record(self, history_series: MakeSeries) -> None:
        check_rolled_back_change_leaves_nothing(history_series)

    @pytest.mark.django_db
    def test_a_new_series_records_its_first_dates(self, history_series: MakeSeries) -> None:
        check_create_records_its_first_dates(history_series)

    @pytest.mark.django_db
    def test_the_daily_pass_writes_one_summary_per_chunk(self, history_series: MakeSeries) -> None:
        check_daily_pass_one_summary_per_chunk(history_series)

    @pytest.mark.django_db
    def test_with_history_off_nothing_is_recorded_but_for_people_told(
        self, history_series: MakeSeries, settings: Any
    ) -> None:
        check_history_off_records_only_people_told(history_series, settings)

    @pytest.mark.django_db
    def test_a_bulk_action_writes_one_record_per_series_in_one_batch(
        self, history_series: MakeSeries
    ) -> None:
        check_bulk_records_share_a_batch(history_series)

    @pytest.mark.django_db
    def test_records_older_than_the_history_days_are_purged(
        self, history_series: MakeSeries
    ) -> None:
        check_old_records_are_purged(history_series)
