"""Two public pages: the series list and a series page (the digest's link target)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from revel_recurring.models import EventSeries

from .models import Event


def series_list(request: HttpRequest) -> HttpResponse:
    templates = (
        Event.objects.filter(is_template=True, series__is_active=True)
        .exclude(visibility__in=[Event.Visibility.PRIVATE, Event.Visibility.UNLISTED])
        .select_related("series", "organization")
        .order_by("series__name")
    )
    return render(request, "events/series_list.html", {"templates": templates})


def series_detail(request: HttpRequest, slug: str) -> HttpResponse:
    series = get_object_or_404(EventSeries, slug=slug)
    template = get_object_or_404(Event, series=series, is_template=True)
    occurrences = (
        Event.objects.filter(series=series, is_template=False)
        .exclude(status=Event.Status.DRAFT)
        .order_by("start")
    )
    context = {"series": series, "template": template, "occurrences": occurrences}
    return render(request, "events/series_detail.html", context)
