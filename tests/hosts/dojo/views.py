"""The dojo's public calendar: every series, built the way docs/howto/feeds.md shows."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.views.decorators.http import require_GET

from revel_recurring.ical import calendar_feed
from revel_recurring.ical.responses import calendar_response
from revel_recurring.models import EventSeries


@require_GET
def dojo_feed(request: HttpRequest) -> HttpResponseBase:
    series = EventSeries.objects.select_related("recurrence_rule").order_by("name", "pk")
    return calendar_response(request, calendar_feed(list(series), name="Dojo"), filename="dojo.ics")
