from __future__ import annotations

from django.urls import path

from . import views

app_name = "events"

urlpatterns = [
    path("", views.series_list, name="series_list"),
    # The same path as DefaultRecurringAdapter.get_series_url(), the digest's link.
    path("series/<slug:slug>/", views.series_detail, name="series_detail"),
]
