"""What an operation did to each row a person may hold: moved, cancelled, restored, renamed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .rows import Identity, RowState


@dataclass(frozen=True)
class DateChange:
    """One row before and after an operation; ``after`` None when the row is gone."""

    before: RowState
    after: RowState | None

    @property
    def pk(self) -> Any:
        """The host event's primary key."""
        return self.before.pk

    @property
    def kind(self) -> str:
        """ "cancelled", "restored", "moved" or "renamed" (same date, another identity)."""
        after = self.after
        if after is None or (after.status == "cancelled" and self.before.status != "cancelled"):
            return "cancelled"
        if self.before.status == "cancelled" and after.status != "cancelled":
            return "restored"
        if after.start != self.before.start:
            return "moved"
        return "renamed"

    @property
    def identity_changed(self) -> bool:
        """Whether a calendar knows the row by another UID or RECURRENCE-ID now."""
        return self.after is not None and self.after.identity != self.before.identity

    def as_signal_row(self) -> dict[str, Any]:
        """The row as the ``series_dates_changed`` signal describes it."""
        after = self.after
        return {
            "pk": self.pk,
            "kind": self.kind,
            "series_before": self.before.series_id,
            "series_after": None if after is None else after.series_id,
            "slot_before": self.before.recurrence_id,
            "slot_after": None if after is None else after.recurrence_id,
            "start_before": self.before.start,
            "start_after": None if after is None else after.start,
            "status_before": self.before.status,
            "status_after": None if after is None else after.status,
        }


def _differs(before: RowState, after: RowState | None) -> bool:
    if after is None:
        return before.status != "cancelled"
    if before.status == "draft" and after.status == "draft":
        return False  # nobody holds a date that was never published
    if before.status == "cancelled" and after.status == "cancelled":
        # A cancelled date moved along with its exclusion (a plan's cancelled
        # moves) is still off: its people were told when it was cancelled.
        return False
    return (
        before.start != after.start
        or (before.status == "cancelled") != (after.status == "cancelled")
        or before.identity != after.identity
    )


def date_changes(before: Mapping[Any, RowState], after: Mapping[Any, RowState]) -> list[DateChange]:
    """The rows whose date, cancellation or identity the operation changed, in start order."""
    found = [
        DateChange(before=state, after=after.get(pk))
        for pk, state in before.items()
        if _differs(state, after.get(pk))
    ]
    return sorted(found, key=lambda c: (c.before.start, str(c.pk)))


def held_identity(change: DateChange, copies: Mapping[Any, Identity]) -> Identity:
    """What a person's calendar holds for the row: what they were last sent, or the feed's."""
    return copies.get(change.pk, change.before.identity)
