"""Drift that stays drift: a rule change that leaves dates with nowhere to move.

Since issue 35 a change of weekday or time *moves* each date the new rule no longer
holds to its partner, the new rule's date in the same period
(:mod:`revel_recurring.services.plans.partners`): a PATCH from Mondays to Tuesdays
leaves no drift at all. Tests about what happens to drift (cancelling stale dates,
bookings on them, the drift listing, the change log, the admin's stale page) need
dates off the rule that have no partner. Ending the rule early makes them: the rule
has no date after its end, so the dates after it can go nowhere.

Works on every test host: it reads the host's model through the app.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from revel_recurring import rules
from revel_recurring.models import EventSeries, get_event_model
from revel_recurring.services.lifecycle import update_series_recurrence


def drift_without_partners(
    series: EventSeries, *, keep: int = 1, now: dt.datetime | None = None
) -> list[Any]:
    """End ``series``' rule just after its first ``keep`` dates and return the dates after
    them (live or not, in start order): off the rule, with no partner to move to.

    ``keep=0`` ends the rule at its start (``count=1``: its one date is DTSTART), so
    every date after DTSTART drifts: for a series generated on the real clock from a
    start long past, all its dates. The change goes through
    ``update_series_recurrence`` at ``now`` (as a PATCH of the end would), so the
    rows stay where they are and ``series`` carries the new rule.
    """
    if keep < 0:
        raise ValueError("keep counts dates: 0 or more.")
    model = get_event_model()
    rows = list(
        model._default_manager.filter(series=series, is_template=False).order_by(
            model.RECURRING_START_FIELD, "pk"
        )
    )
    if keep == 0:
        rule = series.recurrence_rule
        assert rule is not None
        update_series_recurrence(series, rule_changes={"count": 1}, now=now)
        series.refresh_from_db()
        return [row for row in rows if row.occurrence_start > rule.dtstart]
    if len(rows) <= keep:
        raise ValueError(f"{series} has {len(rows)} dates: none would be left to drift.")
    last_kept = rows[keep - 1].occurrence_start
    first_left = rows[keep].occurrence_start
    # Halfway between the last date kept and the first one left: neither is on the end.
    until = last_kept + (first_left - last_kept) / 2
    update_series_recurrence(series, rule_changes={"until": until}, now=now)
    series.refresh_from_db()
    return rows[keep:]


def ended_before_its_dates(series: EventSeries) -> dict[str, Any]:
    """The rule change (for a plan, an apply or a PATCH) that makes every generated date of
    ``series`` drift with no date of the rule to move to: the rule starts one period
    before its first date and ends there (``count=1``), so its one date is past."""
    model = get_event_model()
    first_row = (
        model._default_manager.filter(series=series, is_template=False)
        .order_by(model.RECURRING_START_FIELD, "pk")
        .first()
    )
    rule = series.recurrence_rule
    assert rule is not None
    assert first_row is not None
    first = min(rule.dtstart, first_row.occurrence_start)
    return {"dtstart": first - rules.period_span(rule.to_spec()), "count": 1}


def drift_every_date(series: EventSeries, *, now: dt.datetime | None = None) -> list[Any]:
    """Change ``series``' rule by :func:`ended_before_its_dates`: every generated date drifts,
    with no date of the rule to move to. Returns them, in start order.

    For tests that need all the dates of a series off its rule (what a weekday change
    did before a change of weekday moved them).
    """
    model = get_event_model()
    rows = list(
        model._default_manager.filter(series=series, is_template=False).order_by(
            model.RECURRING_START_FIELD, "pk"
        )
    )
    update_series_recurrence(series, rule_changes=ended_before_its_dates(series), now=now)
    series.refresh_from_db()
    return rows


__all__ = ["drift_every_date", "drift_without_partners", "ended_before_its_dates"]
