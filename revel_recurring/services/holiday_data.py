"""Holiday data updates: the generated dates a newer ``holidays`` release would change.

Every generation that places all of a series' dates under a holiday calendar
stores the installed ``holidays`` version on the series (``holidays_version``).
A later release may know a holiday the older one did not (a new public holiday,
a corrected date) or drop one, so dates already generated may now sit on a
holiday, or a date an older holiday skipped may take place after all.

The difference is the plan of no change, ``plan_recurrence_change(series, {})``:
for a series placed with another release its generation cursor resets
(:func:`~revel_recurring.services.plans.compute.holiday_data_changed`), so the
plan lists the generated dates the installed data no longer places where they
are (``drift``) and the dates that now appear (``new``). This module finds those
series for many at once (:func:`series_changed_by_holiday_data`) and applies
the difference through the plan flow (:func:`apply_holiday_data`): dates a
holiday now skips are cancelled unless booked or moved by hand, the dates that
appear are created, and the series is marked as placed with the installed data.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext

from .. import rules
from ..exceptions import RecurrenceError
from ..exclusions import ExclusionReason, excluded_between
from ..holiday_rules import HolidayPolicy, data_version
from ..instants import describe_instant
from ..models import EventSeries, RecurrenceRule, get_event_model
from .plans import (
    AppliedPlan,
    PlannedDate,
    PlannedOccurrence,
    RecurrencePlan,
    apply_recurrence_plan,
)
from .plans.compute import Changes, compute_plan
from .plans.state import PlanState, read_plan_states
from .toolbox.plumbing import now_utc

__all__ = [
    "AppliedHolidayData",
    "HolidayDataChange",
    "HolidayDrift",
    "apply_holiday_data",
    "outdated_series",
    "series_changed_by_holiday_data",
]


@dataclass(frozen=True)
class HolidayDrift:
    """A generated date the installed holiday data no longer places where it is."""

    #: The occurrence, as the plan lists it under ``drift`` (with its bookings).
    occurrence: PlannedOccurrence
    #: The holiday behind the change in the active language ("" when its date
    #: moves back off a holiday the installed data no longer knows).
    holiday: str
    #: Policy ``shift``: where its date takes place now (UTC); None when a holiday
    #: skips it.
    moves_to: dt.datetime | None = None
    #: ``moves_to`` on the rule's clock ("" when None).
    moves_to_display: str = ""

    @property
    def skipped(self) -> bool:
        """Whether a holiday now skips the date (applying cancels it unless booked)."""
        return self.moves_to is None


@dataclass(frozen=True)
class HolidayDataChange:
    """What the installed holiday data changes in one series' generated dates.

    ``plan`` is the plan of no change (:func:`plan_recurrence_change` with ``{}``
    answers the same, hash included). ``drift`` holds the plan's drifted dates a
    holiday now skips or moves; drift of other causes (dates left behind by a
    cadence change) is not listed and never cancelled here. ``appearing`` holds
    the plan's new dates that the older data kept from being generated; the
    plan's other new dates are the next days of the window, due anyway.
    """

    series: EventSeries
    #: The ``holidays`` release the generated dates were placed with.
    stored_version: str
    #: The installed one.
    installed_version: str
    plan: RecurrencePlan
    drift: tuple[HolidayDrift, ...]
    appearing: tuple[PlannedDate, ...]

    @property
    def changes_dates(self) -> bool:
        """Whether any generated date would be cancelled or moved, or any date appear."""
        return bool(self.drift or self.appearing)

    @property
    def cancellable(self) -> tuple[Any, ...]:
        """Ids of the drifted dates applying may cancel: skipped by a holiday, not moved
        or edited by hand. Booked ones among them are kept by the apply itself (it asks
        under the lock)."""
        return tuple(
            item.occurrence.id
            for item in self.drift
            if item.skipped and not item.occurrence.is_modified
        )


@dataclass(frozen=True)
class AppliedHolidayData:
    """What :func:`apply_holiday_data` did: the change as planned and the plan applied."""

    change: HolidayDataChange
    applied: AppliedPlan


def outdated_series(queryset: QuerySet[EventSeries] | None = None) -> QuerySet[EventSeries]:
    """The active series of ``queryset`` (default: all) with a holiday calendar and
    generated dates, placed with another ``holidays`` release than the installed one."""
    found = EventSeries.objects.all() if queryset is None else queryset
    return (
        found.filter(
            is_active=True, last_generated_until__isnull=False, recurrence_rule__isnull=False
        )
        .exclude(holiday_country="")
        .exclude(holidays_version=data_version())
    )


def series_changed_by_holiday_data(
    queryset: QuerySet[EventSeries] | None = None,
    *,
    now: dt.datetime | None = None,
    bookings: bool = True,
) -> list[HolidayDataChange]:
    """The series of ``queryset`` (default: all) placed with other holiday data, each with
    what the installed ``holidays`` release changes in its dates from ``now`` on.

    Every series of :func:`outdated_series` is answered, in id order, also those
    whose dates do not change (``changes_dates`` False; applying still records
    the installed release on them). Three queries whatever the number of series
    (the series with their rules, every occurrence they have from ``now`` on with
    their templates, their pending exdates), plus, with ``bookings`` and when a
    date would drift, one call of the host's ``count_bookings_among`` for all the
    drifted dates together; the rest is computed without the database.
    ``bookings=False`` leaves every count 0 (the system check only counts dates);
    a plan's hash then takes no drifted date for booked: an apply with
    ``cancel_drift="unbooked"`` takes it, one with ``"all"`` refuses it when one is.
    """
    moment = now_utc(now)
    series_list = list(outdated_series(queryset).select_related("recurrence_rule").order_by("pk"))
    if not series_list:
        return []
    states = read_plan_states([series.pk for series in series_list], now=moment)
    planned: list[tuple[EventSeries, RecurrencePlan, PlanState]] = []
    for series in series_list:
        rule = series.recurrence_rule
        assert rule is not None  # outdated_series leaves out series without one
        state = states[series.pk]
        plan = compute_plan(series, rule, state, Changes(rule={}), now=moment, bookings={})
        planned.append((series, plan, state))
    counts = count_drift_bookings(planned) if bookings else {}
    installed = data_version()
    changes = []
    for series, plan, state in planned:
        rule = series.recurrence_rule
        assert rule is not None
        if any(counts.get(row.id) for row in plan.drift):
            # Again with the counts, no query: the hash covers which drifted dates
            # are booked, and must be the one an apply computes.
            plan = compute_plan(series, rule, state, Changes(rule={}), now=moment, bookings=counts)
        changes.append(
            HolidayDataChange(
                series=series,
                stored_version=series.holidays_version,
                installed_version=installed,
                plan=plan,
                drift=_holiday_drift(series, rule, plan, state),
                appearing=_appearing(series, plan),
            )
        )
    return changes


def apply_holiday_data(
    series: EventSeries,
    *,
    plan_hash: str | None = None,
    notify: object = None,
    now: dt.datetime | None = None,
) -> AppliedHolidayData | None:
    """Apply what the installed holiday data changes in ``series``' dates; None when its
    dates were placed with the installed data already (nothing to apply).

    The plan of no change is applied through :func:`apply_recurrence_plan`, under the
    series lock, in one transaction: the dates a holiday now skips are cancelled
    unless booked (named in ``applied.kept_booked``) or moved by hand
    (``kept_modified``); the window is generated again, creating the dates that
    appear, which records the installed release on the series. A date policy
    ``shift`` now places on another day is left where it is (cancelling it would
    cancel its date; move it by hand). Other drift is left alone. With
    ``plan_hash``, only the plan of that hash is applied; otherwise the plan just
    computed. Either way a series changed in between raises
    :class:`~revel_recurring.exceptions.PlanOutdatedError` with the fresh plan. The
    people booked on the dates it cancels are told as ``notify`` says (one
    ``series_dates_changed`` of kind "holiday_data").
    """
    moment = now_utc(now)
    # Booked dates are asked under the lock ("unbooked"): no count needed here.
    found = series_changed_by_holiday_data(
        EventSeries.objects.filter(pk=series.pk), now=moment, bookings=False
    )
    if not found:
        return None
    change = found[0]
    if change.series.zone_data_changed():
        # Its plan would move every date to the new offsets, but only the holiday's
        # dates are named here: the others would stay and be generated again.
        raise RecurrenceError(
            gettext(
                "The time-zone data of %(zone)s changed since the dates of %(series)s were "
                "placed: apply it first (manage.py revel_recurring_data --apply)."
            )
            % {"zone": change.plan.timezone, "series": change.series.name}
        )
    applied = apply_recurrence_plan(
        series,
        plan_hash or change.plan.hash,
        {},
        cancel_drift="unbooked",
        drift_ids=change.cancellable,
        notify=notify,
        operation="holiday_data",
        now=moment,
    )
    return AppliedHolidayData(change=change, applied=applied)


def count_drift_bookings(
    planned: Iterable[tuple[EventSeries, RecurrencePlan, PlanState]],
) -> dict[Any, int]:
    """Bookings of every drifted date of every plan: one call of the host's hook."""
    events: list[Any] = []
    for _, plan, state in planned:
        drifted = {row.id for row in plan.drift}
        events.extend(row.event for row in state.rows if row.id in drifted)
    if not events:
        return {}
    counts = get_event_model().count_bookings_among(events)
    return {pk: int(count) for pk, count in counts.items()}


