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
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from celery import shared_task
from celery.signals import task_postrun, task_prerun
from django.apps import apps
from django.utils import timezone
from kombu.exceptions import OperationalError

from .conf import recurring_settings
from .context import acting, routine_generation
from .exceptions import QueueUnavailableError
from .host_model import parse_event_pks
from .instants import parse_aware_instant
from .models import EventSeries, QueuedAction, get_event_model
from .notices.delivery import operations_with_unsent, send_operation_notices
from .services.bulk import (
    BulkResult,
    StaleChoice,
    cancel_stale_many,
    delete_many,
    failure_reason,
    pause_many,
    resume_many,
)
from .services.generation import generate_series_events
from .services.generation.chunks import generate_series_chunk_events
from .services.generation.dispatch import dispatch_due_chunks, dispatch_due_series
from .services.history import purge_history
from .services.queued_actions import purge_queued_actions, record_queued_outcome
from .services.toolbox.enrolled import UNTOLD_PER_CALL, tell_untold, untold_series
from .services.toolbox.parking import park_failed_series
from .services.zone_data import apply_zone_data_unattended
from .transient import is_transient_db_error
from .webhook_sending import retry_delay as webhook_retry_delay
from .webhook_sending import send_delivery, stalled_deliveries

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


# Who acts in a task: the one place the tasks name themselves to the series'
# history. Every task of this app runs inside ``acting(face="task")``; one that
# runs a queued admin action (``queued_action``) acts for the user who queued it,
# its records sharing the action's batch id. Connected here, with the tasks: a
# worker imports this module before it runs one of them.
_acting_scopes: dict[str, Any] = {}


def queued_batch_id(queued_action: int) -> uuid.UUID:
    """The batch id of the records a queued admin action writes (its id as a UUID)."""
    return uuid.UUID(int=int(queued_action))


def _acting_for(queued_action: Any) -> dict[str, Any]:
    if queued_action is None:
        return {}
    found = QueuedAction.objects.filter(pk=queued_action).values_list("user_pk", "user_name")
    user = found.first() or ("", "")
    return {"actor": user[0], "actor_name": user[1], "batch_id": queued_batch_id(queued_action)}


def act_as_task(
    sender: Any = None, task_id: str | None = None, kwargs: Any = None, **extra: Any
) -> None:
    """``task_prerun``: this app's tasks act through the face "task"."""
    if not str(getattr(sender, "name", "")).startswith("revel_recurring.") or task_id is None:
        return
    scope = acting(face="task", **_acting_for((kwargs or {}).get("queued_action")))
    scope.__enter__()
    _acting_scopes[task_id] = scope


def stop_acting(task_id: str | None = None, **extra: Any) -> None:
    """``task_postrun``: the task's block ends."""
    scope = _acting_scopes.pop(task_id or "", None)
    if scope is not None:
        scope.__exit__(None, None, None)


