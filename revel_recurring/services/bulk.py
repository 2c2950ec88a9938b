"""Pause, resume, delete or clean up many series, one chunk at a time.

What the admin hands to Celery when a selection is larger than
``REVEL_RECURRING_ADMIN_INLINE_LIMIT`` (its *Generate now* reuses the daily
pass's chunk, :mod:`~revel_recurring.services.generation.chunks`). Each series goes through
the same single-series service as one clicked in the admin, in its own
transaction with its own lock, so a chunk is a loop over the services the
inline path calls, never a second implementation of them. One series never
takes the others down: a refusal (``RecurrenceError``, ``ValidationError``) is
reported, anything else is logged, and the loop goes on.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..context import in_batch
from ..exceptions import HasBookingsError, RecurrenceError
from ..models import EventSeries
from .drift import cancel_stale_occurrences, drifted_ids_by_series
from .lifecycle import delete_series, pause_series, resume_series
from .toolbox.plumbing import now_utc

logger = logging.getLogger(__name__)


@dataclass
class BulkResult:
    """What one chunk did, by series id.

    Every id handed in that still names a series ends in exactly one of
    ``changed``, ``unchanged`` (nothing to do: already paused, no stale date),
    ``failed`` (the reason) or, for a deletion, ``kept`` (its dates hold
    bookings; the refusal names them). ``missing`` lists the ids of series gone
    before the chunk ran. A cancellation chunk counts the occurrences it
    cancelled in ``cancelled`` and names in ``kept`` the booked dates it left
    alone, beside the series' own outcome.
    """

    changed: list[int] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    kept: dict[int, str] = field(default_factory=dict)
    failed: dict[int, str] = field(default_factory=dict)
    missing: list[int] = field(default_factory=list)
    cancelled: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The outcome as JSON a Celery result backend stores (keys as text)."""
        return {
            "changed": self.changed,
            "unchanged": self.unchanged,
            "kept": {str(pk): text for pk, text in self.kept.items()},
            "failed": {str(pk): text for pk, text in self.failed.items()},
            "missing": self.missing,
            "cancelled": self.cancelled,
        }

    def outcome(self, *, missing_done: bool = False) -> tuple[int, dict[int, str]]:
        """What the record of a queued action counts of this chunk: series done, failed (why).

        Done: ``changed`` and ``unchanged``. Failed: ``failed``, and a series ``kept``
        whole (a deletion refused for its bookings; a cancellation that kept booked
        dates did the rest and is done). A series gone before the chunk ran is done
        for a deletion (``missing_done``) and failed otherwise.
        """
        failed = dict(self.failed)
        finished = set(self.changed) | set(self.unchanged)
        failed.update({pk: text for pk, text in self.kept.items() if pk not in finished})
        done = len(finished)
        if missing_done:
            done += len(self.missing)
        else:
            failed.update({pk: _("The series no longer exists.") for pk in self.missing})
        return done, failed


def failure_reason(exc: Exception) -> str:
    """A refusal or error in words for a person: a ``ValidationError``'s messages, or the text."""
    if isinstance(exc, (RecurrenceError, ValidationError)):
        return _reason(exc)
    return f"{type(exc).__name__}: {exc}"


def _reason(exc: Exception) -> str:
    return " ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)


def _load(series_ids: Iterable[int], result: BulkResult) -> list[EventSeries]:
    """The series of ``series_ids`` with their rules, in id order, in one read."""
    ids = sorted(set(series_ids))
    found = list(
        EventSeries.objects.filter(pk__in=ids).select_related("recurrence_rule").order_by("pk")
    )
    present = {series.pk for series in found}
    result.missing.extend(pk for pk in ids if pk not in present)
    return found


def _each(
    found: Iterable[EventSeries], result: BulkResult, operation: Callable[[EventSeries], bool]
) -> BulkResult:
    """Run ``operation`` on each series, its outcome recorded in ``result``; their
    records in the series' history share one batch id."""
    with in_batch():
        for series in found:
            _one(series, result, operation)
    return result


def _one(series: EventSeries, result: BulkResult, operation: Callable[[EventSeries], bool]) -> None:
    try:
        changed = operation(series)
    except HasBookingsError as exc:
        result.kept[series.pk] = str(exc)
    except (RecurrenceError, ValidationError) as exc:
        result.failed[series.pk] = _reason(exc)
    except Exception as exc:  # one broken series never stops the chunk
        logger.exception("revel_recurring: bulk operation failed for series %s", series.pk)
        result.failed[series.pk] = failure_reason(exc)
    else:
        (result.changed if changed else result.unchanged).append(series.pk)


