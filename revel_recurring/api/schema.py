"""The app's own OpenAPI document and Swagger UI, whatever the host configured.

The schema holds the app's endpoints only (a host's other APIs have their own
documents) and splits request and response components, so read-only fields never
appear as required input. Swagger UI loads its assets from
drf-spectacular-sidecar; ``drf_spectacular`` and ``drf_spectacular_sidecar``
must be in ``INSTALLED_APPS`` for its template and static files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from django.templatetags.static import static
from drf_spectacular.extensions import (
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from drf_spectacular.utils import extend_schema as spectacular_extend_schema
from drf_spectacular.views import SCHEMA_KWARGS, SpectacularAPIView, SpectacularSwaggerView
from rest_framework.request import Request
from rest_framework.response import Response

from .. import __version__
from ..models import EnrolmentDate
from ..services.enrolments import host_enrols
from .fields import ACCEPTED_DATETIME_PATTERN, AwareDateTimeField, StrictFieldsMixin
from .serializers.actions import ErrorSerializer
from .serializers.enrolments import EnrolmentStateField
from .serializers.recurrence import RecurrenceCreateSerializer

F = TypeVar("F", bound=Callable[..., Any])


def extend_schema(**kwargs: Any) -> Callable[[F], F]:
    """drf-spectacular's ``extend_schema``, built on its ``AutoSchema`` whatever the host set.

    drf-spectacular builds a decorated view method's schema class on the one the
    method already carries, else on ``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]``, read
    when the decorator runs. A host that never set it (DRF's default is its own
    ``AutoSchema``, another signature) got a schema view that answered 500. Handing the
    method our base first makes the app's document independent of the host's settings.
    """
    decorate = spectacular_extend_schema(**kwargs)

    def decorator(view_method: F) -> F:
        if not isinstance(view_method, type):
            # The same place drf-spectacular reads a previous annotation from
            # (``@action`` keeps its view initkwargs there); an existing one is kept.
            # A view class needs nothing: its own ``schema`` attribute is the base.
            initkwargs = view_method.__dict__.setdefault("kwargs", {})
            initkwargs.setdefault("schema", AutoSchema)
        return decorate(view_method)

    return decorator


def only_recurring_endpoints(endpoints: list[Any], **kwargs: Any) -> list[Any]:
    """drf-spectacular preprocessing hook: keep the views of ``revel_recurring.api``.

    The enrolment routes only where the host books enrolled users (its event model
    has ``book_enrolled``): elsewhere they answer 404, and the document leaves them out.
    """
    enrols = host_enrols()
    return [
        endpoint
        for endpoint in endpoints
        if isinstance(getattr(endpoint[3], "cls", None), type)
        and _is_recurring_view(endpoint[3].cls)
        and (enrols or not _is_enrolment_route(endpoint[3]))
    ]


# issubclass(cls, SeriesViewSet) by name: viewsets.py imports this module for its
# schema decorations, so importing viewsets here would make the two a cycle (and
# the same for the enrolment viewset).
_SERIES_VIEWSET = "revel_recurring.api.viewsets.SeriesViewSet"
_ENROLMENT_VIEWSET = "revel_recurring.api.enrolments.EnrolmentViewSet"
_WEBHOOK_VIEWSETS = (
    "revel_recurring.api.webhooks.WebhookEndpointViewSet",
    "revel_recurring.api.webhooks.WebhookDeliveryViewSet",
)


def _is_series_viewset(cls: type) -> bool:
    return any(f"{base.__module__}.{base.__qualname__}" == _SERIES_VIEWSET for base in cls.__mro__)


def _is_enrolment_viewset(cls: type) -> bool:
    return any(
        f"{base.__module__}.{base.__qualname__}" == _ENROLMENT_VIEWSET for base in cls.__mro__
    )


def _is_webhook_viewset(cls: type) -> bool:
    return any(
        f"{base.__module__}.{base.__qualname__}" in _WEBHOOK_VIEWSETS for base in cls.__mro__
    )


def _is_recurring_view(cls: type) -> bool:
    return _is_series_viewset(cls) or _is_enrolment_viewset(cls) or _is_webhook_viewset(cls)


def _is_enrolment_route(callback: Any) -> bool:
    """The enrolment viewset's routes and the series' ``enrolments/`` action."""
    actions = getattr(callback, "actions", None) or {}
    return _is_enrolment_viewset(callback.cls) or "enrolments" in actions.values()


# The schema states what the server refuses, so a client (and schemathesis' data
# checks) can tell valid input from invalid without trying: these extensions and
# the pagination's parameters are general (every strict body, every aware
# datetime), never written per field.

#: An input instant: what AwareDateTimeField and the date filters accept.
AWARE_DATETIME_INPUT: dict[str, Any] = {
    "type": "string",
    "format": "date-time",
    "pattern": ACCEPTED_DATETIME_PATTERN,
}


class AwareDateTimeFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    """Every AwareDateTimeField: as input, RFC 3339 with an offset in the accepted years."""

    target_class = AwareDateTimeField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer_field(
            self.target, direction, bypass_extensions=True
        )
        if direction == "request":
            schema["pattern"] = ACCEPTED_DATETIME_PATTERN
        return schema


class EnrolmentStateFieldExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    """An enrolled date's ``state``: the component ``EnrolmentDateStateEnum``, by reference.

    Registered here rather than left to drf-spectacular's enum naming, which would
    rename the preview's ``StateEnum`` (another ``state`` property) in every document.
    """

    target_class = EnrolmentStateField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        states = EnrolmentDate.State
        component = ResolvedComponent(  # type: ignore[no-untyped-call]
            name="EnrolmentDateStateEnum",
            type=ResolvedComponent.SCHEMA,
            object="EnrolmentDateStateEnum",
            schema={
                "enum": list(states.values),
                "type": "string",
                "description": "\n".join(
                    f"* `{value}` - {label}" for value, label in states.choices
                ),
            },
        )
        auto_schema.registry.register_on_missing(component)
        return component.ref


class StrictBodyExtension(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """A request body of a StrictFieldsMixin serializer refuses unknown keys:
    ``additionalProperties: false``. Its response shape is left open."""

    target_class = StrictFieldsMixin
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        if direction == "request":
            schema["additionalProperties"] = False
        return schema


class RecurrenceCreateExtension(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """The rule of a new series is one of two bodies: the rule fields (``frequency``,
    ``dtstart`` and ``timezone`` required) or ``{"ical": "..."}`` alone."""

    target_class = RecurrenceCreateSerializer
    match_subclasses = True
    priority = 1  # before StrictBodyExtension, which also matches it

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        if direction != "request":
            return schema
        properties = dict(schema.get("properties", {}))
        ical = properties.pop("ical")
        fields = {
            "type": "object",
            "properties": properties,
            "required": ["frequency", "dtstart", "timezone"],
            "additionalProperties": False,
        }
        text = {
            "type": "object",
            "properties": {"ical": ical},
            "required": ["ical"],
            "additionalProperties": False,
        }
        return {"oneOf": [fields, text], "description": schema.get("description", "")}


def _integers_up_to(bound: int) -> str:
    """A regex of the integers 0 to ``bound`` (>= 0), written without leading zeros."""
    text = str(bound)
    parts = ["[0-9]"] if len(text) > 1 else []
    parts += [rf"[1-9]\d{{{length - 1}}}" for length in range(2, len(text))]
    for i, digit in enumerate(text):
        low = 1 if i == 0 and len(text) > 1 else 0
        rest = len(text) - i - 1
        if int(digit) > low:
            parts.append(f"{text[:i]}[{low}-{int(digit) - 1}]" + (rf"\d{{{rest}}}" if rest else ""))
    parts.append(text)
    return "(?:" + "|".join(parts) + ")"


def _decimal_side(bound: Any, whole: int | None, places: int) -> str:
    """The digits of a decimal string without its sign, at most ``bound`` when it is an
    integer within the whole digits allowed (any size up to them otherwise)."""
    fraction = rf"(?:\.\d{{0,{places}}})?" if places else ""
    only = rf"|\.\d{{1,{places}}}" if places else ""
    digits = rf"\d{{1,{whole}}}" if whole is not None else r"\d+"
    if bound is None or bound != int(bound) or (whole is not None and len(str(int(bound))) > whole):
        return digits + fraction + only
    bound = int(bound)
    zeros = rf"(?:\.0{{0,{places}}})?" if places else ""
    # Leading zeros are read ("007" is 7), so they are offered.
    at_bound = rf"0*{bound}{zeros}"
    if bound == 0:
        return at_bound + (rf"|\.0{{1,{places}}}" if places else "")
    return rf"0*{_integers_up_to(bound - 1)}{fraction}{only}|{at_bound}"


class BoundedDecimalExtension(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    """A decimal sent as a string with a lower or upper bound (a model's
    MinValueValidator / MaxValueValidator, such as a longitude's -180 to 180): its
    pattern states the range, which ``minimum`` / ``maximum`` cannot for a string.
    Integer bounds around zero only; other fields keep drf-spectacular's pattern."""

    target_class = "rest_framework.fields.DecimalField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        field = self.target
        schema: dict[str, Any] = auto_schema._map_serializer_field(
            field, direction, bypass_extensions=True
        )
        low, high = field.min_value, field.max_value
        if (
            direction != "request"
            or schema.get("format") != "decimal"
            or (low is None and high is None)
            or (low is not None and low > 0)
            or (high is not None and high < 0)
        ):
            return schema
        whole, places = field.max_whole_digits, field.decimal_places or 0
        positive = _decimal_side(high, whole, places)
        negative = _decimal_side(-low if low is not None else None, whole, places)
        optional = "?" if field.allow_null else ""
        schema["pattern"] = rf"^(?:{positive}|-(?:{negative})){optional}$"
        return schema


# drf-spectacular's pattern for a DecimalField sent as a string, "^-?\d{0,W}(?:\.\d{0,D})?$",
# also matches "", "-", "." and "-.", which DRF refuses ("A valid number is
# required."); the hook below asks for a digit (and keeps "" where the field is
# nullable, which DRF reads as null).
_DECIMAL_PATTERN = re.compile(
    r"^\^-\?(?:0\?|\\d\{0,(?P<whole>\d+)\})"
    r"\(\?:\\(?P<sep>.)\\d\{0,(?P<places>\d+)\}\)\?\$$"
)


def _decimal_pattern(pattern: str, *, nullable: bool) -> str:
    match = _DECIMAL_PATTERN.match(pattern)
    if match is None:
        return pattern
    sep, places = re.escape(match["sep"]), int(match["places"])
    whole = rf"\d{{1,{match['whole']}}}" if match["whole"] else "0"
    fraction = rf"(?:{sep}\d{{0,{places}}})?|{sep}\d{{1,{places}}}" if places else ""
    number = rf"-?(?:{whole}{fraction})"
    return rf"^(?:{number})?$" if nullable else rf"^{number}$"


def _walk(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("format") == "decimal" and isinstance(node.get("pattern"), str):
            node["pattern"] = _decimal_pattern(node["pattern"], nullable=bool(node.get("nullable")))
        for value in node.values():
            _walk(value)
    elif isinstance(node, list):
        for value in node:
            _walk(value)


def decimal_patterns_need_a_digit(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: decimal strings the server can read."""
    _walk(result)
    return result


def empty_query_values_mean_absent(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: an optional query parameter may be empty.

    The server reads ``?auto_publish=`` or ``?modified_since=`` as not given (the
    browsable API's filter forms send every field, filled or not, and DRF's
    serializers and django-filter do the same), so the schema offers ``""`` beside
    each optional query parameter's own schema.
    """
    for methods in result.get("paths", {}).values():
        for operation in methods.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") != "query" or parameter.get("required"):
                    continue
                schema = parameter.get("schema")
                if isinstance(schema, dict) and "anyOf" not in schema:
                    parameter["schema"] = {"anyOf": [schema, {"type": "string", "enum": [""]}]}
    return result


ERROR = ErrorSerializer
BAD_INPUT = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description=(
        "Bad input: an object keyed by the offending field (nested under `recurrence` or "
        "`template`), each holding a list of messages; `detail` for an unreadable body."
    ),
)
NOT_AUTHENTICATED = OpenApiResponse(ERROR, description="Not authenticated.")
FORBIDDEN = OpenApiResponse(ERROR, description="Visible to you but not editable, or refused.")
NOT_FOUND = OpenApiResponse(ERROR, description="No such series within what you may see.")
CONFLICT = OpenApiResponse(ERROR, description="The series' state does not allow it.")
UNSUPPORTED = OpenApiResponse(ERROR, description="The body is not JSON.")
UNAVAILABLE = OpenApiResponse(ERROR, description="A transient database error; retry.")


def error_responses(*codes: int) -> dict[int, OpenApiResponse]:
    """The documented error answers: ``codes`` plus 401 and 503, which any route may give."""
    table = {
        400: BAD_INPUT,
        401: NOT_AUTHENTICATED,
        403: FORBIDDEN,
        404: NOT_FOUND,
        409: CONFLICT,
        415: UNSUPPORTED,
        503: UNAVAILABLE,
    }
    return {code: table[code] for code in (*codes, 401, 503)}


READ_ERRORS = error_responses(403, 404)
WRITE_ERRORS = error_responses(400, 403, 404, 409, 415)

OCCURRENCE_PARAMETERS = [
    OpenApiParameter(
        "date_from_after", AWARE_DATETIME_INPUT, description="Starts at or after (with offset)."
    ),
    OpenApiParameter(
        "date_from_before", AWARE_DATETIME_INPUT, description="Starts before (with offset)."
    ),
    OpenApiParameter("status", OpenApiTypes.STR, description="The host's status value."),
    OpenApiParameter("is_modified", OpenApiTypes.BOOL),
    OpenApiParameter("is_future", OpenApiTypes.BOOL, description="Ends (or starts) now or later."),
    OpenApiParameter(
        "modified_since",
        AWARE_DATETIME_INPUT,
        description=(
            "Only occurrences changed at or after this instant, plus tombstones of those "
            "cancelled or deleted since (`cancelled` / `deleted` true, original slot in "
            "`recurrence_id`). Tombstones ignore `status` and `is_modified`."
        ),
    ),
    OpenApiParameter(
        "beyond_window",
        OpenApiTypes.BOOL,
        description=(
            "Also list the rule's dates beyond the generation window that have no row "
            "yet, in start order with the rows: `materialized` false, `id`, `status` and "
            "`occurrence_index` null; at most REVEL_RECURRING_BEYOND_WINDOW_DATES of "
            "them, none for a paused series. Only the date filters apply to them; with "
            "`status`, `is_modified` or `modified_since` there are none. "
            "`materialize-date/` makes one a row."
        ),
    ),
]


SCHEMA_SETTINGS = {
    "TITLE": "revel-recurring API",
    "DESCRIPTION": (
        "Recurring event series: a rule, a template event and its materialized "
        "occurrences. Every datetime carries a UTC offset on input and is UTC on output."
    ),
    "VERSION": __version__,
    "COMPONENT_SPLIT_REQUEST": True,
    # The operation ids and the tag as they were while series/ was the only resource
    # ("api_recurring_series_list", tag "api"): drf-spectacular would strip the
    # common prefix of several viewsets' paths and rename every operation.
    "SCHEMA_PATH_PREFIX": "/",
    "PREPROCESSING_HOOKS": ["revel_recurring.api.schema.only_recurring_endpoints"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "revel_recurring.api.schema.decimal_patterns_need_a_digit",
        "revel_recurring.api.schema.empty_query_values_mean_absent",
    ],
}


class RecurringSchemaView(SpectacularAPIView):
    """OpenAPI 3 for the app's endpoints (YAML, or JSON with ``?format=json``)."""

    schema = AutoSchema()
    custom_settings = SCHEMA_SETTINGS

    # drf-spectacular annotates its own ``get`` when it is imported, on the host's
    # DEFAULT_SCHEMA_CLASS: DRF's AutoSchema on a quickstart host, which made
    # ``manage.py spectacular`` (the whole site's document) crash on this view.
    # The same annotation again, on drf-spectacular's AutoSchema.
    @extend_schema(**SCHEMA_KWARGS)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)  # type: ignore[no-any-return,no-untyped-call]


class RecurringSwaggerView(SpectacularSwaggerView):
    """Swagger UI over :class:`RecurringSchemaView`, with the sidecar's local assets."""

    schema = AutoSchema()
    title = "revel-recurring API"

    # An HTML page, in no schema; annotated again on drf-spectacular's AutoSchema
    # for the reason given on RecurringSchemaView.get.
    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)  # type: ignore[no-any-return,no-untyped-call]

    @staticmethod
    def _swagger_ui_resource(filename: str) -> str:
        return static(f"drf_spectacular_sidecar/swagger-ui-dist/{filename}")

    @staticmethod
    def _swagger_ui_favicon() -> str:
        return static("drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png")
