"""Domain and database errors as DRF exceptions (4xx, or 503 for a retryable one).

Every view of the API passes its exceptions through :func:`translate`, so no
``RecurrenceError`` or Django ``ValidationError`` ever becomes a 500.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, IntegrityError
from rest_framework import exceptions, status

from ..exceptions import (
    GenerationWindowError,
    InvalidPropagationError,
    NotAnOccurrenceError,
    NotCancelledError,
    RecurrenceError,
    SeriesHasBookingsError,
    SeriesNotReadyError,
)
from ..transient import is_transient_db_error
from .serializers import drf_errors


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The series' current state does not allow this."
    default_code = "conflict"


class TryAgain(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "The database is busy; try again in a moment."
    default_code = "try_again"


def translate(exc: Exception) -> Exception:
    """The DRF exception a domain error stands for; anything else unchanged."""
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(drf_errors(exc))
    if isinstance(exc, GenerationWindowError):
        return exceptions.ValidationError({"until": [str(exc)]})
    if isinstance(exc, NotAnOccurrenceError):
        return exceptions.ValidationError({"occurrence": [str(exc)]})
    if isinstance(exc, InvalidPropagationError):
        return exceptions.ValidationError({"non_field_errors": [str(exc)]})
    if isinstance(exc, (SeriesHasBookingsError, NotCancelledError, SeriesNotReadyError)):
        return Conflict(str(exc))
    if isinstance(exc, RecurrenceError):
        return exceptions.ValidationError({"non_field_errors": [str(exc)]})
    if isinstance(exc, IntegrityError):
        # A unique value taken by a concurrent request between validation and insert.
        return Conflict("Another request changed the same data; reload and try again.")
    if isinstance(exc, DatabaseError) and is_transient_db_error(exc):
        return TryAgain()
    return exc
