"""A series' history read back: its operations, newest first, and each one's rows page by page.

The records are written by the services (``SeriesOperation`` with its
``OperationSeries`` and ``OperationRow`` rows, ``models/notices.py``); the API
(``series/{id}/operations/``) and the admin (a series' History page, the list of
all operations) read them through these functions, each a fixed number of
queries whatever the size of a record:

* :func:`series_operations`: the operations of one series, including those that
  name it through ``OperationSeries`` (the daily pass's chunk summaries, both
  halves of a split), newest first;
* :func:`operation_rows`: one operation's rows in their recorded order, to page;
* :func:`first_rows`: the first few rows of many operations in one query (a
  page of the History that shows each operation's dates without loading a
  10,000-row record);
* :func:`change_counts` and :func:`feed_entry_counts`: what an operation did,
  counted by the database.

The words of a kind and a face (:func:`kind_label`, :func:`face_label`) are here
so the admin and the API say the same.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Case, Count, Min, Q, QuerySet, Value, When

from .models import OccurrenceChange, OperationRow, OperationSeries, SeriesOperation
from .records.kinds import FACES, KINDS, ROW_CHANGES

#: The operations' kinds as people read them (one list: ``records/kinds.py``);
#: a kind not named there shows as written.
KIND_LABELS: dict[str, Any] = dict(KINDS)

#: Through what a change was made (``SeriesOperation.face``).
FACE_LABELS: dict[str, Any] = dict(FACES)

#: How many dates of each operation a page of the History shows before linking on.
FIRST_ROWS = 10


def kind_label(kind: str) -> str:
    """``kind`` in the reader's language ("cancel_stale" reads "stale dates cancelled")."""
    label = KIND_LABELS.get(kind)
    return str(label) if label is not None else kind.replace("_", " ")


def face_label(face: str) -> str:
    """``face`` in the reader's language; an empty one is "" (recorded before faces were)."""
    label = FACE_LABELS.get(face)
    return str(label) if label is not None else face


def series_operations(series_pk: int | str) -> QuerySet[SeriesOperation]:
    """The operations on one series, newest first, whether the series is still there or not.

    An operation names its series by value (``series_ref``); one that touched
    several (a split, the daily pass's chunk) names each through
    ``OperationSeries``. Both are read in one query, each operation once.
    """
    linked = OperationSeries.objects.filter(series_ref=series_pk).values("operation_id")
    return SeriesOperation.objects.filter(Q(series_ref=series_pk) | Q(pk__in=linked)).order_by(
        "-created_at", "-pk"
    )


def operation_rows(operation_id: Any) -> QuerySet[OperationRow]:
    """One operation's rows in their recorded order (slice it: a record may hold 10,000)."""
    return OperationRow.objects.filter(operation_id=operation_id).order_by("position", "pk")


def first_rows(operation_ids: Sequence[Any], *, limit: int = FIRST_ROWS) -> dict[Any, list[Any]]:
    """The first ``limit`` rows of each operation, read in one query.

    Positions count from 0 or 1 alike: rows up to position ``limit`` are read
    (at most ``limit + 1`` an operation), then cut to ``limit``.
    """
    found: dict[Any, list[Any]] = defaultdict(list)
    if not operation_ids:
        return found
    rows = OperationRow.objects.filter(
        operation_id__in=list(operation_ids), position__lte=limit
    ).order_by("operation_id", "position", "pk")
    for row in rows:
        if len(found[row.operation_id]) < limit:
            found[row.operation_id].append(row)
    return found


def change_counts(operation_id: Any) -> dict[str, int]:
    """How many rows of the operation were moved, cancelled, restored...: one query."""
    counted = (
        OperationRow.objects.filter(operation_id=operation_id)
        .order_by()
        .values("change")
        .annotate(n=Count("pk"))
    )
    return {entry["change"]: entry["n"] for entry in counted}


def feed_entry_counts(operation_ids: Iterable[Any]) -> dict[Any, int]:
    """How many entries of the occurrence change feed point to each operation: one query."""
    ids = list(operation_ids)
    if not ids:
        return {}
    counted = (
        OccurrenceChange.objects.filter(operation_id__in=ids)
        .order_by()
        .values("operation_id")
        .annotate(n=Count("pk"))
    )
    return {entry["operation_id"]: entry["n"] for entry in counted}


#: The rows' changes as people read them (``records/kinds.py``).
CHANGE_LABELS: dict[str, Any] = dict(ROW_CHANGES)


def change_label(change: str) -> str:
    """A row's ``change`` in the reader's language."""
    label = CHANGE_LABELS.get(change)
    return str(label) if label is not None else change


#: Keys of a record's ``before``/``after`` that the generation keeps, not the organiser.
BOOKKEEPING = frozenset(
    {"id", "last_generated_until", "next_due_at", "last_occurrence_index", "version"}
)


def settings_changes(before: Any, after: Any) -> list[tuple[str, Any, Any]]:
    """What differs between an operation's ``before`` and ``after``: ``(key, old, new)``.

    Nested objects are compared key by key under dotted names ("rule.weekdays");
    a key present on one side only shows ``None`` on the other. A creation (nothing
    before) lists nothing, and the generation's own bookkeeping (the cursor, the
    next due moment, counters) is left out: a person asks what the organiser changed.
    """
    if not before:
        return []
    flat_before, flat_after = _flatten(before), _flatten(after)
    keys = sorted(set(flat_before) | set(flat_after))
    return [
        (key, flat_before.get(key), flat_after.get(key))
        for key in keys
        if flat_before.get(key) != flat_after.get(key) and key not in BOOKKEEPING
    ]


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(value, dict):
        return {prefix: value} if prefix and value is not None else {}
    flat: dict[str, Any] = {}
    for key, inner in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(inner, dict):
            flat.update(_flatten(inner, name))
        else:
            flat[name] = inner
    return flat


def recorded_zone(operation: SeriesOperation) -> str | None:
    """The time zone an operation's rule named (after, else before), for a deleted series."""
    for side in (operation.after, operation.before):
        if isinstance(side, dict):
            for holder in (side, side.get("rule"), side.get("recurrence")):
                if isinstance(holder, dict) and isinstance(holder.get("timezone"), str):
                    return str(holder["timezone"])
    return None


def feed_entries(operation_id: Any) -> tuple[int, dt.datetime | None]:
    """How many change-feed entries point to the operation, and when the first was written."""
    found = OccurrenceChange.objects.filter(operation_id=operation_id).aggregate(
        n=Count("pk"), first=Min("at")
    )
    return int(found["n"] or 0), found["first"]


def linked_series(
    operation_id: Any, *, first: Any = None, limit: int = 100
) -> tuple[list[OperationSeries], int]:
    """The series an operation touched (by value), the first ``limit``, and how many in all.

    ``first``: the series asked about comes first (a chunk names hundreds of series).
    """
    links = OperationSeries.objects.filter(operation_id=operation_id).order_by(
        Case(When(series_ref=first, then=Value(0)), default=Value(1)), "series_ref"
    )
    shown = list(links[:limit])
    total = len(shown) if len(shown) < limit else links.count()
    return shown, total


__all__ = [
    "CHANGE_LABELS",
    "FACE_LABELS",
    "FIRST_ROWS",
    "KIND_LABELS",
    "change_counts",
    "change_label",
    "face_label",
    "feed_entries",
    "feed_entry_counts",
    "first_rows",
    "kind_label",
    "linked_series",
    "operation_rows",
    "recorded_zone",
    "series_operations",
    "settings_changes",
]
