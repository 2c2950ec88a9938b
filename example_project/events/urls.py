from __future__ import annotations

from django.urls import path

from . import views

app_name = "events"

urlpatterns = [
    path("", views.series_list, name="series_list"),
    # The digest's link: ExampleAdapter.get_series_url() reverses this name.
    path("series/<slug:slug>/", views.series_detail, name="series_detail"),
    path("notifications/", views.notification_list, name="notifications"),
]
