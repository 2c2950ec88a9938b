"""Every reader of excluded dates asks ``revel_recurring.exclusions``, and sees pending exdates.

The first test reads the code: no module but the reader and the writers touches
``exdates``, ``exdate_instants`` or ``PendingExdate``. The others prove, reader by
reader, that a deleted occurrence's slot still pending (its fold after commit never
runs inside a test's transaction) counts as excluded, as it will once folded.
"""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path
from typing import Any

import icalendar
import pytest
from django.contrib.admin import site
from django.db import connection
from django.test.utils import CaptureQueriesContext

from revel_recurring.admin.upcoming import free_slots, upcoming_rows
from revel_recurring.exclusions import ExclusionReason
from revel_recurring.ical import series_feed
from revel_recurring.models import EventSeries, PendingExdate
from revel_recurring.rules import format_instant
from revel_recurring.services.cancellation import cancel_occurrence, restore_occurrence
from revel_recurring.services.drift import detect_cadence_drift, drifted_ids_by_series
from revel_recurring.services.generation import generate_series_events, preview_series_events
from revel_recurring.slots import upcoming_slots
from tests.hosts.testapp.models import Event
from tests.support.factories import NOW, fresh, monday, occurrences, weekly_series

ROOT = Path(__file__).resolve().parents[3]
NAMES = {"exdates", "exdate_instants", "PendingExdate"}

# Who may touch the stored exclusions directly, and why. A key is a file, or a
# file and the function (qualified name) allowed in it.
ALLOWED = {
    "revel_recurring/exclusions.py": "the reader",
    "revel_recurring/models/series.py": "the field and the parsed property",
    ("revel_recurring/models/__init__.py", ""): "re-exports the PendingExdate table",
    ("revel_recurring/rules/__init__.py", ""): "re-exports the parser (rules/stored.py)",
    "revel_recurring/services/toolbox/exdates.py": (
        "the writers: merge, drop, fold the pending rows in"
    ),
    "revel_recurring/services/toolbox/pending_exdates.py": (
        "records pending rows, deletes a gone series'"
    ),
    ("revel_recurring/admin/columns.py", "SeriesColumnsMixin.exdates_local"): (
        "shows the stored column itself, as the API's `exdates` field does"
    ),
    ("revel_recurring/api/serializers/series.py", "SeriesSerializer"): (
        "the API's `exdates` field: the stored column itself"
    ),
    ("revel_recurring/services/plans/digest.py", "plan_digest"): (
        "a change plan's hash covers the stored column with the pending rows (decision 0032)"
    ),
}


def _sources() -> list[Path]:
    paths = [*(ROOT / "revel_recurring").rglob("*.py"), *(ROOT / "bench").glob("*.py")]
    paths += (ROOT / "notebooks").glob("*.py")
    paths += [p for p in (ROOT / "example_project").rglob("*.py") if "tests" not in p.parts[-3:-1]]
    return sorted(p for p in paths if "migrations" not in p.parts)


def _uses(tree: ast.AST) -> list[tuple[str, str]]:
    """(qualified name of the enclosing function or class, name) for each use of ``NAMES``."""
    found: list[tuple[str, str]] = []

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = f"{scope}.{child.name}" if scope else child.name
            if isinstance(child, ast.Attribute) and child.attr in NAMES:
                found.append((scope, child.attr))
            elif isinstance(child, ast.Name) and child.id in NAMES:
                found.append((scope, child.id))
            elif isinstance(child, ast.alias) and child.name in NAMES:
                found.append((scope, child.name))
            visit(child, inner)

    visit(tree, "")
    return found


def unlisted_uses() -> list[str]:
    result = []
    for path in _sources():
        name = path.relative_to(ROOT).as_posix()
        if name in ALLOWED:
            continue
        for scope, used in _uses(ast.parse(path.read_text(encoding="utf-8"))):
            if (name, scope) not in ALLOWED:
                result.append(f"{name}: {scope or '<module>'} uses {used}")
    return result


def test_the_finder_sees_attributes_names_and_imports() -> None:
    tree = ast.parse(
        "from x import PendingExdate\n"
        "class A:\n"
        "    def f(self, s):\n"
        "        return s.exdate_instants, s.exdates\n"
    )
    assert _uses(tree) == [("", "PendingExdate"), ("A.f", "exdate_instants"), ("A.f", "exdates")]


def test_only_the_reader_and_the_writers_touch_the_stored_exclusions() -> None:
    assert _sources(), "no source found"
    assert unlisted_uses() == []


