"""The app's own OpenAPI document and Swagger UI, whatever the host configured.

The schema holds the app's endpoints only (a host's other APIs have their own
documents) and splits request and response components, so read-only fields never
appear as required input. Swagger UI loads its assets from
drf-spectacular-sidecar; ``drf_spectacular`` and ``drf_spectacular_sidecar``
must be in ``INSTALLED_APPS`` for its template and static files.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.templatetags.static import static
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from drf_spectacular.utils import extend_schema as spectacular_extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from .. import __version__
from .serializers import ErrorSerializer

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
    """drf-spectacular preprocessing hook: keep the views of ``revel_recurring.api``."""
    return [
        endpoint
        for endpoint in endpoints
        if isinstance(getattr(endpoint[3], "cls", None), type)
        and _is_series_viewset(endpoint[3].cls)
    ]


# issubclass(cls, SeriesViewSet) by name: viewsets.py imports this module for its
# schema decorations, so importing viewsets here would make the two a cycle.
_SERIES_VIEWSET = "revel_recurring.api.viewsets.SeriesViewSet"


def _is_series_viewset(cls: type) -> bool:
    return any(f"{base.__module__}.{base.__qualname__}" == _SERIES_VIEWSET for base in cls.__mro__)


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
        "date_from_after", OpenApiTypes.DATETIME, description="Starts at or after (with offset)."
    ),
    OpenApiParameter(
        "date_from_before", OpenApiTypes.DATETIME, description="Starts before (with offset)."
    ),
    OpenApiParameter("status", OpenApiTypes.STR, description="The host's status value."),
    OpenApiParameter("is_modified", OpenApiTypes.BOOL),
    OpenApiParameter("is_future", OpenApiTypes.BOOL, description="Ends (or starts) now or later."),
    OpenApiParameter(
        "modified_since",
        OpenApiTypes.DATETIME,
        description=(
            "Only occurrences changed at or after this instant, plus tombstones of those "
            "cancelled or deleted since (`cancelled` / `deleted` true, original slot in "
            "`recurrence_id`). Tombstones ignore `status` and `is_modified`."
        ),
    ),
    OpenApiParameter("page", OpenApiTypes.INT),
    OpenApiParameter("page_size", OpenApiTypes.INT, description="At most 500."),
]


SCHEMA_SETTINGS = {
    "TITLE": "revel-recurring API",
    "DESCRIPTION": (
        "Recurring event series: a rule, a template event and its materialized "
        "occurrences. Every datetime carries a UTC offset on input and is UTC on output."
    ),
    "VERSION": __version__,
    "COMPONENT_SPLIT_REQUEST": True,
    "PREPROCESSING_HOOKS": ["revel_recurring.api.schema.only_recurring_endpoints"],
}


class RecurringSchemaView(SpectacularAPIView):
    """OpenAPI 3 for the app's endpoints (YAML, or JSON with ``?format=json``)."""

    schema = AutoSchema()
    custom_settings = SCHEMA_SETTINGS


class RecurringSwaggerView(SpectacularSwaggerView):
    """Swagger UI over :class:`RecurringSchemaView`, with the sidecar's local assets."""

    schema = AutoSchema()
    title = "revel-recurring API"

    @staticmethod
    def _swagger_ui_resource(filename: str) -> str:
        return static(f"drf_spectacular_sidecar/swagger-ui-dist/{filename}")

    @staticmethod
    def _swagger_ui_favicon() -> str:
        return static("drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png")
