from __future__ import annotations

from django.urls import path

from . import feeds, views

app_name = "events"

urlpatterns = [
    path("", views.series_list, name="series_list"),
    # The digest's link: ExampleAdapter.get_series_url() reverses this name.
    path("series/<slug:slug>/", views.series_detail, name="series_detail"),
    path("notifications/", views.notification_list, name="notifications"),
    # Calendar feeds (iCalendar): open ones, and the per-user secret-key ones.
    path("series/<slug:slug>/calendar.ics", feeds.open_series_feed, name="series_feed"),
    path(
        "organizations/<slug:slug>/calendar.ics",
        feeds.open_organization_feed,
        name="organization_feed",
    ),
    path(
        "calendar/<str:key>/series/<slug:slug>.ics",
        feeds.private_series_feed,
        name="private_series_feed",
    ),
    path(
        "calendar/<str:key>/organizations/<slug:slug>.ics",
        feeds.private_organization_feed,
        name="private_organization_feed",
    ),
    path("calendar/", feeds.calendar_settings, name="calendar"),
]
