"""Absolute addresses for messages: the series page and the organizer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.apps import apps

from ..adapter import DefaultRecurringAdapter
from ..conf import recurring_settings


@dataclass(frozen=True)
class Organizer:
    """The ORGANIZER of the calendar entries a person is sent, and who the messages are from."""

    address: str
    name: str = ""


def site_base() -> str:
    """``REVEL_RECURRING_SITE_URL``, else the current ``Site``'s domain over https, else ""."""
    base = recurring_settings.SITE_URL
    if base:
        return base.rstrip("/")
    if apps.is_installed("django.contrib.sites"):
        from django.contrib.sites.models import Site

        return f"https://{Site.objects.get_current().domain}"
    return ""


def absolute_url(url: str) -> str:
    """``url`` made absolute against :func:`site_base` (kept as it is when it already is)."""
    if not url or "://" in url:
        return url
    return f"{site_base()}/{url.lstrip('/')}"


def series_link(adapter: DefaultRecurringAdapter, series: Any) -> str:
    """The absolute address of the series' public page."""
    return absolute_url(adapter.get_series_url(series))


def organizer_of(adapter: DefaultRecurringAdapter, series: Any) -> Organizer:
    """The adapter's organizer of ``series`` (``get_organizer``)."""
    name, address = adapter.get_organizer(series)
    return Organizer(address=address, name=name)
