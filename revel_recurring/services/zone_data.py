"""Time-zone data updates: the generated dates a newer tz database puts at another wall clock.

Generated dates are stored as instants. When a government changes its clocks
and a tz database release follows, every date generated before the update in
that zone keeps the old offset: the 18:00 class now shows at 19:00. Every run
of generation stores a fingerprint of the zone's UTC offsets up to the cursor
as ``zoneinfo`` loaded them (``EventSeries.zone_fingerprint``,
:mod:`revel_recurring.rules.zone_data`); a series whose fingerprint no longer
holds (``EventSeries.zone_data_changed``) has dates to move.

The fix is the plan of no change, ``plan_recurrence_change(series, {})``: for
such a series the cursor resets, and each generated date off the rule moves to
its partner, the rule's date of the same period at its new instant (same row,
same id and bookings, its slot the new one; a date moved by hand moves by the
same span as its slot). Until it is applied the series is held: the daily pass
generates nothing for it (a slot near the cursor may be a date already there at
its old instant) and "cancel stale dates" offers none of its dates.

:func:`series_changed_by_zone_data` lists the series with their moves;
:func:`apply_zone_data` applies one series' plan (one operation of kind
"zone_data": the people booked on moved dates are told as for any move);
:func:`apply_zone_data_unattended` is the daily pass's, per
``REVEL_RECURRING_ZONE_DATA_AUTO_APPLY``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import QuerySet
from django.utils.translation import gettext

from ..conf import recurring_settings
from ..exceptions import PlanOutdatedError, RecurrenceError
from ..models import EventSeries
from .holiday_data import count_drift_bookings
from .plans import AppliedPlan, PlannedOccurrence, RecurrencePlan, apply_recurrence_plan
from .plans.compute import Changes, compute_plan
from .plans.state import read_plan_states
from .toolbox.plumbing import now_utc

__all__ = [
    "AUTO_APPLY_MODES",
    "AppliedZoneData",
    "ZoneDataChange",
    "apply_zone_data",
    "apply_zone_data_unattended",
    "outdated_zone_series",
    "series_changed_by_zone_data",
]

#: What ``REVEL_RECURRING_ZONE_DATA_AUTO_APPLY`` accepts.
AUTO_APPLY_MODES = ("none", "unbooked", "all")


@dataclass(frozen=True)
class ZoneDataChange:
    """What the time-zone data loaded now changes in one series' generated dates.

    ``plan`` is the plan of no change (:func:`plan_recurrence_change` with ``{}``
    answers the same, hash included). ``moves`` holds the generated dates that
    move: each with ``moves_to`` (its new instant, the same wall-clock time
    under the new data) and its bookings. ``stuck`` holds the plan's other drift,
    dates with nowhere to move (their new instant already past, say): applying
    leaves them where they are.
    """

    series: EventSeries
    #: The rule's zone.
    zone: str
    plan: RecurrencePlan
    moves: tuple[PlannedOccurrence, ...]
    stuck: tuple[PlannedOccurrence, ...]

    @property
    def changes_dates(self) -> bool:
        """Whether any generated date moves."""
        return bool(self.moves)

    @property
    def booked(self) -> tuple[PlannedOccurrence, ...]:
        """The moving dates people booked (as counted when the change was read)."""
        return tuple(row for row in self.moves if row.bookings)


@dataclass(frozen=True)
class AppliedZoneData:
    """What :func:`apply_zone_data` did: the change as planned and the plan applied."""

    change: ZoneDataChange
    applied: AppliedPlan


def outdated_zone_series(queryset: QuerySet[EventSeries] | None = None) -> list[EventSeries]:
    """The active series of ``queryset`` (default: all) with generated dates whose zone has
    other UTC offsets now than when they were placed, in id order, with their rules.

    One query; the fingerprints are compared without the database (each zone's
    offsets computed once per process and year).
    """
    found = EventSeries.objects.all() if queryset is None else queryset
    candidates = (
        found.filter(
            is_active=True, last_generated_until__isnull=False, recurrence_rule__isnull=False
        )
        .exclude(zone_fingerprint="")
        .select_related("recurrence_rule")
        .order_by("pk")
    )
    return [series for series in candidates if series.zone_data_changed()]


def series_changed_by_zone_data(
    queryset: QuerySet[EventSeries] | None = None,
    *,
    now: dt.datetime | None = None,
    bookings: bool = True,
) -> list[ZoneDataChange]:
    """The series of ``queryset`` (default: all) placed with other time-zone data, each with
    the moves that put its dates from ``now`` on back at their rule's wall-clock times.

    Every series of :func:`outdated_zone_series` is answered, also those whose
    dates do not move (a change of offsets in the past only; applying records
    the data loaded now). Three queries whatever the number of series (the
    series, their rows from ``now`` on, their pending exdates), plus, with
    ``bookings`` and when a date moves, one call of the host's
    ``count_bookings_among`` for all of them. ``bookings=False`` leaves every
    count 0 (the system check only counts dates).
    """
    moment = now_utc(now)
    series_list = outdated_zone_series(queryset)
    if not series_list:
        return []
    states = read_plan_states([series.pk for series in series_list], now=moment)
    planned = []
    for series in series_list:
        rule = series.recurrence_rule
        assert rule is not None  # outdated_zone_series leaves out series without one
        state = states[series.pk]
        plan = compute_plan(series, rule, state, Changes(rule={}), now=moment, bookings={})
        planned.append((series, plan, state))
    counts = count_drift_bookings(planned) if bookings else {}
    changes = []
    for series, plan, state in planned:
        rule = series.recurrence_rule
        assert rule is not None
        if any(counts.get(row.id) for row in plan.drift):
            # Again with the counts, no query: the hash covers which drifted dates are
            # booked, and must be the one an apply computes.
            plan = compute_plan(series, rule, state, Changes(rule={}), now=moment, bookings=counts)
        changes.append(
            ZoneDataChange(
                series=series,
                zone=rule.timezone,
                plan=plan,
                moves=tuple(row for row in plan.drift if row.moves_to is not None),
                stuck=tuple(row for row in plan.drift if row.moves_to is None),
            )
        )
    return changes


def apply_zone_data(
    series: EventSeries,
    *,
    plan_hash: str | None = None,
    booked: str = "move",
    notify: object = None,
    now: dt.datetime | None = None,
) -> AppliedZoneData | None:
    """Move ``series``' generated dates to their rule's wall-clock times under the time-zone
    data loaded now; None when its dates were placed with this data already.

    The plan of no change is applied through :func:`apply_recurrence_plan`, under
    the series lock, in one transaction, as one operation of kind "zone_data":
    every moving date keeps its row (id, bookings, related rows) and gets its new
    instant and slot; the window is generated again (nothing is doubled: the
    moved rows hold the new slots), which records the data's fingerprint.
    ``booked``: "move" moves booked dates too, their people told as ``notify``
    says; "refuse" applies nothing when a moving date is booked (a
    ``RecurrenceError`` naming them, the daily pass's "unbooked"). Nothing is
    cancelled. With ``plan_hash``, only the plan of that hash is applied;
    either way a series changed in between (a date booked since, say) raises
    :class:`~revel_recurring.exceptions.PlanOutdatedError` with the fresh plan.
    """
    moment = now_utc(now)
    found = series_changed_by_zone_data(EventSeries.objects.filter(pk=series.pk), now=moment)
    if not found:
        return None
    change = found[0]
    if booked == "refuse" and change.booked:
        raise RecurrenceError(
            gettext("Booked dates would move: %(dates)s. Apply with their people told.")
            % {"dates": ", ".join(row.display for row in change.booked)}
        )
    applied = apply_recurrence_plan(
        series,
        plan_hash or change.plan.hash,
        {},
        cancel_drift="all",
        drift_ids=[row.id for row in change.moves],
        notify=notify,
        operation="zone_data",
        now=moment,
    )
    return AppliedZoneData(change=change, applied=applied)


def apply_zone_data_unattended(
    *, now: dt.datetime | None = None, mode: str | None = None
) -> list[AppliedZoneData]:
    """The daily pass's share: apply the time-zone data to every outdated series as
    ``mode`` (default ``REVEL_RECURRING_ZONE_DATA_AUTO_APPLY``) allows.

    "none": nothing. "unbooked": the series none of whose moving dates is booked
    (a series with a booked one waits, held, for ``manage.py revel_recurring_data
    --apply``). "all": every series, booked dates moving with their people told.
    A series changed meanwhile is left for the next pass.
    """
    chosen = recurring_settings.ZONE_DATA_AUTO_APPLY if mode is None else mode
    if chosen not in ("unbooked", "all"):
        return []
    moment = now_utc(now)
    done = []
    for change in series_changed_by_zone_data(now=moment):
        if chosen == "unbooked" and change.booked:
            continue
        try:
            applied = apply_recurrence_plan(
                change.series,
                change.plan.hash,
                {},
                cancel_drift="all",
                drift_ids=[row.id for row in change.moves],
                operation="zone_data",
                now=moment,
            )
        except PlanOutdatedError:
            continue
        done.append(AppliedZoneData(change=change, applied=applied))
    return done
