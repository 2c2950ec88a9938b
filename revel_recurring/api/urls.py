"""Mount with ``path("api/recurring/", include("revel_recurring.api.urls"))``.

Routes: ``series/`` and its actions (router basename ``series``), ``enrolments/``
(basename ``enrolment``; a 404 on a site without the ``book_enrolled`` hook),
``webhooks/`` and ``webhook-deliveries/`` (basenames ``webhook``, ``webhook-delivery``), the OpenAPI
schema at ``schema/`` and Swagger UI at ``docs/`` (assets from
drf-spectacular-sidecar, served as static files: no CDN).
"""

from __future__ import annotations

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from .enrolments import EnrolmentViewSet
from .schema import RecurringSchemaView, RecurringSwaggerView
from .viewsets import SeriesViewSet
from .webhooks import WebhookDeliveryViewSet, WebhookEndpointViewSet

app_name = "revel_recurring"

# No ".json" format suffixes: they forbid dots in the id, so "/series/0.5/" would be
# Django's HTML 404 instead of the API's JSON one. ``?format=`` still works.
router = DefaultRouter()
router.include_format_suffixes = False
router.register("series", SeriesViewSet, basename="series")
router.register("enrolments", EnrolmentViewSet, basename="enrolment")
router.register("webhooks", WebhookEndpointViewSet, basename="webhook")
router.register("webhook-deliveries", WebhookDeliveryViewSet, basename="webhook-delivery")

urlpatterns = [
    path("schema/", RecurringSchemaView.as_view(), name="schema"),
    path("docs/", RecurringSwaggerView.as_view(url_name="revel_recurring:schema"), name="docs"),
    path("", include(router.urls)),
]