pytestmark = pytest.mark.django_db


def _series_with_a_deleted_occurrence(
    series: EventSeries | None = None,
) -> tuple[EventSeries, dt.datetime]:
    series = series or weekly_series(window_weeks=8)
    victim = occurrences(series)[2]
    slot = victim.recurrence_id
    assert slot is not None
    victim.delete()
    assert list(PendingExdate.objects.values_list("instant", flat=True)) == [slot]
    return fresh(series), slot


def test_the_slot_preview_shows_a_deleted_slot_as_excluded_and_why() -> None:
    series = weekly_series(window_weeks=8)
    cancel_occurrence(series, monday(4), now=NOW)
    series, slot = _series_with_a_deleted_occurrence(series)

    slots = {s.start: s for s in upcoming_slots(fresh(series), count=8, now=NOW)}

    assert (slots[slot].state, slots[slot].excluded_because) == (
        "excluded",
        ExclusionReason.PENDING_EXDATE,
    )
    assert (slots[monday(4)].state, slots[monday(4)].excluded_because) == (
        "excluded",
        ExclusionReason.EXDATE,
    )
    assert (slots[monday(3)].state, slots[monday(3)].excluded_because) == ("materialized", None)


def test_the_admin_lists_a_deleted_slot_as_cancelled_and_never_offers_it() -> None:
    series, slot = _series_with_a_deleted_occurrence()

    rows, _ = upcoming_rows(series, admin_site=site, now=NOW)
    offered = [value for value, _ in free_slots(series, now=NOW)]

    (row,) = [row for row in rows if row.instant == slot]
    assert (row.cancelled, row.event_id, row.excluded_because) == (
        True,
        None,
        ExclusionReason.PENDING_EXDATE,
    )
    assert format_instant(slot) not in offered
    assert format_instant(monday(3)) in offered


def test_a_deleted_slot_listed_by_the_admin_can_be_restored() -> None:
    series, slot = _series_with_a_deleted_occurrence()

    restore_occurrence(series, slot, now=NOW)
    generate_series_events(series, now=NOW)

    assert slot in {o.recurrence_id for o in occurrences(series)}


def test_the_preview_of_a_run_leaves_a_deleted_slot_out() -> None:
    series, slot = _series_with_a_deleted_occurrence()
    EventSeries.objects.filter(pk=series.pk).update(last_generated_until=None)

    assert slot not in preview_series_events(fresh(series), now=NOW)


def test_an_occurrence_sitting_on_a_deleted_slot_drifts_in_one_query() -> None:
    series, slot = _series_with_a_deleted_occurrence()
    # A host moves the next occurrence onto the deleted slot by QuerySet.update
    # (not tracked): it now sits on an excluded slot, as after the fold.
    moved = occurrences(series)[2]
    Event.objects.filter(pk=moved.pk).update(starts_at=slot)
    loaded = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk)

    with CaptureQueriesContext(connection) as queries:
        drifted = detect_cadence_drift(loaded, now=NOW)

    assert drifted == [moved.pk]
    assert len(queries) == 1
    assert drifted_ids_by_series([loaded], now=NOW) == {series.pk: [moved.pk]}


def _exdates(body: bytes) -> set[dt.datetime]:
    found: set[dt.datetime] = set()
    for component in icalendar.Calendar.from_ical(body).walk("VEVENT"):
        if component.get("rrule") is None:
            continue
        lines: Any = component.get("exdate") or []
        for line in lines if isinstance(lines, list) else [lines]:
            found |= {value.dt.astimezone(dt.UTC) for value in line.dts}
    return found


def test_the_feed_hides_a_deleted_slot_past_the_cursor() -> None:
    # A slot cancelled before it was generated, then restored after the window
    # passed it: the cursor steps back before it, and the rows after it stay.
    series = weekly_series(window_weeks=4, auto_publish=True)
    cancel_occurrence(series, monday(5), now=NOW)
    generate_series_events(series, now=NOW + dt.timedelta(weeks=3))
    restore_occurrence(series, monday(5), now=NOW + dt.timedelta(weeks=3))
    series = fresh(series)
    assert series.last_generated_until is not None
    assert series.last_generated_until < monday(5)
    victim = next(o for o in occurrences(series) if o.recurrence_id == monday(6))
    victim.delete()

    exdates = _exdates(series_feed(fresh(series), now=NOW + dt.timedelta(weeks=3)).body)

    assert monday(6) in exdates
