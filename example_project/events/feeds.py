"""Calendar feeds (iCalendar) of series and organisations, for calendar apps.

Open URLs serve what anyone may see: a series whose template is public (or
unlisted: reachable by its link), an organisation's public series. Everything
else goes through ``/calendar/<key>/...``, the signed-in user's secret key
(``CalendarToken``), and shows what the API would show that user
(``get_visible_series``). Anything not visible is a 404, never a 403: a feed URL
must not tell a stranger that a members-only series exists.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from revel_recurring.adapter import get_adapter
from revel_recurring.ical import CalendarFeed, calendar_feed, feed_revision, series_feed
from revel_recurring.ical.responses import deleted_series_response, revision_response
from revel_recurring.models import DeletedSeries, EventSeries

from .models import CalendarToken, Event, Organization

#: Template visibilities whose series feed is served without a key.
OPEN_SERIES = (Event.Visibility.PUBLIC, Event.Visibility.UNLISTED)


def _series_with_template(condition: Q) -> QuerySet[EventSeries]:
    templates = Event.objects.templates().filter(condition)
    return (
        EventSeries.objects.filter(pk__in=templates.values("series_id"))
        .select_related("recurrence_rule")
        .order_by("name", "pk")
    )


def _user_of(key: str) -> Any:
    token = CalendarToken.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        raise Http404("No such calendar.")
    return token.user


def _series_response(request: HttpRequest, series: EventSeries) -> HttpResponseBase:
    # The validators come from one aggregate query; the body is built only for a
    # client whose copy is not current.
    revision = feed_revision(EventSeries.objects.filter(pk=series.pk), name=series.name)
    return revision_response(
        request, revision, lambda: series_feed(series), filename=f"{series.slug}.ics"
    )


def _not_older_than(stamp: dt.datetime, last_modified: dt.datetime | None) -> dt.datetime:
    return stamp if last_modified is None else max(stamp, last_modified)


def _organization_response(
    request: HttpRequest, organization: Organization, series: QuerySet[EventSeries]
) -> HttpResponseBase:
    # A series that left the feed moves none of the rows still listed: the
    # organisation's own stamp does (events/signals.py), so Last-Modified moves
    # as well as the ETag and an If-Modified-Since poll is not answered 304.
    stamp = organization.feed_changed_at
    revision = feed_revision(series, name=organization.name)
    revision = dataclasses.replace(
        revision, last_modified=_not_older_than(stamp, revision.last_modified)
    )

    def build() -> CalendarFeed:
        feed = calendar_feed(list(series), name=organization.name)
        return dataclasses.replace(feed, last_modified=_not_older_than(stamp, feed.last_modified))

    return revision_response(request, revision, build, filename=f"{organization.slug}.ics")


@require_GET
def open_series_feed(request: HttpRequest, slug: str) -> HttpResponseBase:
    found = _series_with_template(Q(visibility__in=OPEN_SERIES)).filter(slug=slug).first()
    if found is None:
        # An open series that was deleted: its feed empties subscribers' calendars.
        deleted = DeletedSeries.latest(slug=slug, feed_was_open=True)
        if deleted is None:
            raise Http404("No such public series.")
        return deleted_series_response(request, deleted, filename=f"{slug}.ics")
    return _series_response(request, found)


@require_GET
def open_organization_feed(request: HttpRequest, slug: str) -> HttpResponseBase:
    organization = get_object_or_404(Organization, slug=slug)
    public = Q(organization=organization, visibility=Event.Visibility.PUBLIC)
    return _organization_response(request, organization, _series_with_template(public))


@require_GET
def private_series_feed(request: HttpRequest, key: str, slug: str) -> HttpResponseBase:
    user = _user_of(key)
    visible = get_adapter().get_visible_series(user).values("pk")
    opened = _series_with_template(Q(visibility__in=OPEN_SERIES)).values("pk")
    found = (
        EventSeries.objects.filter(Q(pk__in=visible) | Q(pk__in=opened), slug=slug)
        .select_related("recurrence_rule")
        .first()
    )
    if found is None:
        # Whoever holds a key may learn that a series of this slug was deleted.
        deleted = DeletedSeries.latest(slug=slug)
        if deleted is None:
            raise Http404("No such series.")
        return deleted_series_response(request, deleted, filename=f"{slug}.ics")
    return _series_response(request, found)


@require_GET
def private_organization_feed(request: HttpRequest, key: str, slug: str) -> HttpResponseBase:
    user = _user_of(key)
    organization = get_object_or_404(Organization, slug=slug)
    of_organization = _series_with_template(Q(organization=organization))
    visible = get_adapter().get_visible_series(user).values("pk")
    public = _series_with_template(
        Q(organization=organization, visibility=Event.Visibility.PUBLIC)
    ).values("pk")
    series = of_organization.filter(Q(pk__in=visible) | Q(pk__in=public))
    return _organization_response(request, organization, series)


def feed_url_for(request: HttpRequest, series: EventSeries, template: Event) -> str | None:
    """The feed of ``series`` the person on this page may subscribe to, or None."""
    if template.visibility in OPEN_SERIES:
        return request.build_absolute_uri(reverse("events:series_feed", args=[series.slug]))
    user = request.user
    if not user.is_authenticated:
        return None
    if not get_adapter().get_visible_series(user).filter(pk=series.pk).exists():
        return None
    key = CalendarToken.for_user(user).key
    return request.build_absolute_uri(
        reverse("events:private_series_feed", args=[key, series.slug])
    )


@login_required
@require_http_methods(["GET", "POST"])
def calendar_settings(request: HttpRequest) -> HttpResponse:
    """The signed-in user's subscription URLs; POST gives them a new key."""
    token = CalendarToken.for_user(request.user)
    if request.method == "POST":
        token.rotate()
        return redirect("events:calendar")
    visible = get_adapter().get_visible_series(request.user).order_by("name", "pk")
    organizations = Organization.objects.filter(
        events__is_template=True, events__series__in=visible
    ).distinct()
    base = request.build_absolute_uri("/").rstrip("/")
    context = {
        "series": [
            (s, base + reverse("events:private_series_feed", args=[token.key, s.slug]))
            for s in visible
        ],
        "organizations": [
            (o, base + reverse("events:private_organization_feed", args=[token.key, o.slug]))
            for o in organizations
        ],
    }
    return render(request, "events/calendar.html", context)
