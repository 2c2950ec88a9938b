"""Who may do what: the adapter decides, these classes enforce it.

The viewset's queryset is ``get_visible_series(user)``, so a series outside it is
a 404 on every route. Writes need the series in ``get_editable_series(user)``
(else 403), but for the view's ``self_service_actions`` (enrolling oneself), which
decide themselves; creating needs ``can_create_series(user)``, and anonymous requests
are refused before anything else (401 or 403, by the host's authentication).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_lazy
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from ..adapter import get_adapter


class SeriesPermission(BasePermission):
    message: Any = gettext_lazy("You may view this series but not change it.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        if getattr(view, "action", None) == "create":
            self.message = gettext("You may not create series.")
            return get_adapter().can_create_series(user)
        return True

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        if getattr(view, "action", None) in getattr(view, "self_service_actions", ()):
            # A user's own enrolment in a series they may see: the action decides.
            return True
        return get_adapter().get_editable_series(request.user).filter(pk=obj.pk).exists()