def pause_many(series_ids: Iterable[int], *, now: dt.datetime | None = None) -> BulkResult:
    """:func:`~revel_recurring.services.lifecycle.pause_series` for each series."""
    moment = now_utc(now)
    result = BulkResult()
    return _each(_load(series_ids, result), result, lambda s: pause_series(s, now=moment))


def resume_many(series_ids: Iterable[int], *, now: dt.datetime | None = None) -> BulkResult:
    """:func:`~revel_recurring.services.lifecycle.resume_series` for each series."""
    moment = now_utc(now)
    result = BulkResult()
    return _each(_load(series_ids, result), result, lambda s: resume_series(s, now=moment))


def delete_many(series_ids: Iterable[int]) -> BulkResult:
    """:func:`~revel_recurring.services.lifecycle.delete_series` for each series.

    A series whose dates hold bookings is not deleted: it is listed in ``kept``
    with the refusal naming its booked dates. ``changed`` lists the deleted ones.
    """
    result = BulkResult()

    def delete(series: EventSeries) -> bool:
        delete_series(series)
        return True

    return _each(_load(series_ids, result), result, delete)


@dataclass(frozen=True)
class StaleChoice:
    """What a person decided on the (bounded) "Cancel stale dates" page.

    ``listed`` holds every date the page listed, ``ticked`` those left ticked
    (a booked one ticked is cancelled with its bookings). Without ``rest`` only
    ticked dates go. With ``rest`` (the page said that the stale dates it did not
    list go too) every stale date goes but a listed one left unticked and a
    booked one nobody ticked, except in the series of ``complete``, whose every
    stale date the page listed: of those only the ticked dates go, so a date
    that drifted after the page was shown is not cancelled unseen.
    """

    ticked: frozenset[Any] = frozenset()
    listed: frozenset[Any] = frozenset()
    complete: frozenset[int] = frozenset()
    rest: bool = False

    def unlisted(self, series_id: int, stale: Iterable[Any]) -> list[Any]:
        """Those of ``stale`` (a series' drifted ids) that go without being listed."""
        if not self.rest or series_id in self.complete:
            return []
        return [pk for pk in stale if pk not in self.listed]

    def to_cancel(self, series_id: int, stale: Iterable[Any]) -> list[Any]:
        """Those of ``stale`` (a series' drifted ids, in order) to cancel."""
        stale = list(stale)
        extra = set(self.unlisted(series_id, stale))
        return [pk for pk in stale if pk in self.ticked or pk in extra]


def cancel_stale_many(
    series_ids: Iterable[int],
    *,
    choice: StaleChoice = StaleChoice(),
    notify: object = None,
    now: dt.datetime | None = None,
) -> BulkResult:
    """Cancel the stale dates of many series as ``choice`` says, booked ones kept.

    One operation per series: the people booked on its cancelled dates get one
    message each unless ``notify`` is "none".

    The drift of the whole chunk is read in one query; only series with a date
    to cancel are locked, each by
    :func:`~revel_recurring.services.drift.cancel_stale_occurrences`, which
    checks the drift again under its lock. ``kept`` names the booked dates left
    alone (they were not ticked); ``cancelled`` counts the occurrences cancelled.
    """
    moment = now_utc(now)
    result = BulkResult()
    found = _load(series_ids, result)
    drifted = drifted_ids_by_series(found, now=moment)
    wanted = {series.pk: choice.to_cancel(series.pk, drifted[series.pk]) for series in found}
    busy = [series for series in found if wanted[series.pk]]
    result.unchanged.extend(series.pk for series in found if not wanted[series.pk])

    def cancel(series: EventSeries) -> bool:
        done = cancel_stale_occurrences(
            series,
            ids=wanted[series.pk],
            include_booked=choice.ticked,
            notify=notify,
            now=moment,
        )
        result.cancelled += len(done.cancelled)
        if done.kept_booked:
            result.kept[series.pk] = ", ".join(date.display for date in done.kept_booked)
        return bool(done.cancelled)

    return _each(busy, result, cancel)


__all__ = [
    "BulkResult",
    "StaleChoice",
    "cancel_stale_many",
    "delete_many",
    "failure_reason",
    "pause_many",
    "resume_many",
]
