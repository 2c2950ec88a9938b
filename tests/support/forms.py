"""The series admin's form as a test posts it, and what a response shows of it; any host."""

from __future__ import annotations

from collections.abc import Iterable
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlencode

from django.db import connection

from revel_recurring import rules
from revel_recurring.admin.splits import TEMPLATE_PREFIX, template_form_class
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
        "holiday_country": series.holiday_country,
        "holiday_subdivision": series.holiday_subdivision,
        "holiday_categories": ", ".join(series.holiday_categories or ()),
        "holiday_policy": series.holiday_policy,
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value not in ("", None)}


class _PlanForm(HTMLParser):
    """The inputs of a plan page's form as a browser sees them: the change plan's
    (``#revel-plan-form``) or the split plan's (``#revel-split-plan-form``)."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.inputs: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and found.get("id") in ("revel-plan-form", "revel-split-plan-form"):
            self.inside = True
        elif tag == "input" and self.inside:
            self.inputs.append(found)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False


def plan_inputs(response: Any) -> list[dict[str, str | None]]:
    """The plan page's inputs: each an attribute dict (``checked`` present when ticked)."""
    parser = _PlanForm()
    parser.feed(response.content.decode())
    return parser.inputs


def drift_boxes(response: Any) -> dict[str, bool]:
    """A plan page's drift checkboxes (change or split): value (a pk as text) → ticked."""
    return {
        str(box["value"]): "checked" in box
        for box in plan_inputs(response)
        if box.get("type") == "checkbox" and box.get("name") == "_plan_cancel"
    }


def confirm_plan(
    client: Any,
    url: str,
    response: Any,
    *,
    tick: Iterable[Any] = (),
    untick: Iterable[Any] = (),
    **post: Any,
) -> Any:
    """Post the plan page of ``response`` back to ``url`` as a browser would, after
    ticking ``tick`` and unticking ``untick`` (pks), with "Yes, apply"."""
    ticked = {pk for pk, on in drift_boxes(response).items() if on}
    ticked = (ticked | {str(pk) for pk in tick}) - {str(pk) for pk in untick}
    data: list[tuple[str, str]] = [
        (str(field["name"]), str(field.get("value") or ""))
        for field in plan_inputs(response)
        if field.get("type") == "hidden"
    ]
    data += [("_plan_cancel", pk) for pk in sorted(ticked)]
    # The other ticked boxes go as a browser sends them ("Tell the people booked").
    data += [
        (str(box["name"]), str(box.get("value") or "on"))
        for box in plan_inputs(response)
        if box.get("type") == "checkbox" and box.get("name") == "_notify" and "checked" in box
    ]
    data.append(("_continue", "Yes"))
    body = urlencode(data)
    return client.post(url, body, content_type="application/x-www-form-urlencoded", **post)


def save_confirmed(client: Any, url: str, data: Any, **post: Any) -> Any:
    """Post the change form; when it answers with the change plan page, confirm the plan
    as shown (drifted dates ticked as the page ticks them)."""
    response = client.post(url, data)
    if response.status_code == 200 and "plan" in (response.context or {}):
        return confirm_plan(client, url, response, **post)
    return response


def split_url(series: EventSeries, at: Any = None) -> str:
    """The admin's "Change this and following…" page of ``series`` (at ``at``, a UTC instant)."""
    url = f"/admin/revel_recurring/eventseries/{series.pk}/split/"
    return url if at is None else f"{url}?{urlencode({'at': rules.format_instant(at)})}"


def split_data(
    series: EventSeries, at: Any, *, template: dict[str, Any] | None = None, **changes: Any
) -> dict[str, Any]:
    """The split form as the page renders it for ``series`` at ``at``, with changes applied.

    ``changes`` are the series form's names (rule fields, ``name``); ``template``
    the host's propagatable fields by their own names.
    """
    rule = series.recurrence_rule
    assert rule is not None
    local = at.astimezone(rule.to_spec().zone)
    data = form_data(series)
    for name in ("slug", "description", "is_active", "auto_publish", "generation_window_weeks"):
        data.pop(name, None)
    data.update(at=rules.format_instant(at), dtstart_0=local.strftime("%Y-%m-%d"))
    data["dtstart_1"] = local.strftime("%H:%M:%S")
    shown = template_form_class()(instance=series.get_template(), prefix=TEMPLATE_PREFIX)
    for field in shown:
        value = (template or {}).get(field.name, field.value())
        if isinstance(value, bool):
            value = "on" if value else None
        data[field.html_name] = value
    data.update(changes)
    return {key: value for key, value in data.items() if value not in ("", None)}


class _InputsOf(HTMLParser):
    """The inputs of one form of a page, by the form's id."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id = form_id
        self.inside = False
        self.inputs: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and found.get("id") == self.form_id:
            self.inside = True
        elif tag == "input" and self.inside:
            self.inputs.append(found)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False


def confirm_split(client: Any, response: Any, *, button: str = "_confirm", **post: Any) -> Any:
    """Post the split plan page of ``response`` back as a browser would (``button`` pressed)."""
    parser = _InputsOf("revel-split-plan-form")
    parser.feed(response.content.decode())
    data = [
        (str(field["name"]), str(field.get("value") or ""))
        for field in parser.inputs
        if field.get("type") == "hidden"
        # The ticks of the dates that no longer fit, as the page starts them.
        or (field.get("type") == "checkbox" and "checked" in field)
    ]
    data.append((button, "Yes"))
    url = response.context["split_url"]
    return client.post(
        url, urlencode(data), content_type="application/x-www-form-urlencoded", **post
    )
