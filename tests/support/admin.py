"""Shared pieces of the admin tests: URLs, messages and a series with every kind of date."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.messages import get_messages
from django.utils import timezone

from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from tests.support.drift import drift_without_partners
from tests.support.factories import make_series, occurrences
from tests.support.forms import (
    confirm_plan,
    drift_boxes,
    form_data,
    form_errors,
    save_confirmed,
    series_locks,
)

__all__ = [
    "ADD",
    "CHANGELIST",
    "change_url",
    "confirm_plan",
    "drift_boxes",
    "form_data",
    "form_errors",
    "generated_series",
    "mixed_series",
    "save_confirmed",
    "series_locks",
    "texts",
]

CHANGELIST = "/admin/revel_recurring/eventseries/"
ADD = "/admin/revel_recurring/eventseries/add/"


def change_url(series: EventSeries, suffix: str = "change") -> str:
    return f"{CHANGELIST}{series.pk}/{suffix}/"


def texts(response: Any) -> list[str]:
    """The messages a response carries (followed redirects included)."""
    return [str(message) for message in get_messages(response.wsgi_request)]


def generated_series(**options: Any) -> EventSeries:
    """A weekly Monday series with its window generated from the real clock (the admin's)."""
    series = make_series(**options)
    generate_series_events(series, now=timezone.now())
    series.refresh_from_db()
    return series


def mixed_series(**options: Any) -> EventSeries:
    """Eight Mondays generated, one cancelled, one moved by hand, then the rule ended after the
    first (:func:`~tests.support.drift.drift_without_partners`: the others have nowhere to move).

    Leaves six drifted Mondays, one modified, one cancelled: every badge of the list.
    """
    series = generated_series(**options)
    mondays = occurrences(series)
    cancel_occurrence(series, mondays[0].starts_at)
    moved = mondays[1]
    moved.starts_at += dt.timedelta(hours=1)
    moved.ends_at = moved.starts_at + dt.timedelta(hours=1)
    moved.save()
    drift_without_partners(series)
    series.refresh_from_db()
    return series
