"""Occurrence rows (live or tombstones), drift and the preview of upcoming slots."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ...beyond_window import BeyondDate
from ...exclusions import ExclusionReason
from ...models import OccurrenceChange, get_event_model
from ..fields import AwareDateTimeField, EventIdField, EventStatusField


@dataclass(frozen=True)
class OccurrenceRow:
    """One row of ``occurrences/``: a live host event or the tombstone of a deleted one."""

    id: Any
    recurrence_id: dt.datetime | None
    occurrence_index: int | None
    start: dt.datetime | None
    end: dt.datetime | None
    status: Any
    is_modified: bool
    drifted: bool
    cancelled: bool
    deleted: bool
    has_bookings: bool = False
    moved_to: int | None = None
    #: The holiday on its slot's day (moved, skipped or kept), "" for none.
    holiday: str = ""
    #: Its slot, when a holiday moved the date off it; None otherwise.
    shifted_from: dt.datetime | None = None
    #: Under ``modified_since``: the slot it stood for before a schedule change moved
    #: it to another date of the rule since then; None otherwise.
    rescheduled_from: dt.datetime | None = None
    #: False for a date of the rule beyond the window that has no row yet.
    materialized: bool = True

    @classmethod
    def of(cls, event: Any, *, drifted: bool = False, booked: bool = False) -> OccurrenceRow:
        """The row of a live event; ``booked`` comes from one ``booked_among`` call per page."""
        model = type(event)
        status = event.occurrence_status
        return cls(
            id=event.pk,
            recurrence_id=event.recurrence_id,
            occurrence_index=event.occurrence_index,
            start=event.occurrence_start,
            end=event.occurrence_end,
            status=status,
            is_modified=event.is_modified,
            drifted=drifted,
            cancelled=model.is_status(status, model.RECURRING_STATUS_CANCELLED),
            deleted=False,
            has_bookings=booked,
        )

    @classmethod
    def beyond(cls, date: BeyondDate) -> OccurrenceRow:
        """A date of the rule past the cursor that has no row yet: no id, status or index."""
        return cls(
            id=None,
            recurrence_id=date.slot,
            occurrence_index=None,
            start=date.start,
            end=date.end,
            status=None,
            is_modified=False,
            drifted=False,
            cancelled=False,
            deleted=False,
            holiday=date.holiday,
            shifted_from=date.slot if date.start != date.slot else None,
            materialized=False,
        )

    @classmethod
    def tombstone(cls, change: OccurrenceChange) -> OccurrenceRow:
        return cls(
            id=get_event_model()._meta.pk.to_python(change.occurrence_pk),
            recurrence_id=change.recurrence_id,
            occurrence_index=change.occurrence_index,
            start=None,
            end=None,
            status=None,
            is_modified=False,
            drifted=False,
            cancelled=True,
            deleted=True,
            moved_to=change.moved_to_id,
        )


class OccurrenceSerializer(serializers.Serializer[OccurrenceRow]):
    id = EventIdField(
        allow_null=True,
        help_text=_(
            "The host event's id (of the deleted row for a tombstone); null for a date "
            "beyond the window that has no row yet (`materialized` false)."
        ),
    )
    recurrence_id = AwareDateTimeField(
        allow_null=True,
        help_text=_(
            "The slot of the rule it stands for (RFC 5545 RECURRENCE-ID). Editing the "
            "date leaves it; a schedule change that moves the date to another date of "
            "the rule gives it that one (`rescheduled_from` names the old)."
        ),
    )
    occurrence_index = serializers.IntegerField(
        allow_null=True,
        help_text=_(
            "The series' counter when the row was made (in the order rows were made, "
            "not always in date order); null for a date without a row."
        ),
    )
    start = AwareDateTimeField(allow_null=True, help_text=_("Null for a deleted occurrence."))
    end = AwareDateTimeField(
        allow_null=True,
        help_text=_(
            "The host's end, or the start plus the host's duration "
            "(`occurrence_duration`); null when it has neither, or for a deleted occurrence."
        ),
    )
    status = EventStatusField(allow_null=True)
    is_modified = serializers.BooleanField(help_text=_("Edited on its own since generation."))
    drifted = serializers.BooleanField(help_text=_("Future, unmodified, and off the current rule."))
    cancelled = serializers.BooleanField()
    deleted = serializers.BooleanField(
        help_text=_(
            "A tombstone: the row left this series, deleted or (see `moved_to`) moved "
            "to another series by a split."
        )
    )
    moved_to = serializers.IntegerField(
        allow_null=True,
        help_text=_(
            "On a tombstone of an occurrence a split moved: the id of the series it "
            "belongs to now (same occurrence id there). Null otherwise."
        ),
    )
    materialized = serializers.BooleanField(
        help_text=_(
            "False for a date of the rule beyond the generation window that has no row "
            "yet (listed with `beyond_window=true`): no id, status or index; "
            "`materialize-date/` makes it a row that can be booked."
        )
    )
    has_bookings = serializers.BooleanField(
        help_text=_(
            "The host says this occurrence holds bookings; cancel-stale and "
            "cancel-occurrence leave it alone unless `include_booked` is true."
        )
    )
    holiday = serializers.CharField(
        help_text=_(
            "The holiday of the series' calendar on the occurrence's slot (the date a "
            "holiday moved, or kept), in the active language; empty for none."
        )
    )
    shifted_from = AwareDateTimeField(
        allow_null=True,
        help_text=_(
            "The slot (UTC) a holiday moved this occurrence from (the same as "
            "`recurrence_id`); null when no holiday moved it."
        ),
    )
    rescheduled_from = AwareDateTimeField(
        allow_null=True,
        help_text=_(
            "Only under `modified_since`: a rescheduled occurrence, one a schedule change "
            "moved to another date of the rule since then. The `recurrence_id` it had "
            "(UTC; the new one is `recurrence_id`), so a syncing client can find the "
            "entry it holds. Null otherwise."
        ),
    )


def occurrence_data(rows: Iterable[OccurrenceRow]) -> Any:
    """The JSON-ready list of occurrence rows."""
    return OccurrenceSerializer(list(rows), many=True).data  # type: ignore[arg-type]


class DriftSerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField()
    occurrences = OccurrenceSerializer(many=True)
    enrolled = serializers.DictField(
        child=serializers.IntegerField(),
        help_text=_(
            "How many enrolled users each drifted date holds, by the date's id (dates "
            "without any left out): booked through their enrolment or by a booking of "
            "their own. `cancel-stale/` releases none of them."
        ),
    )


#: What became of a slot of the preview (named in the schema as ``StateEnum``).
SLOT_STATES = ("materialized", "excluded", "pending")


class PreviewSlotSerializer(serializers.Serializer[Any]):
    start = AwareDateTimeField(help_text=_("The rule's slot, UTC."))
    local_start = serializers.DateTimeField(help_text=_("The same instant in the rule's zone."))
    state = serializers.ChoiceField(choices=SLOT_STATES)
    excluded_because = serializers.ChoiceField(
        choices=[(reason.value, reason.value) for reason in ExclusionReason],
        allow_null=True,
        help_text=_(
            "Why an excluded slot is excluded: `exdate` (cancelled or deleted), "
            "`pending_exdate` (deleted, not folded in yet) or `holiday` (a holiday of the "
            "series' calendar skips it). Null for the other states."
        ),
    )
    holiday = serializers.CharField(
        help_text=_(
            "The holiday on the slot's day (skipped, moved or kept), in the active "
            "language; empty for none."
        )
    )
    starts_at = AwareDateTimeField(
        allow_null=True,
        help_text=_(
            "Where the date takes place, UTC: `start`, or the day a holiday moved it to. "
            "Null for an excluded slot."
        ),
    )

    def to_representation(self, instance: Any) -> dict[str, Any]:
        instant = AwareDateTimeField()
        reason, starts_at = instance.excluded_because, instance.starts_at
        return {
            "start": instant.to_representation(instance.start),
            "local_start": instance.local_start.isoformat(),
            "state": instance.state,
            "excluded_because": None if reason is None else str(reason),
            "holiday": instance.holiday,
            "starts_at": None if starts_at is None else instant.to_representation(starts_at),
        }


class PreviewSerializer(serializers.Serializer[Any]):
    timezone = serializers.CharField(allow_null=True)
    count = serializers.IntegerField()
    slots = PreviewSlotSerializer(many=True)


class PreviewQuerySerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField(
        min_value=1,
        required=False,
        default=10,
        help_text=_("How many: 1 or more (default 10); more than 100 is capped at 100."),
    )
