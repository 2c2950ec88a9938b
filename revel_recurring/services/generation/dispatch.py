"""The daily fan-out: find due series and hand each to a callback (the Celery task)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from django.db.models import Exists, OuterRef
from django.utils import timezone

from ...conf import recurring_settings
from ...models import EventSeries, get_event_model

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DispatchResult:
    """What one pass did; ``skipped`` counts series disarmed because they have no template."""

    due: int
    dispatched: int
    failed: int
    skipped: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counts as a dict (the beat task's JSON result)."""
        return {
            "due": self.due,
            "dispatched": self.dispatched,
            "failed": self.failed,
            "skipped": self.skipped,
        }


def count_disarmed_series() -> int:
    """Active series with a rule that generation disarmed for want of a template.

    They are never due, so the pass would not mention them otherwise; a site that
    watches the counts sees them until someone gives them a template.
    """
    templates = get_event_model()._default_manager.filter(series=OuterRef("pk"), is_template=True)
    return (
        EventSeries.objects.active()
        .with_rule()
        .filter(next_due_at__isnull=True)
        .exclude(Exists(templates))
        .count()
    )


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
    return dispatch_due_chunks(lambda ids: enqueue(ids[0]), now=now, chunk_size=1)


def dispatch_due_chunks(
    enqueue: Callable[[list[int]], object],
    *,
    now: dt.datetime | None = None,
    chunk_size: int | None = None,
) -> DispatchResult:
    """Call ``enqueue(ids)`` for every chunk of due series ids, ascending.

    ``chunk_size`` defaults to ``REVEL_RECURRING_GENERATION_CHUNK_SIZE``. The ids
    stream from keyset-paginated reads (``REVEL_RECURRING_DISPATCH_CHUNK_SIZE``
    ids each): memory does not grow with the number of series. A broker error
    for one chunk is logged and counts its series as failed; the loop goes on.
    All counts are in series.
    """
    moment = now or timezone.now()
    size = chunk_size or recurring_settings.GENERATION_CHUNK_SIZE
    due = dispatched = failed = 0
    ids = iter_due_series_ids(now=moment, chunk_size=recurring_settings.DISPATCH_CHUNK_SIZE)
    for chunk in _batched(ids, size):
        due += len(chunk)
        try:
            enqueue(chunk)
        # Everything, on purpose: enqueue is the caller's (a Celery .delay), its
        # failures are the broker client's own types, which a service never imports.
        except Exception:
            failed += len(chunk)
            logger.exception(
                "revel_recurring could not dispatch generation of series %s",
                ", ".join(map(str, chunk)),
            )
        else:
            dispatched += len(chunk)
    skipped = count_disarmed_series()
    if skipped:
        logger.warning(
            "revel_recurring: %s active series have no template and generate nothing "
            "(replace_template gives them one)",
            skipped,
        )
    return DispatchResult(due=due, dispatched=dispatched, failed=failed, skipped=skipped)


def _batched(ids: Iterable[int], size: int) -> Iterator[list[int]]:
    chunk: list[int] = []
    for series_id in ids:
        chunk.append(series_id)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
