"""A school's public calendar feed, built the way docs/howto/feeds.md shows for hosts."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from revel_recurring.ical import calendar_feed
from revel_recurring.ical.responses import calendar_response
from revel_recurring.models import EventSeries

from .models import Lesson, School


@require_GET
def school_feed(request: HttpRequest, slug: str) -> HttpResponseBase:
    school = get_object_or_404(School, slug=slug)
    templates = Lesson.objects.templates().filter(school=school)
    series = (
        EventSeries.objects.filter(pk__in=templates.values("series_id"))
        .select_related("recurrence_rule")
        .order_by("name", "pk")
    )
    return calendar_response(
        request, calendar_feed(list(series), name=school.name), filename=f"{school.slug}.ics"
    )
