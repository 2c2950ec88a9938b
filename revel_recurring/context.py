"""Flags for the current context, shared by the services and the receivers.

A service marks what it is doing (propagating a template, deleting a series,
swapping a template, generating a batch) and the receivers on the host's event
model read the mark and step aside. Each flag is a ``ContextVar``, so it holds
for the current thread or asyncio task only: other requests keep the normal
behaviour while a service runs. Receivers are never disconnected for the same
reason. This module imports nothing of the package, so both sides can import it.
"""

from __future__ import annotations

import contextlib
import contextvars
import uuid
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, cast

T = TypeVar("T")

# Set by update_template (and by hosts doing system writes): saves in this context
# never mark occurrences modified.
_tracking_suspended: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "revel_recurring_tracking_suspended", default=False
)
# Series being deleted by delete_series: their occurrences' slots need no exdate,
# and recording one would lock and write the very row about to disappear.
_series_being_deleted: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "revel_recurring_series_being_deleted", default=frozenset()
)
# Series whose template a service replaces right now (replace_template).
_template_replacements: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "revel_recurring_template_replacements", default=frozenset()
)
# A generation or propagation batch: one digest replaces per-event notifications.
_notifications_suppressed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "revel_recurring_suppressed", default=False
)


@contextlib.contextmanager
def suspend_modification_tracking() -> Iterator[None]:
    """Saves inside this block never set ``is_modified`` (propagation, imports, fixes).

    Used by ``update_template``; a host's own system writes (a nightly sync, a data
    migration) can use it too, so that they do not count as organiser edits.
    """
    token = _tracking_suspended.set(True)
    try:
        yield
    finally:
        _tracking_suspended.reset(token)


def modification_tracking_suspended() -> bool:
    """True inside :func:`suspend_modification_tracking`."""
    return _tracking_suspended.get()


@contextlib.contextmanager
def deleting_series(series_id: int) -> Iterator[None]:
    """Occurrences of ``series_id`` deleted inside this block record no exdate."""
    token = _series_being_deleted.set(_series_being_deleted.get() | {series_id})
    try:
        yield
    finally:
        _series_being_deleted.reset(token)


def series_deletion_in_progress(series_id: int) -> bool:
    """True inside ``deleting_series(series_id)`` (``delete_series`` is removing it)."""
    return series_id in _series_being_deleted.get()


@contextlib.contextmanager
def replacing_template(series_id: int) -> Iterator[None]:
    """The template of ``series_id`` may be deleted inside this block (replace_template)."""
    token = _template_replacements.set(_template_replacements.get() | {series_id})
    try:
        yield
    finally:
        _template_replacements.reset(token)


def template_replacement_in_progress(series_id: int) -> bool:
    """True inside ``replacing_template(series_id)``."""
    return series_id in _template_replacements.get()


@contextlib.contextmanager
def suppress_event_notifications() -> Iterator[None]:
    """Mark the current context as a batch whose per-event notifications are replaced.

    Receivers are never disconnected (that would silence other threads too); host
    receivers ask :func:`event_notifications_suppressed` and return early.
    """
    token = _notifications_suppressed.set(True)
    try:
        yield
    finally:
        _notifications_suppressed.reset(token)


def event_notifications_suppressed() -> bool:
    """True inside :func:`suppress_event_notifications`; hosts check it in receivers."""
    return _notifications_suppressed.get()


# A feed being built: values its hooks compute once for the whole build.
_feed_memo: contextvars.ContextVar[dict[Hashable, Any] | None] = contextvars.ContextVar(
    "revel_recurring_feed_memo", default=None
)


@contextlib.contextmanager
def building_feed() -> Iterator[None]:
    """A feed build: :func:`once_per_feed` remembers values until the block ends."""
    token = _feed_memo.set({})
    try:
        yield
    finally:
        _feed_memo.reset(token)


