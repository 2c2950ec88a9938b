"""Domain errors. Adapters (API, admin, tasks, commands) translate them for people.

Every error carries ``field``, the input it is about (``NON_FIELD_ERRORS`` when it
is about none), and ``message_dict`` in the shape of ``ValidationError.message_dict``,
so a serializer or a form can show it next to the right input without a mapping
of its own: ``raise serializers.ValidationError(exc.message_dict)`` or
``form.add_error(None, exc.as_validation_error())``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, ObjectDoesNotExist, ValidationError


class RecurrenceError(Exception):
    """Base class of every error revel-recurring raises on purpose."""

    #: The input this kind of error is usually about; ``field=`` overrides it.
    default_field: str = NON_FIELD_ERRORS

    def __init__(
        self,
        message: str = "",
        *,
        field: str | None = None,
        errors: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.field: str = field or self.default_field
        self._errors = {key: list(values) for key, values in (errors or {}).items()}

    @property
    def message_dict(self) -> dict[str, list[str]]:
        """``{field: [message, ...]}``, like ``ValidationError.message_dict``."""
        return dict(self._errors) or {self.field: [str(self)]}

    def as_validation_error(self) -> ValidationError:
        """The same messages as a ``ValidationError`` keyed by field."""
        return ValidationError(self.message_dict)


class GenerationWindowError(RecurrenceError, ValueError):
    """An explicit generation horizon lies beyond what the settings allow."""

    default_field = "until"


class NotAnOccurrenceError(RecurrenceError, ValueError):
    """An instant is neither an occurrence of the rule nor a materialized occurrence."""

    default_field = "occurrence"


class HasBookingsError(RecurrenceError):
    """Something would cancel or delete booked occurrences the caller did not include.

    ``booked`` lists them (``BookedDate``: ``id``, ``start``, ``display``), in start
    order; the message names their dates in the rule's zone.
    """

    def __init__(
        self,
        message: str = "",
        *,
        booked: Sequence[Any] = (),
        field: str | None = None,
        errors: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        super().__init__(message, field=field, errors=errors)
        self.booked = list(booked)


class SeriesHasBookingsError(HasBookingsError):
    """A series cannot be deleted because some of its occurrences have bookings."""


class OccurrenceHasBookingsError(HasBookingsError):
    """A booked occurrence is not cancelled unless the caller includes booked dates.

    Raised by ``cancel_occurrence`` without ``include_booked=True``.
    """

    default_field = "include_booked"


class InvalidPropagationError(RecurrenceError, ValueError):
    """A template change names fields or a scope that cannot be propagated.

    ``field`` is ``"propagate"`` for a bad scope; bad field names are keyed by
    their own name in ``message_dict``.
    """

    default_field = "changes"


class SeriesNotReadyError(RecurrenceError):
    """The series lacks a recurrence rule or a template event."""


class NotCancelledError(RecurrenceError, ValueError):
    """An occurrence to restore is not cancelled (no exdate, not in the cancelled status)."""

    default_field = "occurrence"


class DuplicateUniqueValueError(RecurrenceError):
    """Occurrences built from a template would repeat a unique field's value.

    Raised by generation before anything is inserted; ``field`` names the field,
    and the message names the hook to override (``prepare_occurrence``).
    """


class GenerationTooLargeError(RecurrenceError):
    """One generation run would write more than ``REVEL_RECURRING_MAX_GENERATION_BYTES``.

    Raised before anything is inserted; ``field`` names the template's largest
    field (the one to shorten), the message the sizes and the way out (a shorter
    text or a narrower generation window). Not transient: the daily pass parks
    the series with this message instead of failing on it every day.
    """


class TemplateProtectedError(RecurrenceError):
    """The template of a series cannot be deleted on its own.

    Use ``delete_series`` to delete the whole series, or
    ``revel_recurring.services.templates.replace_template`` to give it a new one.
    """


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


class PlanOutdatedError(RecurrenceError):
    """A change plan no longer matches the series: something changed since it was computed.

    ``plan`` is the fresh plan (a ``RecurrencePlan``) computed under the lock, for
    the person to review and apply instead. Nothing was written.
    """

    default_field = "plan_hash"

    def __init__(
        self,
        message: str = "",
        *,
        plan: Any = None,
        field: str | None = None,
        errors: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        super().__init__(message, field=field, errors=errors)
        self.plan = plan


class QueueUnavailableError(RecurrenceError):
    """Work could not be handed to Celery: its broker did not answer. Nothing was sent.

    Raised by the helpers that queue an admin action (``tasks.send_fan_out``,
    ``tasks.send_series_chunk``) in place of kombu's ``OperationalError``, so an
    adapter can tell the person what was not queued instead of failing with a 500.
    Each queued action sends exactly one message, so nothing of it was started.
    """


class InvalidArgumentError(RecurrenceError, TypeError, ValueError):
    """A service got an argument of the wrong type or form (e.g. a naive ``now``)."""


class EnrolmentsUnavailableError(RecurrenceError):
    """The host books no enrolled users: its event model has no ``book_enrolled`` hook."""


class EnrolmentDateError(RecurrenceError, ValueError):
    """A date cannot be skipped or taken back: not of the series, past, or not enrolled."""

    default_field = "occurrence"


def messages_by_key(exc: RecurrenceError | ValidationError) -> dict[str, list[str]]:
    """``exc``'s messages keyed by input (``NON_FIELD_ERRORS`` for the whole).

    One shape for a domain error and a Django ``ValidationError`` alike, for the
    faces that show them (admin forms, management commands).
    """
    if isinstance(exc, RecurrenceError) or hasattr(exc, "error_dict"):
        return exc.message_dict
    return {NON_FIELD_ERRORS: exc.messages}


class RevertRefusedError(RecurrenceError):
    """An operation cannot be reverted: its kind cannot be undone, it was reverted
    already, or something it depends on changed since (a booking on a date the revert
    would cancel or remove, a date edited by hand, a later operation). Nothing was
    written; the message names why.
    """

    default_field = "operation"
