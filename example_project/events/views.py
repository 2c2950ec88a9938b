"""The series list, a series page (the digest's link target) and a user's notifications.

The pages speak the visitor's language (LocaleMiddleware, the switcher in
``base.html``): the rule is the sentence ``describe_series`` writes in the active
language (the admin's: the rule, its extra dates and its holiday policy), every
date is read on the rule's own wall clock, and a date a holiday moved says so as
the feed does ("Moved from Thu 6 May 2027 because of Ascension Day.").
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from revel_recurring.adapter import get_adapter
from revel_recurring.beyond_window import dates_beyond_window
from revel_recurring.describe import describe_instant, describe_series
from revel_recurring.halves import series_halves
from revel_recurring.holiday_notes import holiday_move_notes
from revel_recurring.models import EventSeries

from .feeds import OPEN_SERIES, feed_url_for
from .models import Event, Notification


def series_list(request: HttpRequest) -> HttpResponse:
    """Active series: public ones for anyone, plus those the signed-in user may read.

    Anonymous visitors see only public series: the name of a members-only or
    staff-only series is already more than they may know.
    """
    readable = Q(visibility=Event.Visibility.PUBLIC)
    if request.user.is_authenticated:
        readable |= Q(series__in=get_adapter().get_visible_series(request.user).values("pk"))
    templates = (
        Event.objects.templates()
        .filter(readable, series__is_active=True)
        .select_related("series__recurrence_rule", "organization")
        .order_by("series__name")
    )
    listed = [(template, _rule_sentence(template.series)) for template in templates]
    return render(request, "events/series_list.html", {"templates": listed})


def _rule_sentence(series: EventSeries | None) -> str:
    rule = series.recurrence_rule if series is not None else None
    return describe_series(series, rule) if series is not None and rule is not None else ""


def series_detail(request: HttpRequest, slug: str) -> HttpResponse:
    series = get_object_or_404(EventSeries, slug=slug)
    template = get_object_or_404(Event.objects.templates(), series=series)
    # Public and unlisted series are open to anyone with the link; the others only
    # to those the adapter lets see them (the digest links staff-only series here).
    if template.visibility not in OPEN_SERIES and not (
        request.user.is_authenticated
        and get_adapter().get_visible_series(request.user).filter(pk=series.pk).exists()
    ):
        raise Http404("No such series.")
    # The table shows three columns: reading only those keeps the page's memory
    # flat however long the description every occurrence copied from the template.
    occurrences = (
        Event.objects.occurrences()
        .filter(series=series)
        .exclude(status=Event.Status.DRAFT)
        .order_by("start")
        .only("occurrence_index", "start", "status", "recurrence_id")
    )
    rule = series.recurrence_rule
    zone = rule.timezone if rule is not None else None
    rows = list(occurrences)
    # A Friday in a Thursday series: the holiday that moved it, as the feed says it.
    notes = holiday_move_notes(series, rows, rule=rule)
    feed = feed_url_for(request, series, template)
    context = {
        "series": series,
        "template": template,
        "rule": _rule_sentence(series),
        # Each start as the app names a date everywhere, in the rule's zone; a
        # cancelled date stays listed (people booked it), struck through.
        "occurrences": [
            (
                event,
                describe_instant(event.start, zone),
                event.status == Event.Status.CANCELLED,
                notes.get(event.pk, ""),
            )
            for event in rows
        ],
        # The rule's dates beyond the window, for a person planning ahead: only of a
        # series whose new dates are published (a draft date is nobody's to see),
        # capped by REVEL_RECURRING_BEYOND_WINDOW_DATES.
        "later": [
            describe_instant(date.start, zone)
            for date in (dates_beyond_window(series) if series.auto_publish else [])
        ],
        "feed_url": feed,
        # A split series names the series it continues, or that continues it.
        "halves": series_halves(series),
        # webcal:// makes the browser hand the URL to the calendar app as a subscription.
        "subscribe_url": feed and "webcal://" + feed.split("://", 1)[1],
    }
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
