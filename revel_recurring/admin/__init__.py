"""The admin of revel-recurring: series with their rule, actions and upcoming dates.

Registered on Django's default admin site when ``django.contrib.admin`` is
installed (autodiscovery imports this module), with the read-only records of
queued bulk actions (``QueuedActionAdmin``) and of who was told of a change of
their dates (``SeriesOperationAdmin``), and, on a site whose event model books
enrolled users (``book_enrolled``), the enrolments (``EnrolmentAdmin``), and the
webhook endpoints with their delivery log (``WebhookEndpointAdmin``,
``WebhookDeliveryAdmin``). A site
with its own AdminSite registers ``EventSeriesAdmin`` (and the others) there
itself, the enrolments through ``register_enrolments(site)``.
"""

from __future__ import annotations

from django.contrib import admin

from ..models import EventSeries, QueuedAction, SeriesOperation, WebhookDelivery, WebhookEndpoint
from .enrolments import EnrolmentAdmin, register_enrolments
from .notices import SeriesOperationAdmin
from .queued import QueuedActionAdmin
from .series import EventSeriesAdmin
from .webhooks import WebhookDeliveryAdmin, WebhookEndpointAdmin

admin.site.register(EventSeries, EventSeriesAdmin)
admin.site.register(QueuedAction, QueuedActionAdmin)
admin.site.register(SeriesOperation, SeriesOperationAdmin)
admin.site.register(WebhookEndpoint, WebhookEndpointAdmin)
admin.site.register(WebhookDelivery, WebhookDeliveryAdmin)
register_enrolments(admin.site)

__all__ = [
    "EnrolmentAdmin",
    "EventSeriesAdmin",
    "QueuedActionAdmin",
    "SeriesOperationAdmin",
    "WebhookDeliveryAdmin",
    "WebhookEndpointAdmin",
    "register_enrolments",
]
