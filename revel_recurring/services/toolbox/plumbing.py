"""What every service does around its own work: the clock, the rule, signals, the caller's copy.

Public so the services (and the API, admin and notebooks built on them) share one
implementation of each step instead of borrowing each other's private names.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext

from ... import rules
from ...exceptions import InvalidArgumentError
from ...models import EventSeries, RecurrenceRule

logger = logging.getLogger("revel_recurring.services")


def now_utc(now: object = None) -> dt.datetime:
    """``now`` as a UTC instant (the current time when None); anything else is refused.

    Every service takes ``now=`` and reads it through this function, so an injected
    time in any zone compares with stored UTC instants, and a naive or non-datetime
    value raises :class:`~revel_recurring.exceptions.InvalidArgumentError`.
    """
    if now is None:
        return timezone.now()
    if not isinstance(now, dt.datetime) or not rules.is_aware(now):
        raise InvalidArgumentError(
            gettext("'now' must be an aware datetime (with a UTC offset), got %(now)s.")
            % {"now": repr(now)}
        )
    return now.astimezone(dt.UTC)


def load_rule(series: EventSeries, *, using: str | None = None) -> RecurrenceRule | None:
    """Read the series' recurrence rule in its own query and attach it; None without one.

    Called after the series lock is held, never joined into the locking statement:
    after a lock wait PostgreSQL re-reads only the locked row, so a joined rule
    would be the version from before the wait.
    """
    if series.recurrence_rule_id is None:
        return None
    manager = RecurrenceRule.objects if using is None else RecurrenceRule.objects.using(using)
    rule = manager.get(pk=series.recurrence_rule_id)
    series.recurrence_rule = rule
    return rule


def send_after_commit(signal: Signal, **kwargs: Any) -> None:
    """Send ``signal`` (sender: EventSeries) once the current transaction commits.

    ``send_robust``: the data is committed by then, so a broken receiver must not
    turn a successful write into an error for the caller; it is logged instead.
    """

    def send() -> None:
        for receiver, result in signal.send_robust(sender=EventSeries, **kwargs):
            if isinstance(result, Exception):
                logger.error("revel_recurring signal receiver %r failed", receiver, exc_info=result)

    transaction.on_commit(send)


def mirror_columns(target: EventSeries, source: EventSeries, *names: str) -> None:
    """Copy the written columns ``names`` from the locked ``source`` onto the caller's ``target``.

    Callers keep using the instance they passed in; without this a later
    ``target.save()`` would write back the values from before the service ran
    (rewinding the cursor, dropping an exdate).
    """
    for name in names:
        setattr(target, name, getattr(source, name))


def utc_instants(values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` with aware datetimes as UTC (the same instants, offsets every database stores)."""
    return {
        key: rules.to_utc(value)
        if isinstance(value, dt.datetime) and rules.is_aware(value)
        else value
        for key, value in values.items()
    }


__all__ = ["load_rule", "mirror_columns", "now_utc", "send_after_commit", "utc_instants"]
