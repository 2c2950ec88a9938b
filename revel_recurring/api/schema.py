"""The app's own OpenAPI document and Swagger UI, whatever the host configured.

The schema holds the app's endpoints only (a host's other APIs have their own
documents) and splits request and response components, so read-only fields never
appear as required input. Swagger UI loads its assets from
drf-spectacular-sidecar; ``drf_spectacular`` and ``drf_spectacular_sidecar``
must be in ``INSTALLED_APPS`` for its template and static files.
"""

from __future__ import annotations

from typing import Any

from django.templatetags.static import static
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from .. import __version__


def only_recurring_endpoints(endpoints: list[Any], **kwargs: Any) -> list[Any]:
    """drf-spectacular preprocessing hook: keep the views of ``revel_recurring.api``."""
    from .viewsets import SeriesViewSet

    return [
        endpoint
        for endpoint in endpoints
        if isinstance(getattr(endpoint[3], "cls", None), type)
        and issubclass(endpoint[3].cls, SeriesViewSet)
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

    custom_settings = SCHEMA_SETTINGS


class RecurringSwaggerView(SpectacularSwaggerView):
    """Swagger UI over :class:`RecurringSchemaView`, with the sidecar's local assets."""

    title = "revel-recurring API"

    @staticmethod
    def _swagger_ui_resource(filename: str) -> str:
        return static(f"drf_spectacular_sidecar/swagger-ui-dist/{filename}")

    @staticmethod
    def _swagger_ui_favicon() -> str:
        return static("drf_spectacular_sidecar/swagger-ui-dist/favicon-32x32.png")
