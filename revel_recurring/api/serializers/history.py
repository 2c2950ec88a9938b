"""A series' history: its operations (``operations/``), one operation, and its rows.

Read-only shapes over ``SeriesOperation``, ``OperationSeries`` and ``OperationRow``
(``models/notices.py``), as :mod:`revel_recurring.history` reads them. Links are
absolute URLs built from the request in the serializer's context.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ...history import face_label, kind_label
from ...models import OperationRow, SeriesOperation
from ..fields import AwareDateTimeField


def operation_url(context: Mapping[str, Any], operation_id: Any, suffix: str = "") -> str | None:
    """The absolute URL of an operation of the series the request is about (None: no request)."""
    request = context.get("request")
    series_pk = context.get("series_pk")
    if request is None or series_pk is None or operation_id is None:
        return None
    name = "revel_recurring:series-operation-rows" if suffix == "rows" else None
    path = reverse(
        name or "revel_recurring:series-operation",
        kwargs={"pk": series_pk, "operation_id": str(operation_id)},
    )
    return str(request.build_absolute_uri(path))


class OperationSerializer(serializers.Serializer[Any]):
    """One operation as the list shows it: what, when, who, through what, how many dates."""

    id = serializers.UUIDField(read_only=True)
    url = serializers.SerializerMethodField(help_text=_("This operation's detail."))
    kind = serializers.CharField(
        read_only=True,
        help_text=_(
            'What was done: "plan", "split", "move", "cancel", "restore", "cancel_stale", '
            '"generate", the daily pass\'s chunk summary...'
        ),
    )
    kind_label = serializers.SerializerMethodField(help_text=_("The kind in words."))
    created_at = AwareDateTimeField(read_only=True, help_text=_("When it was done."))
    actor = serializers.CharField(
        read_only=True, help_text=_('The user\'s primary key as text; "" for nobody (a task).')
    )
    actor_name = serializers.CharField(read_only=True, help_text=_("The user's name then."))
    face = serializers.CharField(
        read_only=True, help_text=_('Through what: "api", "admin", "command", "task" or "code".')
    )
    series_id = serializers.IntegerField(
        source="series_ref", read_only=True, allow_null=True, help_text=_("The series' id.")
    )
    series_name = serializers.CharField(read_only=True, help_text=_("The series' name then."))
    plan_hash = serializers.CharField(
        read_only=True, help_text=_('The hash of the plan it applied ("" for none).')
    )
    row_count = serializers.IntegerField(
        read_only=True, help_text=_("How many dates it touched (its rows).")
    )
    batch_id = serializers.UUIDField(
        read_only=True,
        allow_null=True,
        help_text=_("Shared by the records of one queued bulk action (one per series)."),
    )
    reverts = serializers.SerializerMethodField(
        help_text=_("The operation this one reverted, if it is a revert.")
    )

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, obj: SeriesOperation) -> str | None:
        return operation_url(self.context, obj.pk)

    def get_kind_label(self, obj: SeriesOperation) -> str:
        return kind_label(obj.kind)

    @extend_schema_field(
        {
            "type": "object",
            "nullable": True,
            "properties": {
                "id": {"type": "string", "format": "uuid"},
                "url": {"type": "string", "format": "uri", "nullable": True},
            },
        }
    )
    def get_reverts(self, obj: SeriesOperation) -> dict[str, Any] | None:
        if obj.reverts_id is None:
            return None
        return {"id": str(obj.reverts_id), "url": operation_url(self.context, obj.reverts_id)}


class OperationSeriesSerializer(serializers.Serializer[Any]):
    series_id = serializers.IntegerField(source="series_ref", read_only=True)
    series_name = serializers.CharField(read_only=True)
    dates_created = serializers.IntegerField(
        source="created", read_only=True, help_text=_("Dates the daily pass created in it.")
    )


class FeedEntriesSerializer(serializers.Serializer[Any]):
    count = serializers.IntegerField(
        help_text=_("Entries of the occurrence change feed that point to this operation.")
    )
    url = serializers.URLField(
        allow_null=True,
        help_text=_("The series' occurrences changed since the operation (the change feed)."),
    )


class OperationDetailSerializer(OperationSerializer):
    """One operation: the list's fields, the rule before and after, counts and links."""

    face_label = serializers.SerializerMethodField(help_text=_("The face in words."))
    notify = serializers.CharField(read_only=True, help_text=_("Whether people were told."))
    before = serializers.JSONField(
        read_only=True, allow_null=True, help_text=_("The rule and settings before.")
    )
    after = serializers.JSONField(
        read_only=True, allow_null=True, help_text=_("The rule and settings after.")
    )
    summary = serializers.JSONField(
        read_only=True, allow_null=True, help_text=_("The daily pass's chunk: what it generated.")
    )
    counts = serializers.SerializerMethodField(
        help_text=_('Its rows by change: {"moved": 3, "cancelled": 1}.')
    )
    series = serializers.SerializerMethodField(
        help_text=_("Every series it touched, by value (a split: both; a chunk: many).")
    )
    series_count = serializers.SerializerMethodField()
    reverted_by = serializers.SerializerMethodField(
        help_text=_("The operations that reverted this one.")
    )
    rows = serializers.SerializerMethodField(help_text=_("Its rows, page by page."))
    feed_entries = serializers.SerializerMethodField()

    def get_face_label(self, obj: SeriesOperation) -> str:
        return face_label(obj.face)

    @extend_schema_field({"type": "object", "additionalProperties": {"type": "integer"}})
    def get_counts(self, obj: SeriesOperation) -> dict[str, int]:
        return dict(self.context.get("counts", {}))

    @extend_schema_field(OperationSeriesSerializer(many=True))
    def get_series(self, obj: SeriesOperation) -> list[dict[str, Any]]:
        links = self.context.get("links", [])
        return list(OperationSeriesSerializer(links, many=True).data)

    def get_series_count(self, obj: SeriesOperation) -> int:
        return int(self.context.get("links_total", 0))

    @extend_schema_field(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "url": {"type": "string", "format": "uri", "nullable": True},
                },
            },
        }
    )
    def get_reverted_by(self, obj: SeriesOperation) -> list[dict[str, Any]]:
        return [
            {"id": str(pk), "url": operation_url(self.context, pk)}
            for pk in self.context.get("reverted_by", [])
        ]

    @extend_schema_field(OpenApiTypes.URI)
    def get_rows(self, obj: SeriesOperation) -> str | None:
        return operation_url(self.context, obj.pk, "rows")

    @extend_schema_field(FeedEntriesSerializer)
    def get_feed_entries(self, obj: SeriesOperation) -> dict[str, Any]:
        return {"count": self.context.get("feed_entries", 0), "url": self.context.get("feed_url")}


