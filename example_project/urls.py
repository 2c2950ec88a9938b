from __future__ import annotations

from importlib.util import find_spec

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api-auth/", include("rest_framework.urls")),
    path("", include("example_project.events.urls")),
]

# revel_recurring's REST API is being built alongside this project; mount it as soon
# as its urls module exists rather than failing every page until then.
if find_spec("revel_recurring.api.urls") is not None:
    urlpatterns.insert(1, path("api/", include("revel_recurring.api.urls")))
