"""The change plan page: a save that changes the rule or the window is confirmed first.

The change form does not write such a save: it computes the plan
(``plan_recurrence_change``) and the page shows it, the dates now beside the
dates after the change (as Indico's room booking shows a calendar before and
after). The page re-posts the change form as it was typed (hidden inputs) with
the plan's hash and the drifted dates ticked for cancelling; the form then
applies exactly that plan (``apply_recurrence_plan``) and saves the other
fields with ``update_series``, both in the form's one savepoint
(docs/decisions/0034-admin-change-plan-page.md).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..describe import describe_series
from ..holiday_settings import holiday_settings_of
from ..instants import describe_instant
from ..models import EventSeries, RecurrenceRule
from ..services.editing import SeriesUpdate, merge_rule_changes
from ..services.plans import (
    HOLIDAYS_KEY,
    WINDOW_KEY,
    AppliedPlan,
    PlannedOccurrence,
    RecurrencePlan,
)
from ..services.plans.holidays_ahead import AHEAD_MONTHS, HolidayAhead, plan_holidays_ahead
from ..services.plans.judging import local_in
from .clock import current_time
from .holidays import ahead_note, describe_holidays, moved_note
from .telling import NOTIFY, NOTIFY_SHOWN, telling_context

#: The hidden input carrying the hash of the plan the page showed.
PLAN_HASH = "_plan_hash"
#: The checkboxes of the drifted dates to cancel (their pks).
PLAN_CANCEL = "_plan_cancel"
#: What the page does not carry over: the token is rendered afresh, the plan's own
#: inputs come from the page, and the confirm button is always "save and continue".
_NOT_CARRIED = frozenset(
    {
        "csrfmiddlewaretoken",
        PLAN_HASH,
        PLAN_CANCEL,
        NOTIFY,
        NOTIFY_SHOWN,
        "_save",
        "_continue",
        "_addanother",
        "_saveasnew",
    }
)


@dataclass(frozen=True)
class PlannedSave:
    """What the change form did when it applied a confirmed plan."""

    applied: AppliedPlan
    #: The other fields, saved after the plan in the same savepoint.
    update: SeriesUpdate
    #: The occurrences generated because the same save resumed the series.
    generated: list[Any] = field(default_factory=list)


def schedule_changes(
    rule: RecurrenceRule | None,
    rule_values: Mapping[str, Any],
    *,
    window: int,
    window_changed: bool,
    holidays: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The plan's ``changes`` when the form really changes the rule, the window or the
    holiday settings (``holidays``: the new ones, None when unchanged), else None.

    A series without a rule saves directly (the service says what is missing). A
    rule the merge refuses saves directly too: ``update_series`` refuses it the
    same way, onto the form.
    """
    if rule is None:
        return None
    try:
        _merged, changed = merge_rule_changes(rule, rule_values)
    except ValidationError:
        return None
    if not changed and not window_changed and not holidays:
        return None
    changes = {**rule_values, WINDOW_KEY: window}
    if holidays:
        changes[HOLIDAYS_KEY] = dict(holidays)
    return changes


def ticked_drift(data: Any) -> list[str]:
    """The drifted dates the page ticked (pks as posted): each moves or is cancelled as
    the page said; an unticked one stays as it is. Nothing ticked is an empty list, so
    nothing moves or goes (``"none"`` would still move the dates without bookings)."""
    if hasattr(data, "getlist"):
        values = data.getlist(PLAN_CANCEL)
    else:
        # A host reusing the form may bind it to a plain dict.
        found = (data or {}).get(PLAN_CANCEL) or []
        values = [found] if isinstance(found, str) else list(found)
    return [str(value) for value in values if value]


@dataclass(frozen=True)
class PlanLine:
    """One date of the page: when, and what happens to it."""

    start: dt.datetime
    display: str
    #: "stay", "drift" (no date to go to: cancelled when ticked), "moves" (to
    #: ``moves_to`` when ticked) or "new".
    fate: str
    id: Any = None
    bookings: int = 0
    is_modified: bool = False
    #: What a holiday does to the date ("Moved from ... (Mariä Empfängnis)"), "" for nothing.
    note: str = ""
    #: For a date that moves: where to, for a person (the rule's zone), and when (UTC).
    moves_to: str = ""
    moves_to_start: dt.datetime | None = None
    #: How many enrolled users it holds (an existing date) or would book (a new one).
    enrolled: int = 0

    @classmethod
    def of(cls, row: PlannedOccurrence, fate: str, zone: str | None = None) -> PlanLine:
        """A materialized date of the plan (``stay``, or ``drift``/``moves``)."""
        if fate != "stay" and row.moves_to is not None and not row.is_modified:
            return cls(
                row.start,
                row.display,
                "moves",
                row.id,
                row.bookings,
                row.is_modified,
                moves_to=_where_to(row, zone),
                moves_to_start=row.moves_to,
                enrolled=row.enrolled,
            )
        return cls(
            row.start,
            row.display,
            fate,
            row.id,
            row.bookings,
            row.is_modified,
            enrolled=row.enrolled,
        )