class OperationRowSerializer(serializers.Serializer[Any]):
    """One date an operation touched: its slot, start and status before and after."""

    position = serializers.IntegerField(read_only=True)
    occurrence_id = serializers.CharField(
        source="occurrence_pk", read_only=True, help_text=_("The event's primary key as text.")
    )
    change = serializers.CharField(
        read_only=True,
        help_text=_('"created", "moved", "cancelled", "restored", "deleted", "renamed", "edited".'),
    )
    series_before = serializers.IntegerField(read_only=True, allow_null=True)
    series_after = serializers.IntegerField(read_only=True, allow_null=True)
    slot_before = AwareDateTimeField(read_only=True, allow_null=True)
    slot_after = AwareDateTimeField(read_only=True, allow_null=True)
    start_before = AwareDateTimeField(read_only=True, allow_null=True)
    start_after = AwareDateTimeField(read_only=True, allow_null=True)
    status_before = serializers.CharField(
        read_only=True, help_text=_('"live", "cancelled" or "draft" ("" where none).')
    )
    status_after = serializers.CharField(read_only=True)
    booked = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text=_("People booked on it then (null: the site does not say)."),
    )
    in_feed = serializers.SerializerMethodField(
        help_text=_("An entry of the occurrence change feed points to this operation for it.")
    )

    def get_in_feed(self, obj: OperationRow) -> bool:
        return obj.occurrence_pk in self.context.get("in_feed", frozenset())


__all__ = [
    "FeedEntriesSerializer",
    "OperationDetailSerializer",
    "OperationRowSerializer",
    "OperationSerializer",
    "OperationSeriesSerializer",
    "operation_url",
]
