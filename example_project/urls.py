from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api-auth/", include("rest_framework.urls")),
    path("api/recurring/", include("revel_recurring.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    # Django's set_language view: the language switcher in events/base.html posts here.
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("example_project.events.urls")),
]
