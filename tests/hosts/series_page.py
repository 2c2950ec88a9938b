"""A test host's public series page, as docs/howto/feeds.md shows a site's: the series'
name and where a split series goes on (revel_recurring/series_halves.html).

At ``/series/<slug>/``, the address the default adapter's ``get_series_url`` gives.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from revel_recurring.describe import describe_rule
from revel_recurring.halves import series_halves
from revel_recurring.models import EventSeries


@require_GET
def series_page(request: HttpRequest, slug: str) -> HttpResponse:
    series = get_object_or_404(EventSeries.objects.select_related("recurrence_rule"), slug=slug)
    rule = series.recurrence_rule
    halves = render_to_string(
        "revel_recurring/series_halves.html", {"halves": series_halves(series)}, request=request
    )
    return HttpResponse(
        format_html(
            "<!doctype html><title>{}</title><h1>{}</h1><p>{}</p>{}",
            series.name,
            series.name,
            describe_rule(rule) if rule is not None else "",
            mark_safe(halves),  # rendered by the template, escaped there
        )
    )
