"""The record of a queued admin action: opened by the admin, counted by its chunks.

The admin opens a :class:`~revel_recurring.models.QueuedAction` before it queues
an action over a large selection (:func:`open_queued_action`) and drops it again
when the queue refused the message (:func:`drop_queued_action`); each chunk task
adds what it did (:func:`record_queued_outcome`): one UPDATE of the counters and
one INSERT of the failures, neither waiting for another chunk, and the chunk that
completes the count stamps ``finished_at``. Records older than
``REVEL_RECURRING_QUEUED_ACTION_DAYS`` are removed a batch at a time
(:func:`purge_queued_actions`) by the daily pass and by each new fan-out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import F

from ..conf import recurring_settings
from ..models import EventSeries, QueuedAction, QueuedActionFailure
from .toolbox.plumbing import now_utc

#: Records removed per DELETE by :func:`purge_queued_actions`.
PURGE_BATCH = 500


def open_queued_action(
    action: str, *, user: Any, series_count: int, now: dt.datetime | None = None
) -> QueuedAction:
    """The record of ``action`` (a ``QueuedAction.Action``) queued by ``user`` over the series.

    ``user`` is the host's user (any key type) or None; its key and username are
    kept as text.
    """
    authenticated = user is not None and getattr(user, "is_authenticated", False)
    return QueuedAction.objects.create(
        action=action,
        user_pk=str(user.pk) if authenticated else "",
        user_name=user.get_username() if authenticated else "",
        series_count=series_count,
        queued_at=now_utc(now),
    )


def drop_queued_action(record_id: int) -> None:
    """Forget the record of an action the queue did not take (nothing of it started)."""
    QueuedAction.objects.filter(pk=record_id).delete()


def record_queued_outcome(
    record_id: int | None,
    *,
    done: int,
    failed: Mapping[int, str] | None = None,
    now: dt.datetime | None = None,
) -> None:
    """Add one chunk's outcome to the record ``record_id`` (nothing when it is None or gone).

    ``done`` counts the series the chunk finished with (changed or with nothing to
    do), ``failed`` maps each series it could not do to the reason. The failed
    series are named as they are now (a series gone since is named by its id).
    The record is finished (``finished_at``) once every series is counted.
    """
    if record_id is None:
        return
    failed = dict(failed or {})
    moment = now_utc(now)
    with transaction.atomic():
        updated = QueuedAction.objects.filter(pk=record_id).update(
            done=F("done") + done, failed=F("failed") + len(failed)
        )
        if not updated:
            return  # removed meanwhile (older than the retention): nothing to count
        if failed:
            names = dict(EventSeries.objects.filter(pk__in=list(failed)).values_list("pk", "name"))
            QueuedActionFailure.objects.bulk_create(
                QueuedActionFailure(
                    queued_action_id=record_id,
                    series_pk=pk,
                    series_name=names.get(pk, f"#{pk}")[:255],
                    reason=reason,
                )
                for pk, reason in sorted(failed.items())
            )
        QueuedAction.objects.filter(
            pk=record_id,
            finished_at__isnull=True,
            series_count__lte=F("done") + F("failed"),
        ).update(finished_at=moment)


def purge_queued_actions(*, now: dt.datetime | None = None) -> int:
    """Remove the records queued more than ``QUEUED_ACTION_DAYS`` ago; how many went.

    A batch of at most :data:`PURGE_BATCH` records (with their failures) per
    DELETE, so no statement grows with the number of old records.
    """
    cutoff = now_utc(now) - dt.timedelta(days=recurring_settings.QUEUED_ACTION_DAYS)
    removed = 0
    while True:
        ids = list(
            QueuedAction.objects.filter(queued_at__lt=cutoff)
            .order_by("pk")
            .values_list("pk", flat=True)[:PURGE_BATCH]
        )
        if not ids:
            return removed
        with transaction.atomic():
            QueuedActionFailure.objects.filter(queued_action_id__in=ids).delete()
            QueuedAction.objects.filter(pk__in=ids).delete()
        removed += len(ids)
        if len(ids) < PURGE_BATCH:
            return removed


__all__ = [
    "PURGE_BATCH",
    "drop_queued_action",
    "open_queued_action",
    "purge_queued_actions",
    "record_queued_outcome",
]