def _holiday_drift(
    series: EventSeries, rule: RecurrenceRule, plan: RecurrencePlan, state: PlanState
) -> tuple[HolidayDrift, ...]:
    """The plan's drifted dates that a holiday skips or (policy ``shift``) moves now.

    A date counts when its slot is still a date of the rule, excluded by nothing
    but a holiday: what moved it is the holiday data, not a change of the rule.
    """
    drifting = [row for row in plan.drift if row.slot is not None]
    if not drifting:
        return ()
    slots = [row.slot for row in drifting if row.slot is not None]
    earliest, latest = min(slots), max(slots)
    spec = series.dates_spec(rule)
    of_rule = set(rules.occurrences_between(spec, earliest, latest, inclusive=True))
    excluded = excluded_between(series, earliest, latest, pending=state.pending, rule=rule)
    placer = excluded.holidays
    holiday_rule = series.holiday_rule
    if placer is None or holiday_rule is None:
        return ()
    found = []
    for row in drifting:
        slot = row.slot
        assert slot is not None
        if slot not in of_rule or excluded.reason(slot) not in (None, ExclusionReason.HOLIDAY):
            continue
        fate = placer.fate(slot)
        if fate is not None and not fate.takes_place:
            found.append(HolidayDrift(row, holiday_rule.name_on(fate.day) or ""))
            continue
        placed = slot if fate is None else fate.start
        if holiday_rule.policy is not HolidayPolicy.SHIFT or placed == row.start:
            continue
        # The holiday now on its day, or the one its slot moves away from.
        name = holiday_rule.name_on(row.local.date()) or (
            holiday_rule.name_on(fate.day) if fate is not None else None
        )
        found.append(
            HolidayDrift(
                row,
                name or "",
                moves_to=placed,
                moves_to_display=describe_instant(placed, plan.timezone),
            )
        )
    return tuple(found)


def _appearing(series: EventSeries, plan: RecurrencePlan) -> tuple[PlannedDate, ...]:
    """The plan's new dates whose slot lies before the stored cursor.

    Every slot up to the cursor was generated or excluded when the window was
    placed; one free now was kept out by the older holiday data. Slots after it
    are simply due.
    """
    cursor = series.last_generated_until
    if cursor is None:
        return ()
    return tuple(date for date in plan.new if (date.shifted_from or date.start) <= cursor)
