"""Celery tasks: thin adapters over the services.

Retry policy of ``generate_series``: only transient database errors are retried,
up to ``REVEL_RECURRING_TASK_MAX_RETRIES`` times. Retry *n* (0-based) waits
``d/2 + uniform(0, d/2)`` seconds with ``d = min(BACKOFF_MAX, BACKOFF * 2**n)``.
With the defaults (5 retries, base 5 s, cap 300 s) the nominal delays are 5, 10,
20, 40 and 80 s: at most 155 s of backoff in total, at least 77.5 s.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
from typing import Any

from celery import shared_task

from .conf import recurring_settings
from .instants import parse_aware_instant
from .services.chunks import generate_series_chunk_events
from .services.dispatch import dispatch_due_chunks, dispatch_due_series
from .services.generation import generate_series_events
from .services.parking import park_failed_series
from .transient import is_transient_db_error

logger = logging.getLogger(__name__)


def retry_delay(retries: int, *, rng: random.Random | None = None) -> float:
    """Seconds before retry number ``retries`` (0-based): exponential, equal jitter."""
    nominal = min(
        recurring_settings.TASK_RETRY_BACKOFF_MAX,
        recurring_settings.TASK_RETRY_BACKOFF * 2**retries,
    )
    jitter = rng.uniform(0, nominal / 2) if rng is not None else random.uniform(0, nominal / 2)
    return float(nominal / 2 + jitter)


def max_total_backoff() -> float:
    """The longest a task can spend waiting between attempts, in seconds."""
    return float(
        sum(
            min(
                recurring_settings.TASK_RETRY_BACKOFF_MAX,
                recurring_settings.TASK_RETRY_BACKOFF * 2**n,
            )
            for n in range(recurring_settings.TASK_MAX_RETRIES)
        )
    )


def _parse_now(now: str | None) -> dt.datetime | None:
    # The one parser of typed instants: a naive or unreadable ``now`` fails the
    # task at once with the words the API and the commands use.
    return parse_aware_instant(now) if now else None


@shared_task(name="revel_recurring.generate_all_series")
def generate_all_series(now: str | None = None) -> dict[str, int]:
    """Beat entry point: enqueue the due series in chunks of ``generate_series_chunk``.

    Chunks hold ``REVEL_RECURRING_GENERATION_CHUNK_SIZE`` ids (default 50); with
    1, one ``generate_series`` per series is sent instead. ``now`` (ISO 8601,
    aware; default: the current time) is the moment "due" is judged against; it
    is passed on to every task so the whole pass sees one clock. Returns
    ``{"due": n, "dispatched": n, "failed": n, "skipped": n}``, all in series
    (``skipped``: active series disarmed because they have no template).
    """
    moment = _parse_now(now)
    if recurring_settings.GENERATION_CHUNK_SIZE == 1:
        result = dispatch_due_series(
            lambda series_id: generate_series.delay(series_id, now=now), now=moment
        )
    else:
        result = dispatch_due_chunks(
            lambda ids: generate_series_chunk.delay(ids, now=now), now=moment
        )
    logger.info("revel_recurring dispatch: %s", result.as_dict())
    return result.as_dict()


@shared_task(name="revel_recurring.generate_series_chunk")
def generate_series_chunk(series_ids: list[int], now: str | None = None) -> dict[str, Any]:
    """Materialize the windows of a chunk of series in one transaction.

    See :func:`~revel_recurring.services.chunks.generate_series_chunk_events`:
    series held elsewhere are retried in this run, and when the chunk fails it
    falls back to one transaction per series. A series whose own run then fails
    with a transient database error is handed to ``generate_series`` (and its
    retry policy); any other failure is logged and listed under ``"failed"``.
    Returns ``{"series", "chunked", "retried", "fallen_back", "created",
    "failed": [ids], "requeued": [ids]}``.
    """
    result = generate_series_chunk_events(series_ids, now=_parse_now(now))
    requeued = []
    for series_id, exc in sorted(result.failures.items()):
        if is_transient_db_error(exc):
            generate_series.delay(series_id, now=now)
            requeued.append(series_id)
    summary = result.as_dict()
    summary["failed"] = [pk for pk in summary["failed"] if pk not in requeued]
    summary["requeued"] = requeued
    return summary


@shared_task(bind=True, name="revel_recurring.generate_series")
def generate_series(self: Any, series_id: int, now: str | None = None) -> dict[str, Any]:
    """Materialize the window of one series; retries transient database errors only.

    ``now`` (ISO 8601, aware) overrides the current time, as in ``generate_all_series``.
    Any other failure parks the series (``parked_at``, ``parked_reason``) before the
    task fails, so the next daily pass leaves it alone until it is unparked.
    """
    try:
        # The id goes straight to the locked read: no separate load of the series.
        created = generate_series_events(series_id, now=_parse_now(now))
    except Exception as exc:  # every failure is retried or parks the series, then raised
        retries = self.request.retries
        if is_transient_db_error(exc) and retries < recurring_settings.TASK_MAX_RETRIES:
            raise self.retry(
                exc=exc,
                countdown=retry_delay(retries),
                max_retries=recurring_settings.TASK_MAX_RETRIES,
            ) from exc
        park_failed_series(series_id, exc, now=_parse_now(now))
        raise
    return {"series": series_id, "created": len(created)}
