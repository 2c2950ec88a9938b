"""The series row lock every multi-row write takes first, and the row locks after it.

The lock order is documented for hosts in docs/locking.md: the series row first,
then occurrence rows; several series in ascending id order. A service holding a
series lock never *waits* for an occurrence row: a host's transaction may hold
that row and be waiting for the series lock (a view that saved an occurrence and
then calls ``cancel_occurrence``). Occurrence rows are locked with NOWAIT; when
one is taken, the service rolls back its own savepoint (releasing the series
lock), backs off and tries again (:func:`retry_on_lock_conflict`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.db import OperationalError, connections, router
from django.db.models import F, QuerySet
from django.utils.translation import gettext

from ...context import series_locked
from ...exceptions import SeriesBusyError, SeriesNotFoundError
from ...models import EventSeries
from ...transient import is_lock_conflict
from .plumbing import load_rule

T = TypeVar("T")

# Back-off between attempts: 5 ms doubling to 0.4 s, with jitter; about 3 s in all.
LOCK_RETRY_ATTEMPTS = 12
_FIRST_DELAY, _MAX_DELAY = 0.005, 0.4


def lock_series(series_id: int, *, with_rule: bool = False) -> EventSeries:
    """Lock the series row for the current transaction and return its fresh state.

    PostgreSQL: ``SELECT ... FOR NO KEY UPDATE OF`` the series table, with no join:
    after waiting for a lock PostgreSQL re-reads only the locked row, so anything
    joined into this statement would be the version from before the wait. NO KEY:
    it still excludes every other writer of the row, but lets a host's foreign-key
    check on the series (inserting an event of the series) pass without waiting.
    Backends without ``FOR UPDATE OF`` (MariaDB) take a plain row lock; backends
    without row locks (SQLite) get a no-op UPDATE as the first statement, which
    takes SQLite's write lock at once. Must be called inside ``transaction.atomic()``.

    ``with_rule=True`` then loads the recurrence rule in its own query, which in
    READ COMMITTED sees everything committed before the lock was granted. Nothing
    else is read or written: a caller that depends on the excluded dates folds the
    pending ones in next (:func:`~revel_recurring.services.toolbox.exdates.absorb_pending_exdates`).
    Raises :class:`~revel_recurring.exceptions.SeriesNotFoundError` when the series is gone.
    """
    alias = router.db_for_write(EventSeries)
    features = connections[alias].features
    queryset = EventSeries.objects.using(alias).filter(pk=series_id)
    try:
        if features.has_select_for_update_of:
            locked = queryset.select_for_update(
                of=("self",), no_key=features.has_select_for_no_key_update
            ).get()
        elif features.has_select_for_update:
            locked = queryset.select_for_update().get()
        else:
            queryset.update(is_active=F("is_active"))
            locked = queryset.get()
    except EventSeries.DoesNotExist:
        raise SeriesNotFoundError(
            gettext("Series %(series_id)s no longer exists (it was deleted); reload and try again.")
            % {"series_id": series_id}
        ) from None
    if with_rule:
        load_rule(locked, using=alias)
    series_locked(locked)  # the operation being written, if any, watches it
    return locked


def lock_rows(queryset: QuerySet[Any]) -> QuerySet[Any]:
    """``queryset`` locking its rows without waiting (NOWAIT) where the backend can.

    A taken row raises an OperationalError at once, which
    :func:`retry_on_lock_conflict` turns into a retry.
    """
    features = connections[queryset.db].features
    if not features.has_select_for_update:
        return queryset
    options: dict[str, Any] = {"nowait": features.has_select_for_update_nowait}
    if features.has_select_for_update_of:
        options["of"] = ("self",)
    return queryset.select_for_update(**options)


def retry_on_lock_conflict(
    work: Callable[[], T], *, series_ids: Iterable[int], using: str | None = None
) -> T:
    """Run ``work`` (which opens its own ``transaction.atomic()``) until no lock conflict.

    A conflict is a NOWAIT row lock that was taken, a deadlock or a serialization
    failure. ``work``'s atomic block rolls back to its savepoint, which releases
    the locks it took (the series lock included) while keeping whatever the
    host's enclosing transaction did; then it is retried after a short jittered
    back-off. Not retried when the enclosing transaction cannot continue (a
    savepoint-less atomic block). After :data:`LOCK_RETRY_ATTEMPTS` attempts
    :class:`~revel_recurring.exceptions.SeriesBusyError` is raised.
    """
    alias = using or router.db_for_write(EventSeries)
    delay = _FIRST_DELAY
    ids = sorted(set(series_ids))
    for attempt in range(1, LOCK_RETRY_ATTEMPTS + 1):
        try:
            return work()
        except OperationalError as exc:
            connection = connections[alias]
            if not is_lock_conflict(exc) or connection.needs_rollback:
                raise
            if attempt == LOCK_RETRY_ATTEMPTS:
                raise SeriesBusyError(
                    gettext(
                        "Series %(names)s: occurrence rows stayed locked by another "
                        "transaction through %(attempt)s attempts; try again shortly."
                    )
                    % {"names": ", ".join(map(str, ids)), "attempt": attempt}
                ) from exc
        time.sleep(delay * random.uniform(0.5, 1.5))
        delay = min(delay * 2, _MAX_DELAY)
    raise AssertionError("unreachable")  # pragma: no cover


def lock_series_chunk(series_ids: Iterable[int]) -> tuple[list[EventSeries], list[int]]:
    """Lock the free rows of a chunk of series; return them and the ids left out.

    PostgreSQL: one ``SELECT ... FOR NO KEY UPDATE OF`` the series table ``SKIP
    LOCKED``, in ascending id order: a row another transaction holds is left out
    instead of waited for, so workers with overlapping chunks never queue behind
    each other. The ids left out (held elsewhere, or deleted) are for the caller
    to retry. Backends without ``FOR UPDATE OF`` (MariaDB) or row locks (SQLite)
    lock each series with :func:`lock_series`, in ascending id order, waiting;
    only deleted ones are left out there. Must be called inside ``transaction.atomic()``.
    """
    ids = sorted(set(series_ids))
    alias = router.db_for_write(EventSeries)
    features = connections[alias].features
    if features.has_select_for_update_of and features.has_select_for_update_skip_locked:
        locked = list(
            EventSeries.objects.using(alias)
            .filter(pk__in=ids)
            .order_by("pk")
            .select_for_update(
                of=("self",), no_key=features.has_select_for_no_key_update, skip_locked=True
            )
        )
    else:
        locked = []
        for series_id in ids:
            try:
                locked.append(lock_series(series_id))
            except SeriesNotFoundError:
                continue
    held = {series.pk for series in locked}
    return locked, [series_id for series_id in ids if series_id not in held]


def lock_several_series(series_ids: Iterable[int]) -> list[EventSeries]:
    """Lock several series in ascending id order (the one order that cannot deadlock).

    For hosts that write to several series in one transaction (docs/locking.md).
    Waits for each lock like :func:`lock_series` and, like it, only locks. Raises
    :class:`~revel_recurring.exceptions.SeriesNotFoundError` for a series that is gone.
    """
    return [lock_series(series_id) for series_id in sorted(set(series_ids))]
