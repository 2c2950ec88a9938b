"""What an operation did to each row, for its record: every row touched, created or gone.

Unlike :func:`~revel_recurring.notices.changes.date_changes` (what the people
booked on a row are told), a record names every row whose slot, start, status,
series or calendar identity changed, the rows that appeared and the rows that
went, and the rows a service says it edited otherwise (a template's values
copied onto them).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from ..notices.rows import RowState


@dataclass(frozen=True)
class RowChange:
    """One row before and after an operation: ``before`` None when it was created,
    ``after`` None when it is gone."""

    pk: Any
    change: str
    before: RowState | None
    after: RowState | None


def _kind(before: RowState, after: RowState) -> str | None:
    if before.status != after.status:
        if after.status == "cancelled":
            return "cancelled"
        if before.status == "cancelled":
            return "restored"
        if before.status == "draft":
            return "published"
        return "edited"  # unpublished again
    if (
        before.start != after.start
        or before.recurrence_id != after.recurrence_id
        or before.series_id != after.series_id
    ):
        return "moved"
    if before.identity != after.identity:
        return "renamed"
    return None


def _order(change: RowChange) -> tuple[Any, ...]:
    state = change.before or change.after
    assert state is not None
    return (state.start, str(change.pk))


def row_changes(
    before: Mapping[Any, RowState],
    after: Mapping[Any, RowState],
    *,
    edited: Collection[Any] = (),
) -> list[RowChange]:
    """Every row ``before`` and ``after`` differ on, and those in ``edited``, in start order.

    ``before`` holds the rows read on entry, ``after`` those read on leaving (a
    row missing there is "deleted", a row missing in ``before`` "created").
    """
    edited = set(edited)
    found: list[RowChange] = []
    for pk, state in before.items():
        now = after.get(pk)
        if now is None:
            found.append(RowChange(pk, "deleted", state, None))
            continue
        kind = _kind(state, now) or ("edited" if pk in edited else None)
        if kind is not None:
            found.append(RowChange(pk, kind, state, now))
    for pk, state in after.items():
        if pk not in before:
            found.append(RowChange(pk, "created", None, state))
    return sorted(found, key=_order)


__all__ = ["RowChange", "row_changes"]
