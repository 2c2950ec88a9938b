"""The series list, a series page (the digest's link target) and a user's notifications."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from revel_recurring.models import EventSeries

from .models import Event, Notification


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


@login_required
@require_http_methods(["GET", "POST"])
def notification_list(request: HttpRequest) -> HttpResponse:
    """The signed-in user's notifications, newest first; POST marks them all read."""
    mine = Notification.objects.filter(recipient=request.user)
    if request.method == "POST":
        mine.filter(is_read=False).update(is_read=True)
        return redirect("events:notifications")
    notifications = mine.select_related("digest__series")[:100]
    context = {"notifications": notifications, "unread": mine.filter(is_read=False).count()}
    return render(request, "events/notification_list.html", context)
