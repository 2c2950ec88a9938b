from django.contrib import admin
from django.urls import path

from tests.hosts.series_page import series_page

urlpatterns = [
    path("admin/", admin.site.urls),
    path("series/<slug:slug>/", series_page, name="series_page"),
]