def _where_to(row: PlannedOccurrence, zone: str | None) -> str:
    """Where a date moves, for a person: the time alone on the same day ("19:00"),
    the whole date otherwise."""
    assert row.moves_to is not None
    if zone is not None and local_in(row.moves_to, zone).date() == row.local.date():
        return local_in(row.moves_to, zone).strftime("%H:%M")
    return describe_instant(row.moves_to, zone)


def plan_lines(plan: RecurrencePlan) -> tuple[list[PlanLine], list[PlanLine]]:
    """The plan's dates that stay and those that drift (or move), as lines of a page."""
    return (
        [PlanLine.of(row, "stay") for row in plan.stay],
        [PlanLine.of(row, "drift", plan.timezone) for row in plan.drift],
    )


def moved_lines(drift: list[PlanLine], zone: str | None) -> list[PlanLine]:
    """The dates that move, at their new date: how the column "after" shows them."""
    return [
        dataclasses.replace(
            line, start=line.moves_to_start, display=describe_instant(line.moves_to_start, zone)
        )
        for line in drift
        if line.fate == "moves" and line.moves_to_start is not None
    ]


def carried_fields(
    request: HttpRequest, skipped: frozenset[str] = frozenset()
) -> list[tuple[str, str]]:
    """The posted values a confirmation page posts back as hidden inputs.

    Everything but the CSRF token, the plan's own inputs, the submit buttons and
    ``skipped``.
    """
    return [
        (name, value)
        for name, values in request.POST.lists()
        if name not in _NOT_CARRIED and name not in skipped
        for value in values
    ]


def plan_page(
    request: HttpRequest,
    context: Mapping[str, Any],
    *,
    series: EventSeries,
    plan: RecurrencePlan,
    outdated: bool,
    holidays: Mapping[str, Any] | None = None,
    changes: Mapping[str, Any] | None = None,
) -> TemplateResponse:
    """The confirmation page of ``plan`` for ``series``, carrying the posted change form.

    ``holidays`` are the holiday settings the form posted (the series' own when None);
    ``changes`` the plan's changes, whose holidays of the next twelve months the page
    lists (the posted holiday settings alone when None: a host's own form).
    """
    fresh = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk)
    rule = fresh.recurrence_rule
    stay, drift = plan_lines(plan)
    new = [
        PlanLine(
            date.start,
            date.display,
            "new",
            note=(
                moved_note(date.shifted_from, date.holiday, plan.timezone)
                if date.shifted_from is not None
                else ""
            ),
            enrolled=date.enrolled,
        )
        for date in plan.new
    ]
    before = holiday_settings_of(fresh)
    after = holidays if holidays is not None else before
    if changes is None:
        changes = {HOLIDAYS_KEY: dict(holidays)} if holidays is not None else None
    telling = telling_context(plan.people_told)
    ticked = starts_ticked(drift, tick_booked_moves=telling["tick_booked_moves"])
    page = {
        **context,
        "title": _("Confirm the new schedule of %(name)s") % {"name": fresh.name},
        "series": fresh,
        "plan": plan,
        # The same sentence as the plan's: what the change leaves alone reads the same.
        "old_description": describe_series(fresh, rule) if rule is not None else "—",
        "old_window": fresh.generation_window_weeks,
        "old_holidays": describe_holidays(before),
        "new_holidays": describe_holidays(after),
        "ahead_title": ngettext(
            "Holidays in the next %(count)d month",
            "Holidays in the next %(count)d months",
            AHEAD_MONTHS,
        )
        % {"count": AHEAD_MONTHS},
        "ahead_calendar": bool(after.get("country")),
        "ahead": ahead_lines(plan_holidays_ahead(fresh, changes, now=current_time())),
        "new_lines": new,
        "before": sorted([*stay, *drift], key=lambda line: line.start),
        # Drifted dates that stay unless ticked (booked) or always (moved by hand).
        "after": sorted(
            [
                *stay,
                *new,
                # As the page starts: unbooked dates ticked, booked ones not (but
                # for those that move when their people are told).
                *moved_lines([line for line in drift if line.id in ticked], plan.timezone),
                *(
                    line
                    for line in drift
                    if line.bookings and not line.is_modified and line.id not in ticked
                ),
                *(line for line in drift if line.is_modified),
            ],
            key=lambda line: line.start,
        ),
        "drift": drift,
        "any_booked_drift": bool(plan.booked_drift),
        "outdated": outdated,
        # The same save resumes the series: the plan (made for it paused) lists no
        # new dates, they are generated when the organiser confirms.
        "resumes": not fresh.is_active and bool(request.POST.get("is_active")),
        "carried": carried_fields(request),
        "plan_hash_name": PLAN_HASH,
        "plan_cancel_name": PLAN_CANCEL,
        **telling,
    }
    return TemplateResponse(request, "admin/revel_recurring/eventseries/change_plan.html", page)