task_prerun.connect(act_as_task, weak=False, dispatch_uid="revel_recurring.tasks.acting")
task_postrun.connect(stop_acting, weak=False, dispatch_uid="revel_recurring.tasks.acting_done")


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
    (``skipped``: active series disarmed because they have no template). It also
    removes the records of queued admin actions older than
    ``REVEL_RECURRING_QUEUED_ACTION_DAYS`` and the series' history older than
    ``REVEL_RECURRING_HISTORY_DAYS`` (``purge_history``), queues again the messages to
    booked people that are still unsent an hour after their operation, the
    messages still owed to enrolled users an hour after their dates were booked,
    and the webhook deliveries still pending an hour after they were due.
    First, per ``REVEL_RECURRING_ZONE_DATA_AUTO_APPLY``, it moves the dates of the
    series whose zone has new time-zone data (``services.zone_data``).
    """
    moment = _parse_now(now)
    purge_queued_actions(now=moment)
    purge_history(now=moment)
    queue_unsent_people_notices(now=moment or timezone.now())
    queue_untold_enrolments(now=moment or timezone.now())
    queue_stalled_webhooks(now=moment or timezone.now())
    # Series whose zone has new time-zone data are held until their dates move:
    # the pass moves them first when REVEL_RECURRING_ZONE_DATA_AUTO_APPLY says so.
    apply_zone_data_unattended(now=moment)
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
def generate_series_chunk(
    series_ids: list[int], now: str | None = None, queued_action: int | None = None
) -> dict[str, Any]:
    """Materialize the windows of a chunk of series in one transaction.

    See :func:`~revel_recurring.services.generation.chunks.generate_series_chunk_events`:
    series held elsewhere are retried in this run, and when the chunk fails it
    falls back to one transaction per series. A series whose own run then fails
    with a transient database error is handed to ``generate_series`` (and its
    retry policy); any other failure is logged and listed under ``"failed"``.
    Returns ``{"series", "chunked", "retried", "fallen_back", "created",
    "failed": [ids], "requeued": [ids]}``. With ``queued_action`` (the admin's
    *Generate now* over a large selection) the chunk's outcome is added to that
    record; a requeued series adds its own when its task ends.
    """
    result = generate_series_chunk_events(series_ids, now=_parse_now(now))
    # The chunk committed: the messages it owes its enrolled users are written apart.
    if result.owed:
        queue_enrolled_messages(series_ids, now=now)
    requeued = []
    for series_id, exc in sorted(result.failures.items()):
        if is_transient_db_error(exc):
            generate_series.delay(series_id, now=now, queued_action=queued_action)
            requeued.append(series_id)
    failed = {pk: failure_reason(exc) for pk, exc in result.failures.items() if pk not in requeued}
    record_queued_outcome(
        queued_action, done=result.series - len(failed) - len(requeued), failed=failed
    )
    summary = result.as_dict()
    summary["failed"] = [pk for pk in summary["failed"] if pk not in requeued]
    summary["requeued"] = requeued
    return summary


@shared_task(bind=True, name="revel_recurring.generate_series")
def generate_series(
    self: Any, series_id: int, now: str | None = None, queued_action: int | None = None
) -> dict[str, Any]:
    """Materialize the window of one series; retries transient database errors only.

    ``now`` (ISO 8601, aware) overrides the current time, as in ``generate_all_series``.
    Any other failure parks the series (``parked_at``, ``parked_reason``) before the
    task fails, so the next daily pass leaves it alone until it is unparked.
    ``queued_action`` is the record of the admin action that requeued it from a
    chunk: it counts the series once, done or failed, when no retry follows.
    """
    try:
        # The id goes straight to the locked read: no separate load of the series.
        # The beat's run of one series is routine (its dates in a summary record);
        # a queued admin action's is a person's, with a record of its own.
        with routine_generation() if queued_action is None else nullcontext():
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
        record_queued_outcome(queued_action, done=0, failed={series_id: failure_reason(exc)})
        raise
    record_queued_outcome(queued_action, done=1)
    return {"series": series_id, "created": len(created)}


# An admin action over more series than REVEL_RECURRING_ADMIN_INLINE_LIMIT sends one
# fan_out_series_chunks message (whatever the size of the selection); that task sends
# the chunks: generate_series_chunk above for "Generate now", the tasks below for the
# others. The admin computed the ids: the selected series its user may change.


def _recorded(
    result: BulkResult, queued_action: int | None, *, missing_done: bool = False
) -> dict[str, Any]:
    """The chunk's JSON result, its outcome added to the record ``queued_action`` first."""
    done, failed = result.outcome(missing_done=missing_done)
    record_queued_outcome(queued_action, done=done, failed=failed)
    return result.as_dict()


@shared_task(name="revel_recurring.pause_series_chunk")
def pause_series_chunk(
    series_ids: list[int], now: str | None = None, queued_action: int | None = None
) -> dict[str, Any]:
    """Pause each series of ``series_ids``; see :func:`~revel_recurring.services.bulk.pause_many`.

    Returns ``{"changed", "unchanged", "kept", "failed", "missing", "cancelled"}``
    (:class:`~revel_recurring.services.bulk.BulkResult`), as the other admin chunks do.
    Every admin chunk adds its outcome to the record ``queued_action`` (the id of
    a :class:`~revel_recurring.models.QueuedAction`) when it is given.
    """
    return _recorded(pause_many(series_ids, now=_parse_now(now)), queued_action)


@shared_task(name="revel_recurring.resume_series_chunk")
def resume_series_chunk(
    series_ids: list[int], now: str | None = None, queued_action: int | None = None
) -> dict[str, Any]:
    """Resume (and unpark) each series of ``series_ids``; see ``resume_many``."""
    return _recorded(resume_many(series_ids, now=_parse_now(now)), queued_action)


