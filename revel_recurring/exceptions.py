"""Domain errors. Adapters (API, admin, tasks, commands) translate them for people."""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist


class RecurrenceError(Exception):
    """Base class of every error revel-recurring raises on purpose."""


class GenerationWindowError(RecurrenceError, ValueError):
    """An explicit generation horizon lies beyond what the settings allow."""


class NotAnOccurrenceError(RecurrenceError, ValueError):
    """An instant is neither an occurrence of the rule nor a materialized occurrence."""


class SeriesHasBookingsError(RecurrenceError):
    """A series cannot be deleted because some of its occurrences have bookings."""


class InvalidPropagationError(RecurrenceError, ValueError):
    """A template change names fields or a scope that cannot be propagated."""


class SeriesNotReadyError(RecurrenceError):
    """The series lacks a recurrence rule or a template event."""


class NotCancelledError(RecurrenceError, ValueError):
    """An occurrence to restore is not cancelled (no exdate, not in the cancelled status)."""


class SeriesNotFoundError(RecurrenceError, ObjectDoesNotExist):
    """The series no longer exists (deleted, possibly while this call waited for its lock).

    Also an ``ObjectDoesNotExist``, which callers that caught Django's lookup error
    may keep catching.
    """


class SeriesBusyError(RecurrenceError):
    """Occurrence rows a service needs stayed locked by another transaction; try again.

    Raised after the service gave up its own locks and retried a few times (see
    docs/locking.md); transient, so the Celery task retries it.
    """


class InvalidArgumentError(RecurrenceError, TypeError, ValueError):
    """A service got an argument of the wrong type or form (e.g. a naive ``now``)."""