def starts_ticked(drift: list[PlanLine], *, tick_booked_moves: bool) -> set[Any]:
    """The ids of the drifted dates the page ticks as it starts: those without bookings,
    and the booked ones that move when their people are told (``_drift_fates.html``)."""
    return {
        line.id
        for line in drift
        if not line.bookings or (tick_booked_moves and line.fate == "moves")
    }


@dataclass(frozen=True)
class AheadLine:
    """A date of the months ahead on a holiday, as the plan page lists it."""

    slot: dt.datetime
    display: str
    holiday: str
    #: skipped, shifted, kept or restored.
    outcome: str
    #: "moved to Fri 7 May 2027 18:30 (Europe/Berlin)", "skipped", "kept".
    note: str
    cancelled: bool = False


def ahead_lines(ahead: tuple[HolidayAhead, ...]) -> list[AheadLine]:
    """The holidays ahead as lines of the plan page."""
    return [
        AheadLine(
            item.slot,
            item.display,
            item.holiday,
            item.outcome.value,
            ahead_note(item),
            item.cancelled,
        )
        for item in ahead
    ]


def kept_booked(applied: AppliedPlan) -> list[str]:
    """The booked drifted dates left standing: unticked ones and those the service kept."""
    cancelled = {str(pk) for pk in applied.cancelled}
    # The service names only booked dates it was asked to cancel and did not; the
    # ones left unticked were never asked about, yet the organiser is told of them.
    unticked = {
        str(row.id): row.display
        for row in applied.plan.booked_drift
        if not row.is_modified and str(row.id) not in cancelled
    }
    unticked.update({str(date.id): date.display for date in applied.kept_booked})
    return list(unticked.values())


def report_applied(request: HttpRequest, series: EventSeries, saved: PlannedSave) -> None:
    """Tell in the page's terms what happened: the dates moved (and to which time), created
    and cancelled; name the booked dates kept where they were, and those moved by hand."""
    applied = saved.applied
    created, cancelled = len(applied.created) + len(saved.generated), len(applied.cancelled)
    messages.success(
        request,
        _("%(name)s: new schedule applied: %(moved)s, %(created)s, %(cancelled)s.")
        % {
            "name": series.name,
            "moved": moved_text(applied.plan.drift, applied.moved, applied.plan.timezone),
            "created": ngettext("%(count)d new date", "%(count)d new dates", created)
            % {"count": created},
            "cancelled": ngettext(
                "%(count)d date cancelled", "%(count)d dates cancelled", cancelled
            )
            % {"count": cancelled},
        },
    )
    kept = kept_booked(applied)
    if kept:
        messages.warning(
            request,
            ngettext(
                "%(name)s: %(count)d booked date kept where it was (left unticked): %(dates)s.",
                "%(name)s: %(count)d booked dates kept where they were (left unticked): %(dates)s.",
                len(kept),
            )
            % {"name": series.name, "count": len(kept), "dates": ", ".join(kept)},
        )
    if applied.kept_modified:
        messages.info(
            request,
            _("%(name)s: dates moved by hand are kept: %(dates)s.")
            % {
                "name": series.name,
                "dates": ", ".join(row.display for row in applied.kept_modified),
            },
        )


def moved_text(drift: tuple[PlannedOccurrence, ...], moved: list[Any], zone: str) -> str:
    """How many dates moved, and where when they all went alike: "6 dates moved to 19:00"
    (a change of time), "6 dates moved to Wednesday, 19:00" (of weekday), "6 dates moved"."""
    done = {str(pk) for pk in moved}
    rows = [row for row in drift if str(row.id) in done and row.moves_to is not None]
    count = len(done)
    targets = [local_in(row.moves_to, zone) for row in rows if row.moves_to is not None]
    times = {target.strftime("%H:%M") for target in targets}
    if count and len(times) == 1 and len(rows) == count:
        time = times.pop()
        if all(
            row.local.date() == target.date() for row, target in zip(rows, targets, strict=True)
        ):
            return ngettext(
                "%(count)d date moved to %(time)s", "%(count)d dates moved to %(time)s", count
            ) % {"count": count, "time": time}
        if len({target.weekday() for target in targets}) == 1:
            return ngettext(
                "%(count)d date moved to %(weekday)s, %(time)s",
                "%(count)d dates moved to %(weekday)s, %(time)s",
                count,
            ) % {"count": count, "weekday": date_format(targets[0], "l"), "time": time}
    return ngettext("%(count)d date moved", "%(count)d dates moved", count) % {"count": count}


__all__ = [
    "PLAN_CANCEL",
    "PLAN_HASH",
    "AheadLine",
    "PlanLine",
    "PlannedSave",
    "ahead_lines",
    "kept_booked",
    "moved_lines",
    "moved_text",
    "plan_page",
    "report_applied",
    "schedule_changes",
    "ticked_drift",
]