@shared_task(name="revel_recurring.delete_series_chunk")
def delete_series_chunk(
    series_ids: list[int], user_id: str | None = None, queued_action: int | None = None
) -> dict[str, Any]:
    """Delete each series of ``series_ids`` through ``delete_series``; booked ones are kept.

    ``kept`` names each series left because its dates hold bookings. With
    ``user_id`` (the admin user who confirmed) and ``django.contrib.admin``
    installed, each deleted series gets its deletion entry in the admin's
    history, as the admin's own *delete selected* writes before it deletes.
    """
    names = dict(EventSeries.objects.filter(pk__in=series_ids).values_list("pk", "name"))
    result = delete_many(series_ids)
    if user_id is not None and result.changed and apps.is_installed("django.contrib.admin"):
        from django.contrib.admin.models import DELETION, LogEntry

        gone = [EventSeries(pk=pk, name=names[pk]) for pk in result.changed]
        LogEntry.objects.log_actions(user_id=user_id, queryset=gone, action_flag=DELETION)
    # A series gone before its turn is as the deletion wanted it.
    return _recorded(result, queued_action, missing_done=True)


@shared_task(name="revel_recurring.cancel_stale_chunk")
def cancel_stale_chunk(
    series_ids: list[int],
    ticked: list[str] | None = None,
    listed: list[str] | None = None,
    complete: list[int] | None = None,
    rest: bool = True,
    now: str | None = None,
    queued_action: int | None = None,
    notify: str | None = None,
) -> dict[str, Any]:
    """Cancel the stale dates of each series as the admin's confirmation page said.

    ``notify`` ("all", "none"; None: the site's default) says whether the people
    booked on the cancelled dates are told, as the page's box said.

    ``ticked`` and ``listed`` are host event ids as text (any primary key type),
    ``complete`` the series whose every stale date the page listed, ``rest``
    whether the dates it did not list go too; see
    :class:`~revel_recurring.services.bulk.StaleChoice`. Booked dates nobody
    ticked are kept and named in ``kept``.
    """
    model = get_event_model()
    choice = StaleChoice(
        ticked=frozenset(parse_event_pks(model, ticked or ())),
        listed=frozenset(parse_event_pks(model, listed or ())),
        complete=frozenset(complete or ()),
        rest=rest,
    )
    return _recorded(
        cancel_stale_many(series_ids, choice=choice, notify=notify, now=_parse_now(now)),
        queued_action,
    )


def _admin_chunk_tasks() -> dict[str, Any]:
    tasks = (
        generate_series_chunk,
        pause_series_chunk,
        resume_series_chunk,
        delete_series_chunk,
        cancel_stale_chunk,
    )
    return {task.name: task for task in tasks}


def ids_repr(series_ids: list[int]) -> str:
    """How a message names its ids in logs and monitors: a count and the bounds, not the list."""
    if not series_ids:
        return "[]"
    return f"[{len(series_ids)} series {min(series_ids)}..{max(series_ids)}]"


