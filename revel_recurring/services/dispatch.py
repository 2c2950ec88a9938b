"""The daily fan-out: find due series and hand each to a callback (the Celery task)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.utils import timezone

from ..conf import recurring_settings
from ..models import EventSeries

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DispatchResult:
    due: int
    dispatched: int
    failed: int

    def as_dict(self) -> dict[str, int]:
        return {"due": self.due, "dispatched": self.dispatched, "failed": self.failed}


def iter_due_series_ids(*, now: dt.datetime, chunk_size: int) -> Iterator[int]:
    """Due series ids in primary-key order, read in keyset-paginated chunks.

    Keyset pages (``pk > last``) instead of a server-side cursor: each chunk is a
    short query, which keeps working behind PgBouncer in transaction mode, where
    ``.iterator()`` cursors do not survive.
    """
    last = 0
    while True:
        chunk = list(
            EventSeries.objects.due(now=now)
            .filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", flat=True)[:chunk_size]
        )
        yield from chunk
        if len(chunk) < chunk_size:
            return
        last = chunk[-1]


def dispatch_due_series(
    enqueue: Callable[[int], object], *, now: dt.datetime | None = None
) -> DispatchResult:
    """Call ``enqueue(series_id)`` for every due series; one failure never stops the loop."""
    moment = now or timezone.now()
    due = dispatched = failed = 0
    for series_id in iter_due_series_ids(
        now=moment, chunk_size=recurring_settings.DISPATCH_CHUNK_SIZE
    ):
        due += 1
        try:
            enqueue(series_id)
        except Exception:
            failed += 1
            logger.exception(
                "revel_recurring could not dispatch generation of series %s", series_id
            )
        else:
            dispatched += 1
    return DispatchResult(due=due, dispatched=dispatched, failed=failed)
