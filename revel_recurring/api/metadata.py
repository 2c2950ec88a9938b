"""OPTIONS answers: each route describes the body it reads.

DRF's ``SimpleMetadata`` builds the description of a POST with the serializer of the
view's current action, which for an OPTIONS request is ``metadata``: every action of
the series viewset then described the series' fields. Here the view's action is the
one the method runs (``add_date`` for a POST to ``add-date/``), so OPTIONS shows its
input serializer (:mod:`revel_recurring.api.bodies`; a view's own ``action_bodies``,
as the enrolment viewset's, else ``ACTION_BODIES``); one that reads no body
(``pause/``, ``resume/``) shows no fields.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework.exceptions import APIException
from rest_framework.metadata import SimpleMetadata
from rest_framework.request import Request, clone_request

from .bodies import ACTION_BODIES


class ActionMetadata(SimpleMetadata):
    """``SimpleMetadata`` describing each method with its own action's serializer."""

    def determine_actions(self, request: Request, view: Any) -> dict[str, Any]:
        action_map = getattr(view, "action_map", None) or {}
        current = getattr(view, "action", None)
        described: dict[str, Any] = {}
        for method in ("POST", "PUT"):
            if method not in view.allowed_methods:
                continue
            view.request = clone_request(request, method)
            view.action = action_map.get(method.lower(), current)
            try:
                # Described only to whom may send it, as DRF does.
                view.check_permissions(view.request)
                if method == "PUT":
                    view.get_object()
                # An action that reads no body (pause/, resume/) takes no fields.
                reads = view.action in getattr(view, "action_bodies", ACTION_BODIES)
                described[method] = self.get_serializer_info(view.get_serializer()) if reads else {}
            except (APIException, PermissionDenied, Http404):
                continue
            finally:
                view.request = request
                view.action = current
        return described


__all__ = ["ActionMetadata"]
