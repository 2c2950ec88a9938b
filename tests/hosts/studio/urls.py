from django.contrib import admin
from django.urls import include, path

from ..series_page import series_page
from . import views

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/recurring/", include("revel_recurring.api.urls")),
    path("schools/<slug:slug>/calendar.ics", views.school_feed, name="school_feed"),
    path("series/<slug:slug>/", series_page, name="series_page"),
]
