"""Shared pieces of the admin tests: URLs, messages and a series with every kind of date."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.messages import get_messages
from django.db import connection
from django.utils import timezone

from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence
from revel_recurring.services.generation import generate_series_events
from revel_recurring.services.lifecycle import update_series_recurrence
from tests.factories import make_series, occurrences

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
    """Eight Mondays generated, one cancelled, one moved by hand, then the rule moved to Tuesday.

    Leaves six drifted Mondays, one modified, one cancelled: every badge of the list.
    """
    series = generated_series(**options)
    mondays = occurrences(series)
    cancel_occurrence(series, mondays[0].starts_at)
    moved = mondays[1]
    moved.starts_at += dt.timedelta(hours=1)
    moved.ends_at = moved.starts_at + dt.timedelta(hours=1)
    moved.save()
    update_series_recurrence(series, rule_changes={"weekdays": [1]})
    series.refresh_from_db()
    return series


def series_locks(queries: list[dict[str, Any]]) -> int:
    """How many statements took a series row lock (``lock_series``' statement on each backend)."""
    table = EventSeries._meta.db_table
    if connection.features.has_select_for_update:
        marker = "FOR NO KEY UPDATE" if connection.vendor == "postgresql" else "FOR UPDATE"
        return sum(1 for q in queries if table in q["sql"] and marker in q["sql"].upper())
    # SQLite: the no-op UPDATE that takes the database's write lock.
    return sum(
        1 for q in queries if q["sql"].startswith(f'UPDATE "{table}" SET "is_active" = "{table}"')
    )


def form_errors(response: Any) -> dict[str, list[str]]:
    """The errors of the admin form a re-rendered page shows, by field ("__all__" on top)."""
    form = response.context["adminform"].form
    return {key: [str(message) for message in messages] for key, messages in form.errors.items()}


def form_data(series: EventSeries, **changes: Any) -> dict[str, Any]:
    """The change form as the admin renders it for ``series``, with ``changes`` applied."""
    rule = series.recurrence_rule
    assert rule is not None
    local = rule.dtstart.astimezone(rule.to_spec().zone)
    data: dict[str, Any] = {
        "name": series.name,
        "slug": series.slug,
        "description": series.description,
        "is_active": "on" if series.is_active else "",
        "auto_publish": "on" if series.auto_publish else "",
        "generation_window_weeks": series.generation_window_weeks,
        "frequency": rule.frequency,
        "interval": rule.interval,
        "weekdays": [str(day) for day in rule.weekdays],
        "monthly_type": rule.monthly_type,
        "day_of_month": rule.day_of_month or "",
        "nth_weekday": rule.nth_weekday or "",
        "weekday": "" if rule.weekday is None else rule.weekday,
        "dtstart_0": local.strftime("%Y-%m-%d"),
        "dtstart_1": local.strftime("%H:%M:%S"),
        "until_0": "",
        "until_1": "",
        "count": rule.count or "",
        "timezone": rule.timezone,
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value not in ("", None)}
