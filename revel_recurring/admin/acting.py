"""Who acts through the admin: every page of the series admin runs as its user's.

The one place the admin names itself to the series' history
(:func:`revel_recurring.context.acting`, face "admin"): each URL of
``EventSeriesAdmin`` (Django's own pages, the actions on the list, the buttons,
plans and splits) runs its view inside the block.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from django.urls import URLPattern, URLResolver

from ..context import acting

View = Callable[..., HttpResponseBase]


def acted(view: View) -> View:
    """``view`` run as the request's user, through the face "admin"."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        with acting(getattr(request, "user", None), face="admin"):
            return view(request, *args, **kwargs)

    return wrapper


def acted_urls(patterns: list[Any]) -> list[Any]:
    """``patterns`` with every view wrapped by :func:`acted` (included lists too)."""
    for pattern in patterns:
        if isinstance(pattern, URLPattern):
            pattern.callback = acted(pattern.callback)
        elif isinstance(pattern, URLResolver):
            acted_urls(pattern.url_patterns)
    return patterns


class ActingAdminMixin:
    """A model admin whose pages record their changes as the user's, face "admin"."""

    def get_urls(self) -> list[Any]:
        return acted_urls(super().get_urls())  # type: ignore[misc]
