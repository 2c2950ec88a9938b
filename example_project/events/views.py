"""Two public pages: the series list and a series page (the digest's link target)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from revel_recurring.models import EventSeries

from .models import Event


def series_list(request: HttpRequest) -> HttpResponse:
    templates = (
        Event.objects.templates()
        .filter(series__is_active=True)
        .listed()
        .select_related("series", "organization")
        .order_by("series__name")
    )
    return render(request, "events/series_list.html", {"templates": templates})


def series_detail(request: HttpRequest, slug: str) -> HttpResponse:
    series = get_object_or_404(EventSeries, slug=slug)
    template = get_object_or_404(Event.objects.templates(), series=series)
    occurrences = (
        Event.objects.occurrences()
        .filter(series=series)
        .exclude(status=Event.Status.DRAFT)
        .order_by("start")
    )
    context = {"series": series, "template": template, "occurrences": occurrences}
    return render(request, "events/series_detail.html", context)
