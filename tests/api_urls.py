"""A bare host's URLconf: the API mounted the way the quickstart (docs/quickstart.md) says."""

from django.urls import include, path

urlpatterns = [path("api/recurring/", include("revel_recurring.api.urls"))]