@shared_task(name="revel_recurring.fan_out_series_chunks")
def fan_out_series_chunks(
    task: str,
    series_ids: list[int],
    options: dict[str, Any] | None = None,
    lead: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Send ``task`` once per chunk of ``REVEL_RECURRING_GENERATION_CHUNK_SIZE`` series.

    What the admin sends for an action over more series than the inline limit, so
    that its request publishes one message however large the selection; the
    chunks go from here, as the daily pass's go from ``generate_all_series``.
    ``task`` is the name of one of the admin's chunk tasks (``generate_series_chunk``,
    ``pause_series_chunk``, ``resume_series_chunk``, ``delete_series_chunk``,
    ``cancel_stale_chunk``), ``options`` the keyword arguments of each chunk.
    ``lead`` (``{"series_ids": [...], "options": {...}}``) is one more chunk, sent
    first with options of its own: the series the *Cancel stale dates* page
    decided on date by date, which travel in the same message as the rest so that
    the request publishes one message or none. Returns ``{"task", "series", "chunks"}``.
    """
    target = _admin_chunk_tasks().get(task)
    if target is None:
        raise ValueError(f"{task!r} is not one of the admin's chunk tasks")
    # The records of earlier queued actions past REVEL_RECURRING_QUEUED_ACTION_DAYS.
    purge_queued_actions()
    leading = list((lead or {}).get("series_ids") or [])
    if leading:
        send_series_chunk(target, leading, **((lead or {}).get("options") or {}))
    ids = list(series_ids)
    size = recurring_settings.GENERATION_CHUNK_SIZE
    chunks = [ids[start : start + size] for start in range(0, len(ids), size)]
    for chunk in chunks:
        send_series_chunk(target, chunk, **(options or {}))
    return {
        "task": task,
        "series": len(ids) + len(leading),
        "chunks": len(chunks) + bool(leading),
    }


def send_series_chunk(task: Any, series_ids: list[int], **options: Any) -> None:
    """Send one chunk task over ``series_ids`` (its ids named by count and bounds in logs).

    Raises :class:`~revel_recurring.exceptions.QueueUnavailableError` when the
    broker cannot be reached (after Celery's own publish retries).
    """
    with _publishing(task.name, series_ids):
        task.apply_async((series_ids,), options, argsrepr=f"({ids_repr(series_ids)},)")


def send_fan_out(
    task: Any, series_ids: list[int], *, lead: dict[str, Any] | None = None, **options: Any
) -> None:
    """Send one ``fan_out_series_chunks`` message: ``task`` over ``series_ids``, in chunks.

    ``lead`` is a first chunk with options of its own (see
    :func:`fan_out_series_chunks`). One message, so either all of it is queued or,
    with the broker unreachable, none of it
    (:class:`~revel_recurring.exceptions.QueueUnavailableError`).
    """
    fan_out: Any = fan_out_series_chunks  # celery-types does not know argsrepr
    arguments: tuple[Any, ...] = (task.name, series_ids, options)
    if lead is not None:
        arguments = (*arguments, lead)
    with _publishing(task.name, series_ids):
        fan_out.apply_async(arguments, argsrepr=f"({task.name!r}, {ids_repr(series_ids)})")


@contextmanager
def _publishing(name: str, series_ids: list[int]) -> Iterator[None]:
    """Turns kombu's "broker unreachable" into :class:`QueueUnavailableError`, logged."""
    try:
        yield
    except OperationalError as exc:
        # The broker's address stays in the log; the person is told what was not
        # queued (the admin), never the infrastructure's details.
        logger.error("Could not queue %s for %s: %s", name, ids_repr(series_ids), exc)
        raise QueueUnavailableError(str(exc)) from exc


#: How long after its operation an unsent message waits before the daily pass queues it again.
UNSENT_GRACE = dt.timedelta(hours=1)


# acks_late: the message leaves the broker only when the task ended, so a worker that
# dies while sending (killed, out of memory, the machine gone) leaves it to be delivered
# again (on Redis, after the transport's visibility_timeout) instead of losing it until the
# daily pass. Running it twice is safe: a notice is sent under its row lock, once.
@shared_task(
    bind=True,
    name="revel_recurring.send_people_notices",
    acks_late=True,
    reject_on_worker_lost=True,
)
def send_people_notices(self: Any, operation_id: str) -> dict[str, int]:
    """Send the messages one operation owes the people booked on its dates.

    Queued after the operation commits (by the ``series_dates_changed`` receiver).
    Each message is sent once (``PersonNotice.sent_at``); when the mail server or
    the host's delivery refused any, the task is retried with the generation
    backoff up to ``REVEL_RECURRING_PEOPLE_MAX_RETRIES`` times, and what is still
    unsent then is queued again by the next daily pass. The broker's message is
    acknowledged when the task ends (``acks_late``), so a worker lost in the middle
    leaves it to run again. Returns ``{"sent", "already", "refused"}``.
    """
    counts = send_operation_notices(operation_id)
    retries = self.request.retries
    if counts["refused"] and retries < recurring_settings.PEOPLE_MAX_RETRIES:
        raise self.retry(
            countdown=retry_delay(retries), max_retries=recurring_settings.PEOPLE_MAX_RETRIES
        )
    return counts


def queue_people_notices(operation_id: Any) -> None:
    """Queue ``send_people_notices`` for an operation; a broker that refuses is logged only.

    The notices are committed and stay unsent, so the daily pass queues them again.
    """
    try:
        send_people_notices.delay(str(operation_id))
    except OperationalError:
        logger.warning(
            "revel_recurring could not queue the messages of operation %s; "
            "the daily pass will queue them",
            operation_id,
        )


def queue_unsent_people_notices(*, now: dt.datetime) -> int:
    """Queue again every operation with messages unsent for over an hour; how many."""
    operations = operations_with_unsent(older_than=UNSENT_GRACE, now=now)
    for operation_id in operations:
        queue_people_notices(operation_id)
    return len(operations)


@shared_task(name="revel_recurring.tell_enrolled_users", acks_late=True, reject_on_worker_lost=True)
def tell_enrolled_users(series_ids: list[int], now: str | None = None) -> dict[str, int]:
    """Write the messages the daily pass owes the enrolled users of ``series_ids``.

    Queued by ``generate_series_chunk`` once its chunk committed, and by the daily
    pass for dates still owed an hour on. One message per user and series, naming
    the dates booked for them and those that could not be (see
    :func:`~revel_recurring.services.toolbox.enrolled.tell_untold`); their sending is
    queued after this task's commit. Returns ``{"told": n}`` (dates).
    """
    moment = _parse_now(now) or timezone.now()
    told = 0
    while True:
        step = tell_untold(series_ids, now=moment)
        told += step
        if step < UNTOLD_PER_CALL:
            return {"told": told}


def queue_enrolled_messages(series_ids: list[int], *, now: str | None = None) -> None:
    """Queue ``tell_enrolled_users``; a broker that refuses is logged (the daily pass retries).

    ``now`` (ISO 8601, aware) is the pass's clock, passed on as the other tasks pass it.
    """
    try:
        tell_enrolled_users.delay(list(series_ids), now=now)
    except OperationalError:
        logger.warning(
            "revel_recurring could not queue the messages to enrolled users of %s series; "
            "the daily pass will queue them",
            len(series_ids),
        )


def queue_untold_enrolments(*, now: dt.datetime) -> int:
    """Queue the messages still owed to enrolled users an hour on, 500 series a task."""
    series_ids = untold_series(older_than=UNSENT_GRACE, now=now)
    for first in range(0, len(series_ids), 500):
        queue_enrolled_messages(series_ids[first : first + 500], now=now.isoformat())
    return len(series_ids)


# Acknowledged when it ends and rejected back to the queue when its worker is lost:
# a worker that dies before the POST leaves the delivery to the next run, which
# sends it once (the row lock and the pending status keep a second send out).
@shared_task(
    bind=True,
    name="revel_recurring.deliver_webhook",
    acks_late=True,
    reject_on_worker_lost=True,
)
def deliver_webhook(self: Any, delivery_id: int) -> str:
    """POST one webhook delivery, signed; retried with backoff while the endpoint refuses.

    Queued after the operation (or a resend) committed. Each retry waits
    ``REVEL_RECURRING_WEBHOOK_RETRY_BACKOFF`` seconds doubled per earlier retry (at
    most ``..._BACKOFF_MAX``); after ``REVEL_RECURRING_WEBHOOK_MAX_ATTEMPTS`` the
    delivery is marked failed with its last error. Returns the outcome
    ("delivered", "failed", "skipped" when not pending, "busy" when another worker
    holds it).
    """
    retries = self.request.retries
    outcome = send_delivery(delivery_id, attempt=retries + 1)
    if outcome == "retry":
        raise self.retry(
            countdown=webhook_retry_delay(retries),
            max_retries=recurring_settings.WEBHOOK_MAX_ATTEMPTS - 1,
        )
    return outcome


def queue_webhook_deliveries(delivery_ids: list[Any]) -> None:
    """Queue ``deliver_webhook`` for each delivery; a broker that refuses is logged only.

    The deliveries stay pending; the daily pass queues them again.
    """
    for delivery_id in delivery_ids:
        try:
            deliver_webhook.delay(delivery_id)
        except OperationalError:
            logger.warning(
                "revel_recurring could not queue webhook delivery %s; the daily pass will",
                delivery_id,
            )


def queue_stalled_webhooks(*, now: dt.datetime) -> int:
    """Queue again the webhook deliveries pending an hour after they were due; how many."""
    ids = stalled_deliveries(older_than=UNSENT_GRACE, now=now)
    queue_webhook_deliveries(ids)
    return len(ids)
