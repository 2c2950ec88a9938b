"""Domain and database errors as DRF exceptions (4xx, or 503 for a retryable one).

The one place a service error gets its status and body: the series viewset's
``handle_exception`` passes every exception through :func:`translate`, so no
``RecurrenceError`` or Django ``ValidationError`` ever becomes a 500, and no action
catches one itself. A ``ValidationError`` is keyed where the action's body sent
the value: each action names its keys beside its input serializer
(:mod:`revel_recurring.api.bodies`), with one of the ``*_keys`` functions below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, IntegrityError
from django.utils.translation import gettext, gettext_lazy
from rest_framework import exceptions, status
from rest_framework.exceptions import ErrorDetail
from rest_framework.settings import api_settings

from ..exceptions import (
    DuplicateUniqueValueError,
    GenerationTooLargeError,
    HasBookingsError,
    NotCancelledError,
    PlanOutdatedError,
    RecurrenceError,
    SeriesBusyError,
    SeriesNotFoundError,
    SeriesNotReadyError,
    TemplateProtectedError,
)
from ..holiday_settings import HOLIDAY_FIELDS
from ..models import RULE_FIELDS
from ..services.plans import EXTRA_DATES_KEY, HOLIDAYS_KEY
from ..services.revert import RevertPlan
from ..transient import is_transient_db_error
from .plan_keys import PlanRequest
from .plans import plan_data
from .reverts import revert_plan_data

#: The error code of a message from a rule of the series (``validators/``, the
#: services) that carries no code of its own: input of the right shape that the
#: domain refuses, which no schema can state. Codes show in ``exc.get_codes()``
#: for hosts whose exception handler renders them.
RULE_ERROR_CODE = "rule"


def _details(errors: list[DjangoValidationError]) -> list[str]:
    return [
        ErrorDetail(message, code=error.code or RULE_ERROR_CODE)
        for error in errors
        for message in error.messages
    ]


def drf_errors(exc: DjangoValidationError) -> dict[str, Any] | list[str]:
    """A Django ValidationError as DRF's error body (``__all__`` -> non_field_errors).

    Each message keeps its Django code (``max_length`` from the host's model, ...);
    one without a code gets :data:`RULE_ERROR_CODE`.
    """
    if hasattr(exc, "error_dict"):
        return {
            (api_settings.NON_FIELD_ERRORS_KEY if key == NON_FIELD_ERRORS else key): _details(
                errors
            )
            for key, errors in exc.error_dict.items()
        }
    return _details(exc.error_list)


# Series fields a create error may name; every other non-rule key is the template's.
_SERIES_KEYS = frozenset({"generation_window_weeks", "auto_publish", "is_active", "slug"})

# The services key holiday errors by model field; the body sends them in an object.
_HOLIDAY_KEYS = {name: key for key, name in HOLIDAY_FIELDS.items()}


def _nest_schedule_error(nested: dict[str, Any], key: str, messages: Any) -> bool:
    """Put an error of a rule field under ``recurrence`` and one of a holiday setting
    under ``holidays`` (``holiday_country`` as ``holidays.country``); False for any
    other key."""
    if key in RULE_FIELDS:
        nested.setdefault("recurrence", {})[key] = messages
    elif key in _HOLIDAY_KEYS or key == HOLIDAYS_KEY:
        inner = _HOLIDAY_KEYS.get(key, api_settings.NON_FIELD_ERRORS_KEY)
        nested.setdefault(HOLIDAYS_KEY, {})[inner] = messages
    else:
        return False
    return True


_CONFLICTS = (
    # Deleting a series or cancelling an occurrence that holds bookings.
    HasBookingsError,
    NotCancelledError,
    SeriesNotReadyError,
    TemplateProtectedError,
    DuplicateUniqueValueError,
)


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = gettext_lazy("The series' current state does not allow this.")
    default_code = "conflict"


class PlanOutdated(Conflict):
    """409 of a change plan applied too late: ``detail`` and the fresh ``plan`` to show,
    or ``plan`` null when the change no longer applies (``PlanOutdatedSerializer``)."""

    default_code = "plan_outdated"

    def __init__(self, message: str, plan: Any) -> None:
        super().__init__(message)
        # Set after __init__, which would turn the plan's numbers and flags into
        # strings: DRF's handler answers a dict detail as the body itself.
        self.detail = {"detail": self.detail, "plan": plan}


class TryAgain(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = gettext_lazy("The database is busy; try again in a moment.")
    default_code = "try_again"


def hash_mismatch() -> ErrorDetail:
    """The 400 of a hash that was not answered for the request it came with."""
    return ErrorDetail(
        gettext(
            "This hash does not match this request: it is mistyped, or it is the hash of "
            "another change (or of another series). Ask for the plan of this change and "
            "send its `hash` with the same body."
        ),
        code=RULE_ERROR_CODE,
    )


#: How an action keys a service's ``ValidationError``: the error and the action's
#: validated body (``{}`` when the body was never read).
ErrorKeys = Callable[[DjangoValidationError, Mapping[str, Any]], Any]


def translate(
    exc: Exception,
    *,
    keys: ErrorKeys | None = None,
    body: Mapping[str, Any] | None = None,
    plan: PlanRequest | None = None,
) -> Exception:
    """The DRF exception a domain error stands for; anything else unchanged.

    A Django ``ValidationError`` is a 400 keyed by ``keys`` (the action's, from the
    validated ``body``; by field as the service keyed it without one). Bad input
    (every other ``RecurrenceError``) is a 400 keyed by the error's own
    ``message_dict``; a state that forbids the request a 409 (a plan applied after
    the series changed: with the fresh plan, or ``plan`` null when the change no
    longer applies); a series gone while the request waited for its lock a 404; a
    busy or transient database a 503.

    ``plan`` is the request an apply's plan answers: the fresh plan of a late apply
    gets the ``hash`` handed out for it (:mod:`.plan_keys`).
    """
    if isinstance(exc, DjangoValidationError):
        keyed = keys(exc, body or {}) if keys is not None else drf_errors(exc)
        return exceptions.ValidationError(keyed)
    if isinstance(exc, PlanOutdatedError) and isinstance(exc.plan, RevertPlan):
        return PlanOutdated(str(exc), revert_plan_data(exc.plan))
    if isinstance(exc, PlanOutdatedError):
        fresh = plan_data(exc.plan, plan) if exc.plan is not None else None
        return PlanOutdated(str(exc), fresh)
    if isinstance(exc, SeriesNotFoundError):
        return exceptions.NotFound(str(exc))
    if isinstance(exc, _CONFLICTS):
        return Conflict(str(exc))
    if isinstance(exc, SeriesBusyError):
        return TryAgain(str(exc))
    if isinstance(exc, GenerationTooLargeError):
        # Its field is the template's (the copied value too large for the window),
        # keyed where a create or a template PATCH sends it.
        return exceptions.ValidationError({"template": exc.message_dict})
    if isinstance(exc, RecurrenceError):
        return exceptions.ValidationError(drf_errors(exc.as_validation_error()))
    if isinstance(exc, IntegrityError):
        # A unique value taken by a concurrent request between validation and insert.
        return Conflict(gettext("Another request changed the same data; reload and try again."))
    if isinstance(exc, DatabaseError) and is_transient_db_error(exc):
        return TryAgain()
    return exc


def create_errors(exc: DjangoValidationError) -> dict[str, Any]:
    """A create error of the service, keyed where the client sent the value:
    rule fields under ``recurrence``, event fields under ``template``."""
    flat = drf_errors(exc)
    if not isinstance(flat, dict):
        return {"non_field_errors": flat}
    nested: dict[str, Any] = {}
    for key, messages in flat.items():
        if key == EXTRA_DATES_KEY:
            nested.setdefault("recurrence", {})[key] = messages
            continue
        if _nest_schedule_error(nested, key, messages):
            continue
        if key in _SERIES_KEYS:
            nested[key] = messages
        else:
            nested.setdefault("template", {})[key] = messages
    return nested


def update_errors(exc: DjangoValidationError) -> dict[str, Any] | list[str]:
    """An error of ``update_series`` or a change plan: rule fields and the extra dates
    under ``recurrence``, holiday settings under ``holidays`` (``country``, ``policy``, ...)."""
    flat = drf_errors(exc)
    if not isinstance(flat, dict):
        return flat
    nested: dict[str, Any] = {}
    for key, messages in flat.items():
        if key == EXTRA_DATES_KEY:
            nested.setdefault("recurrence", {})[key] = messages
        elif not _nest_schedule_error(nested, key, messages):
            nested[key] = messages
    return nested


#: The keys of a split's body the service may name at the top level.
_SPLIT_KEYS = frozenset({"at", "name", api_settings.NON_FIELD_ERRORS_KEY})


def split_errors(exc: DjangoValidationError) -> dict[str, Any]:
    """An error of ``plan_split`` / ``split_series``, keyed where the client sent the
    value: ``at`` and ``name`` as they are, rule fields under ``recurrence``, holiday
    settings under ``holidays``, the template's fields under ``template``."""
    flat = drf_errors(exc)
    if not isinstance(flat, dict):
        return {api_settings.NON_FIELD_ERRORS_KEY: flat}
    nested: dict[str, Any] = {}
    for key, messages in flat.items():
        if key in _SPLIT_KEYS:
            nested[key] = messages
        elif _nest_schedule_error(nested, key, messages):
            continue
        else:
            nested.setdefault("template", {})[key] = messages
    return nested


def ical_create_errors(exc: DjangoValidationError) -> dict[str, Any]:
    """A create error for a rule sent as ``recurrence.ical``: rule errors under
    ``recurrence.ical`` (that is what the client sent), the rest as usual."""
    nested = create_errors(exc)
    if "recurrence" in nested:
        rule = dict(nested["recurrence"])
        if EXTRA_DATES_KEY in rule:
            # The text's RDATE lines are what became the extra dates.
            rule["RDATE"] = rule.pop(EXTRA_DATES_KEY)
        nested["recurrence"] = {"ical": rule}
    return nested


def field_keys(exc: DjangoValidationError, body: Mapping[str, Any]) -> Any:
    """Keys of an action whose body is flat: by field, as the service keyed them."""
    return drf_errors(exc)


def create_keys(exc: DjangoValidationError, body: Mapping[str, Any]) -> Any:
    """Keys of a create: :func:`create_errors`, or :func:`ical_create_errors` for a
    rule sent as ``recurrence.ical``."""
    return ical_create_errors(exc) if body.get("rule_from_ical") else create_errors(exc)


def update_keys(exc: DjangoValidationError, body: Mapping[str, Any]) -> Any:
    """Keys of a PATCH and of the plan actions: :func:`update_errors`."""
    return update_errors(exc)


def split_keys(exc: DjangoValidationError, body: Mapping[str, Any]) -> Any:
    """Keys of the split actions: :func:`split_errors`."""
    return split_errors(exc)
