"""The series admin's form as a test posts it, and what a response shows of it; any host."""

from __future__ import annotations

from typing import Any

from django.db import connection

from revel_recurring.models import EventSeries


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