def once_per_feed(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()`` once per feed build for ``key``; outside a build, every time.

    For what an iCal hook asks per event but depends on the series only (its
    URL through ``reverse()``): key it by the series' primary key, e.g.
    ``("series-url", series.pk)``. Nothing outlives the build.
    """
    memo = _feed_memo.get()
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return cast("T", memo[key])


# Who is acting and through which face: read by the services when they record an
# operation (the series' history). Set by the API, the admin, the commands and
# the tasks; a service called from code directly records face "code".
@dataclass(frozen=True)
class Acting:
    """Who made a change and through what: ``face`` is "api", "admin", "command",
    "task" or "code"; ``actor`` the user's primary key as text ("" for nobody);
    ``batch_id`` the id shared by the records of one queued bulk action."""

    actor: str = ""
    actor_name: str = ""
    face: str = "code"
    batch_id: uuid.UUID | None = None


_NOBODY = Acting()
_acting: contextvars.ContextVar[Acting | None] = contextvars.ContextVar(
    "revel_recurring_acting", default=None
)


@contextlib.contextmanager
def acting(
    user: Any = None,
    *,
    face: str,
    batch_id: uuid.UUID | None = None,
    actor: str | None = None,
    actor_name: str | None = None,
) -> Iterator[Acting]:
    """Changes made inside this block are recorded as made by ``user`` through ``face``.

    ``user`` may be a user object (its primary key and ``get_username()`` are
    read), None or an anonymous user; ``actor``/``actor_name`` give them as text
    instead (a task that runs for the user who queued it). ``batch_id`` groups the
    records of one queued bulk action; nested blocks keep the outer one's batch.
    """
    outer = current_acting()
    key, name = actor or "", actor_name or ""
    if user is not None and getattr(user, "is_authenticated", False):
        key = key or str(user.pk)
        getter = getattr(user, "get_username", None)
        name = name or (str(getter()) if callable(getter) else str(user))
    token = _acting.set(
        Acting(actor=key, actor_name=name, face=face, batch_id=batch_id or outer.batch_id)
    )
    try:
        yield current_acting()
    finally:
        _acting.reset(token)


def current_acting() -> Acting:
    """Who is acting in this context, and through what (face "code" when nobody said)."""
    return _acting.get() or _NOBODY


# The operation record being written (its primary key): writers inside the
# operation (the occurrence change log) point their rows to it.
_record_id: contextvars.ContextVar[Callable[[], uuid.UUID | None] | None] = contextvars.ContextVar(
    "revel_recurring_record_id", default=None
)


@contextlib.contextmanager
def recording(record_id: Callable[[], uuid.UUID | None]) -> Iterator[None]:
    """Rows written inside this block belong to the operation record ``record_id()``
    names (asked when a row is written: a record may be opened inside the block)."""
    token = _record_id.set(record_id)
    try:
        yield
    finally:
        _record_id.reset(token)


def current_record_id() -> uuid.UUID | None:
    """The primary key of the operation record being written here, or None."""
    found = _record_id.get()
    return None if found is None else found()


# The daily pass generating series one by one after its chunk: their dates go
# into the chunk's summary record, never into a record each.
_routine: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "revel_recurring_routine_generation", default=None
)


@contextlib.contextmanager
def routine_generation() -> Iterator[list[Any]]:
    """Generation runs inside this block are the daily pass's: the list yielded
    holds the chunk's summary record once one is written (shared by the runs)."""
    holder: list[Any] = []
    token = _routine.set(holder)
    try:
        yield holder
    finally:
        _routine.reset(token)


def routine_summary() -> list[Any] | None:
    """Inside :func:`routine_generation`, its holder of the summary record; else None."""
    return _routine.get()


@contextlib.contextmanager
def in_batch(batch_id: uuid.UUID | None = None) -> Iterator[Acting]:
    """Changes made inside this block share a batch id (one bulk call: one record per
    series, grouped); who acts and through what stay as they are. An outer batch wins."""
    outer = current_acting()
    token = _acting.set(
        Acting(
            actor=outer.actor,
            actor_name=outer.actor_name,
            face=outer.face,
            batch_id=outer.batch_id or batch_id or uuid.uuid4(),
        )
    )
    try:
        yield current_acting()
    finally:
        _acting.reset(token)


# The operation being written listens for the series its steps lock: the first
# one locked becomes its own (a verb whose steps take the lock themselves).
_lock_listener: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "revel_recurring_lock_listener", default=None
)


@contextlib.contextmanager
def listening_for_locks(listener: Callable[[Any], None]) -> Iterator[None]:
    """``listener(series)`` is called with each series locked inside this block."""
    token = _lock_listener.set(listener)
    try:
        yield
    finally:
        _lock_listener.reset(token)


def series_locked(series: Any) -> None:
    """Called by the series lock with the series it locked (see :func:`listening_for_locks`)."""
    listener = _lock_listener.get()
    if listener is not None:
        listener(series)
