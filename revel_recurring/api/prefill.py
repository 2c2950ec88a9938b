"""What the browsable API's POST forms are prefilled with: a body that works as it stands.

DRF fills an action's form with its input serializer's unbound ``data``: every
field with its empty value, ``null`` where the field takes none, which the action
then refuses ("This field may not be null."). An action's input serializer takes
:class:`~revel_recurring.api.fields.PrefilledFormMixin` instead, and its form shows
:func:`form_body`:

- ``recurrence-plan/``: the series' rule, window and holiday settings as they are
  (a plan of no change, to edit); ``recurrence-apply/`` the same with that plan's
  ``hash`` and ``cancel_drift``, so it applies as it stands;
- ``split-plan/`` and ``split/``: the first date the series can be split at, its
  name, and empty changes of the rule and the template;
- ``add-date/``: the first day after the next date that can be an extra date, at
  the series' time;
- ``cancel-stale/``: the drifted dates by id, booked ones left alone;
- ``generate/``, ``pause/``, ``resume/``, ``enrolments/`` (enrol yourself from
  today): ``{}``;
- ``cancel-occurrence/``, ``restore-occurrence/``, ``remove-date/``: no date is
  chosen for the person; the optional fields with their defaults, and the answer
  names the one field to fill in;
- ``POST series/``: a weekly rule from tomorrow 18:00 in the site's zone, an empty
  name and template: the answer names what the person fills in (the name, the
  fields the host's template requires).

A value that cannot be found (a series without a rule or without a date to
split at) is left out, never sent as ``null``: the answer then names the field.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from .. import rules
from ..exceptions import RecurrenceError
from ..holiday_settings import HOLIDAY_FIELDS
from ..models import EventSeries, RecurrenceRule
from ..services.drift import detect_cadence_drift
from ..services.plans import plan_recurrence_change
from ..services.splits import is_split_point
from ..services.toolbox.extra_dates import extra_date_refusal, over_limit_refusal
from .fields import AwareDateTimeField
from .plan_keys import plan_changes, plan_request
from .serializers.actions import RecurrencePlanRequestSerializer

#: The rule fields a plan's form shows with their current values.
_RULE_FIELDS = (
    "frequency",
    "interval",
    "weekdays",
    "monthly_type",
    "day_of_month",
    "nth_weekday",
    "weekday",
    "dtstart",
    "until",
    "count",
    "timezone",
)
#: How far ahead the forms look for a date to split at or to add.
_LOOK_AHEAD = dt.timedelta(days=400)
#: At most this many drifted ids in ``cancel-stale/``'s form (its ``ids`` limit).
_IDS_MAX = 1000

_INSTANT = AwareDateTimeField()


def _rule_values(rule: RecurrenceRule) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in _RULE_FIELDS:
        value = getattr(rule, name)
        if isinstance(value, dt.datetime):
            value = _INSTANT.to_representation(value)
        values[name] = list(value) if isinstance(value, list | tuple) else value
    return values


def _unchanged(series: EventSeries, rule: RecurrenceRule) -> dict[str, Any]:
    """The series' rule, window and holidays as a plan's body: a change of nothing."""
    body: dict[str, Any] = {"recurrence": _rule_values(rule)}
    body["generation_window_weeks"] = series.generation_window_weeks
    body["holidays"] = {key: getattr(series, name) for key, name in HOLIDAY_FIELDS.items()}
    body["holidays"]["categories"] = list(body["holidays"]["categories"] or [])
    return body


def _plan_body(series: EventSeries, now: dt.datetime) -> dict[str, Any]:
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    return _unchanged(series, rule) if rule is not None else {}


def _apply_body(series: EventSeries, now: dt.datetime) -> dict[str, Any]:
    body = _plan_body(series, now)
    read = RecurrencePlanRequestSerializer(data=body)
    if series.recurrence_rule_id is None or not read.is_valid():
        return {**body, "cancel_drift": "none"}
    # The hash of the same body as the apply reads it: the change as validated.
    changes = plan_changes(read.validated_data)
    try:
        plan = plan_recurrence_change(series, changes, now=now)
    except (RecurrenceError, ValidationError):
        return {**body, "cancel_drift": "none"}
    key = plan_request(series, "recurrence", changes).key(plan.hash)
    return {**body, "hash": key, "cancel_drift": "none"}


def _split_at(series: EventSeries, now: dt.datetime) -> dt.datetime | None:
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    if rule is None:
        return None
    spec = rule.to_spec()
    for slot in rules.occurrences_between(spec, now, now + _LOOK_AHEAD, inclusive=True):
        if is_split_point(rule, slot, now=now):
            return slot
    return None


def _split_body(series: EventSeries, now: dt.datetime) -> dict[str, Any]:
    at = _split_at(series, now)
    body: dict[str, Any] = {} if at is None else {"at": _INSTANT.to_representation(at)}
    return {**body, "name": series.name, "recurrence": {}, "template": {}}


def _free_day(series: EventSeries, now: dt.datetime) -> dt.datetime | None:
    """The first day after the series' next date at its time that may become an extra
    date (not in the past, not a date of the series, within the limit)."""
    rule = series.recurrence_rule if series.recurrence_rule_id is not None else None
    if rule is None:
        return None
    spec = rule.to_spec()
    start = max(now, rules.to_utc(rule.dtstart))
    following = rules.occurrences_between(spec, start, start + _LOOK_AHEAD, inclusive=True)
    base = following[0] if following else rules.to_utc(rule.dtstart)
    current = series.extra_date_instants
    if over_limit_refusal(len(current) + 1):
        return None
    wall = base.astimezone(spec.zone)
    for days in range(1, 15):
        day = wall.date() + dt.timedelta(days=days)
        candidate = rules.to_utc(rules.localize(dt.datetime.combine(day, wall.time()), spec.zone))
        if not extra_date_refusal(candidate, rule, now=now, current=current):
            return candidate
    return None


def _add_date_body(series: EventSeries, now: dt.datetime) -> dict[str, Any]:
    day = _free_day(series, now)
    return {} if day is None else {"instant": _INSTANT.to_representation(day)}


def _cancel_stale_body(series: EventSeries, now: dt.datetime) -> dict[str, Any]:
    ids = detect_cadence_drift(series, now=now)[:_IDS_MAX]
    return {"ids": [pk if isinstance(pk, int) else str(pk) for pk in ids], "include_booked": False}


_ON_SERIES: dict[str, Callable[[EventSeries, dt.datetime], dict[str, Any]]] = {
    "recurrence_plan": _plan_body,
    "recurrence_apply": _apply_body,
    "split_plan": _split_body,
    "split": _split_body,
    "add_date": _add_date_body,
    "cancel_stale": _cancel_stale_body,
    "generate": lambda series, now: {},
    "cancel_occurrence": lambda series, now: {"include_booked": False},
    "restore_occurrence": lambda series, now: {},
    "remove_date": lambda series, now: {},
    # Enrol yourself from today, until further notice.
    "enrolments": lambda series, now: {},
}


def _create_body(now: dt.datetime) -> dict[str, Any]:
    """A new weekly series from tomorrow at 18:00 in the site's zone: its name and the
    template fields your model requires are left for the person (the 400 names them)."""
    zone = timezone.get_default_timezone()
    day = now.astimezone(zone).date() + dt.timedelta(days=1)
    start = rules.localize(dt.datetime.combine(day, dt.time(18, 0)), zone)
    recurrence = {
        "frequency": "WEEKLY",
        "dtstart": _INSTANT.to_representation(start),
        "timezone": timezone.get_default_timezone_name(),
    }
    return {"name": "", "recurrence": recurrence, "auto_publish": False, "template": {}}


def form_body(action: str | None, series: Callable[[], EventSeries]) -> dict[str, Any] | None:
    """The body the form of ``action`` is prefilled with (for the series ``series()``
    answers, on a detail route); None for a form DRF fills (a PATCH's, the series as
    it is)."""
    if action == "create":
        return _create_body(timezone.now())
    build = _ON_SERIES.get(action or "")
    if build is None:
        return None
    return build(series(), timezone.now())


__all__ = ["form_body"]
