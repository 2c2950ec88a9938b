"""An operation's webhook deliveries, written in its own transaction.

:func:`queue_deliveries` is called by whatever writes a ``SeriesOperation``,
once the record is complete: it fixes one JSON payload for the operation and
writes one ``WebhookDelivery`` per active endpoint whose kinds and scope match,
in one INSERT. After commit ``webhook_deliveries_due`` names the new deliveries
(the app's receiver queues their sending); a rolled-back change leaves none and
sends nothing. The payload is fixed here so every attempt and every resend sends
the same bytes under the same ``webhook-id`` (the operation's id).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from ...adapter import get_adapter
from ...conf import recurring_settings
from ...models import (
    EventSeries,
    OperationRow,
    SeriesOperation,
    WebhookDelivery,
    WebhookEndpoint,
)
from ...notices.changes import DateChange
from ...signals import webhook_deliveries_due

#: The Standard Webhooks ``type`` of every payload: one operation on a series.
EVENT_TYPE = "series.operation"


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.astimezone(dt.UTC).isoformat()


def _recorded_rows(record: SeriesOperation, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` + 1 rows of the record, by position (one query)."""
    rows = OperationRow.objects.filter(operation=record).order_by("position")[: limit + 1]
    return [
        {
            "pk": row.occurrence_pk,
            "change": row.change,
            "series_before": row.series_before,
            "series_after": row.series_after,
            "slot_before": _iso(row.slot_before),
            "slot_after": _iso(row.slot_after),
            "start_before": _iso(row.start_before),
            "start_after": _iso(row.start_after),
            "status_before": row.status_before,
            "status_after": row.status_after,
            "booked": row.booked,
        }
        for row in rows
    ]


def _changed_rows(changes: Sequence[DateChange], limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` + 1 of the operation's changes, as the record's rows say them."""
    rows = []
    for change in changes[: limit + 1]:
        before, after = change.before, change.after
        rows.append(
            {
                "pk": str(change.pk),
                "change": change.kind,
                "series_before": before.series_id,
                "series_after": None if after is None else after.series_id,
                "slot_before": _iso(before.recurrence_id),
                "slot_after": None if after is None else _iso(after.recurrence_id),
                "start_before": _iso(before.start),
                "start_after": None if after is None else _iso(after.start),
                "status_before": before.status,
                "status_after": "" if after is None else after.status,
                "booked": None,
            }
        )
    return rows


def operation_payload(
    record: SeriesOperation, *, changes: Sequence[DateChange] | None = None
) -> dict[str, Any]:
    """The JSON an endpoint receives for ``record``: what happened, to which rows.

    Rows come from the record's ``OperationRow`` entries, or, for a record
    written without them, from ``changes``; at most
    ``REVEL_RECURRING_WEBHOOK_MAX_ROWS`` of them, ``rows_truncated`` saying
    whether more were touched (``row_count`` how many).
    """
    limit = recurring_settings.WEBHOOK_MAX_ROWS
    rows = _recorded_rows(record, limit)
    total = record.row_count
    if not rows and changes:
        rows = _changed_rows(changes, limit)
        total = len(changes)
    total = max(total, len(rows))
    return {
        "type": EVENT_TYPE,
        "timestamp": _iso(record.created_at),
        "data": {
            "operation_id": str(record.pk),
            "kind": record.kind,
            "series": {"id": record.series_ref or record.series_id, "name": record.series_name},
            "plan_hash": record.plan_hash,
            "actor": {"id": record.actor, "name": record.actor_name},
            "face": record.face,
            "batch_id": None if record.batch_id is None else str(record.batch_id),
            "created_at": _iso(record.created_at),
            "before": record.before,
            "after": record.after,
            "row_count": total,
            "rows": rows[:limit],
            "rows_truncated": total > min(len(rows), limit),
        },
    }


def _scope_of(record: SeriesOperation, series: EventSeries | None) -> str:
    target = series if series is not None else record.series
    if target is None:
        return ""
    return get_adapter().get_series_webhook_scope(target)


def queue_deliveries(
    record: SeriesOperation,
    *,
    changes: Sequence[DateChange] | None = None,
    series: EventSeries | None = None,
) -> list[WebhookDelivery]:
    """Write ``record``'s deliveries, one per matching endpoint, in one INSERT.

    Call it inside the operation's transaction once its record and rows are
    written. An endpoint matches when it is active, receives the record's kind
    and is site-wide or has the series' scope (the adapter's
    ``get_series_webhook_scope``, asked only when a scoped endpoint exists).
    Writing the same record twice writes nothing new. Returns the deliveries.
    """
    endpoints = [
        endpoint
        for endpoint in WebhookEndpoint.objects.filter(active=True).order_by("pk")
        if endpoint.receives(record.kind)
    ]
    if any(endpoint.scope for endpoint in endpoints):
        scope = _scope_of(record, series)
        endpoints = [endpoint for endpoint in endpoints if endpoint.scope in ("", scope)]
    if not endpoints:
        return []
    payload = operation_payload(record, changes=changes)
    deliveries = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(
                endpoint=endpoint,
                operation=record,
                operation_ref=record.pk,
                kind=record.kind,
                payload=payload,
                created_at=record.created_at,
            )
            for endpoint in endpoints
        ],
        ignore_conflicts=True,
    )
    announce_after_commit(record_ids=[record.pk])
    return deliveries


def announce_after_commit(
    *, record_ids: Sequence[Any] = (), delivery_ids: Sequence[Any] = ()
) -> None:
    """Send ``webhook_deliveries_due`` after commit for the pending deliveries named.

    ``record_ids`` name operations (their pending deliveries are read after
    commit, one query), ``delivery_ids`` deliveries themselves.
    """
    records = list(record_ids)
    named = list(delivery_ids)

    def send() -> None:
        ids = list(named)
        if records:
            ids += list(
                WebhookDelivery.objects.filter(
                    operation_ref__in=records, status=WebhookDelivery.Status.PENDING
                )
                .order_by("pk")
                .values_list("pk", flat=True)
            )
        if ids:
            webhook_deliveries_due.send_robust(sender=WebhookDelivery, delivery_ids=ids)

    transaction.on_commit(send)
