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
from collections.abc import Iterator

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
