"""What the series change page lists: upcoming occurrences and the rule's next free slots.

Reads only, in a fixed number of queries whatever the number of occurrences (the
occurrences in one query, drift in one more, bookings in one more plus the host's
``booked_among``, the excluded slots in one more unless the caller read them);
everything else is rule maths.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.admin import AdminSite
from django.contrib.admin.utils import quote
from django.urls import reverse

from .. import rules
from ..exclusions import ExclusionReason, Exclusions, excluded_between
from ..instants import describe_instant
from ..models import EventSeries, get_event_model
from ..querysets import upcoming_q
from ..services.drift import detect_cadence_drift
from ..services.toolbox.bookings import booked_ids, series_zone
from ..services.toolbox.operation import host_tells_people
from ..slots import holiday_of
from .holidays import holiday_note

#: At most this many rows in the upcoming list and the slot picker.
UPCOMING_LIMIT = 100
SLOT_PICKER_WEEKS = 52


@dataclass(frozen=True)
class UpcomingRow:
    """One line of the upcoming list: a materialized occurrence or a cancelled free slot."""

    instant: dt.datetime
    #: The instant as the page shows it (``describe_instant``, in the rule's zone).
    label: str
    status: str
    event_id: Any
    admin_url: str | None
    modified: bool
    drifted: bool
    cancelled: bool
    #: The host says it holds bookings: cancelling it needs "with its bookings".
    booked: bool = False
    #: How many people booked on it would be told of its cancelling or restoring
    #: (0 when the host does not say who is booked).
    people: int = 0
    #: Why a cancelled slot that was never materialized (or whose occurrence was
    #: deleted) is excluded; None for the rows of occurrences.
    excluded_because: ExclusionReason | None = None
    #: The slot "Change this and following…" splits at (the storage form, UTC), or
    #: None when the series cannot be split there (not a date of the rule, the
    #: rule's first date, or a date already past).
    split_at: str | None = None
    #: The row's slot is an extra date of the series (RFC 5545 RDATE), not a date
    #: of its rule.
    extra: bool = False
    #: What a holiday did to the date, in the active language ("Skipped: ...",
    #: "Moved from ... (...)"); "" when no holiday falls on its slot.
    holiday_note: str = ""
    #: The enrolled users who skipped the date, and those it could not be booked for
    #: (with the site's reason), as the page names them (``admin/enrolments.py``).
    skipped_by: tuple[str, ...] = ()
    refused_for: tuple[str, ...] = ()

    @property
    def slot(self) -> str:
        """The instant the cancel / restore buttons post (the storage form, UTC)."""
        return rules.format_instant(self.instant)


def people_by_row(model: Any, booked: set[Any]) -> dict[Any, int]:
    """How many distinct people are booked on each of ``booked`` (pks): one call of the
    host's ``people_booked_among``, none without booked rows or without the hook."""
    if not booked or not host_tells_people():
        return {}
    answer = model.people_booked_among([model(pk=pk) for pk in booked])
    return {pk: len({person.key for person in people}) for pk, people in answer.items()}


def upcoming_rows(
    series: EventSeries,
    *,
    admin_site: AdminSite,
    now: dt.datetime,
    excluded: Exclusions | None = None,
) -> tuple[list[UpcomingRow], bool]:
    """The next occurrences from ``now`` in start order, and whether the list was cut.

    Excluded slots ahead of ``now`` without an occurrence (cancelled before they
    were materialized, or their occurrence deleted) are listed too, as cancelled,
    so they can be restored from the same place; so are the slots a holiday skips
    up to the window's end, each with a note naming the holiday, as is each
    occurrence a holiday moved or falls on. ``excluded`` are the series'
    exclusions from ``now`` on when the caller read them already.
    """
    model = get_event_model()
    # Labels are formatted here, not in the template: a template would show an
    # aware datetime in the site's zone, not the rule's.
    zone = series_zone(series)
    start, status = model.RECURRING_START_FIELD, model.RECURRING_STATUS_FIELD
    values = list(
        model._default_manager.filter(
            upcoming_q(model, now=now, include_cancelled=True), series_id=series.pk
        )
        .order_by(start, "pk")
        .values_list("pk", start, status, "is_modified", "recurrence_id")[: UPCOMING_LIMIT + 1]
    )
    truncated = len(values) > UPCOMING_LIMIT
    values = values[:UPCOMING_LIMIT]
    drifted = set(detect_cadence_drift(series, now=now))
    # One question to the host for the page (booked_among), on rows holding only pks.
    booked = booked_ids(model._default_manager.filter(pk__in=[row[0] for row in values]).only("pk"))
    # Who would be told, per booked date: one more question, for the booked rows only.
    people = people_by_row(model, booked)
    url_name = f"admin:{model._meta.app_label}_{model._meta.model_name}_change"
    linked = admin_site.is_registered(model)
    rows = [
        UpcomingRow(
            instant=rules.to_utc(value),
            label=describe_instant(value, zone),
            status=model.status_label(state),
            event_id=pk,
            # quote(): the admin's own escaping of text keys holding "/" or "_".
            admin_url=(
                reverse(url_name, args=[quote(pk)], current_app=admin_site.name) if linked else None
            ),
            modified=bool(modified),
            drifted=pk in drifted,
            cancelled=model.is_status(state, model.RECURRING_STATUS_CANCELLED),
            booked=pk in booked,
            people=people.get(pk, 0),
        )
        for pk, value, state, modified, _ in values
    ]
    taken = {rules.to_utc(slot) for *_, slot in values if slot is not None} | {
        row.instant for row in rows
    }
    last = rows[-1].instant if truncated else None
    if excluded is None:
        excluded = excluded_between(series, now, last)
    for instant, exclusion in excluded.items():
        if instant < now or instant in taken or (last is not None and instant > last):
            continue
        rows.append(_excluded_row(instant, zone, exclusion.reason))
    rows += _holiday_skips(series, excluded, taken, now=now, last=last)
    rows.sort(key=lambda row: row.instant)
    slots = {pk: rules.to_utc(slot) for pk, *_, slot in values if slot is not None}
    rows = _with_holiday_notes(rows, slots, excluded, zone)
    extra = series.extra_date_instants
    if extra:
        # An occurrence is an extra date by its slot: moved by hand, it still is one.
        rows = [
            replace(row, extra=True)
            if (slots.get(row.event_id) if row.event_id is not None else row.instant) in extra
            else row
            for row in rows
        ]
    return _with_split_points(series, rows, slots, now=now), truncated


def _holiday_skips(
    series: EventSeries,
    excluded: Exclusions,
    taken: set[dt.datetime],
    *,
    now: dt.datetime,
    last: dt.datetime | None,
) -> list[UpcomingRow]:
    """The slots a holiday skips from ``now`` to ``last`` (or the window's end), as rows.

    Rule maths only: holiday exclusions are answered per slot, never listed.
    """
    placer = excluded.holidays
    if placer is None or placer.rule is None:
        return []
    end = last or max(now + dt.timedelta(weeks=series.generation_window_weeks), *taken, now)
    zone = series_zone(series)
    return [
        _excluded_row(slot, zone, ExclusionReason.HOLIDAY)
        for slot in rules.occurrences_between(placer.spec, now, end, inclusive=True)
        if slot not in taken and excluded.reason(slot) is ExclusionReason.HOLIDAY
    ]


def _with_holiday_notes(
    rows: list[UpcomingRow],
    slots: dict[Any, dt.datetime],
    excluded: Exclusions,
    zone: str | None,
) -> list[UpcomingRow]:
    """``rows`` with the note of each date a holiday touched, by its slot."""
    if excluded.holidays is None:
        return rows
    noted = []
    for row in rows:
        slot = slots.get(row.event_id) if row.event_id is not None else row.instant
        fate, name = (None, "") if slot is None else holiday_of(excluded.holidays, slot)
        live = row.event_id is not None and not row.cancelled
        note = holiday_note(fate, name, zone, live=live, moved=row.instant != slot)
        noted.append(replace(row, holiday_note=note) if note else row)
    return noted


def _with_split_points(
    series: EventSeries, rows: list[UpcomingRow], slots: dict[Any, dt.datetime], *, now: dt.datetime
) -> list[UpcomingRow]:
    """``rows`` with ``split_at`` set where the split service would accept the row's slot.

    A row splits at its slot (``recurrence_id``), not its start: an occurrence
    moved by hand belongs to the half holding its slot (decision 0035).
    """
    rule: Any = series.recurrence_rule if series.recurrence_rule_id is not None else None
    if rule is None or not rows:
        return rows
    spec = rule.to_spec()
    wanted = [slots.get(row.event_id) if row.event_id is not None else row.instant for row in rows]
    known = [slot for slot in wanted if slot is not None and slot >= now]
    if not known:
        return rows
    # One walk of the rule over the listed range, and one for its first date.
    dates = set(rules.occurrences_between(spec, min(known), max(known), inclusive=True))
    first = rules.first_occurrence_after(spec, rule.dtstart, inclusive=True)
    return [
        replace(row, split_at=rules.format_instant(slot))
        if slot is not None and slot >= now and slot in dates and slot != first
        else row
        for row, slot in zip(rows, wanted, strict=True)
    ]


def extra_date_rows(series: EventSeries) -> list[tuple[str, str]]:
    """The series' extra dates, past ones too: (posted value, label in the rule's zone)."""
    zone = series_zone(series)
    return [
        (rules.format_instant(instant), describe_instant(instant, zone))
        for instant in sorted(series.extra_date_instants)
    ]


def free_slots(
    series: EventSeries, *, now: dt.datetime, excluded: Exclusions | None = None
) -> list[tuple[str, str]]:
    """The rule's next slots that are not excluded: (posted value, local label) pairs.

    The date picker of "Cancel a date" offers exactly these, so an organiser can
    only pick a date the rule really has (materialized or not yet). ``excluded``
    are the series' exclusions from ``now`` on when the caller read them already.
    """
    rule: Any = series.recurrence_rule
    if rule is None:
        return []
    horizon = now + dt.timedelta(weeks=SLOT_PICKER_WEEKS)
    if excluded is None:
        excluded = excluded_between(series, now, horizon)
    slots = rules.occurrences_between(series.dates_spec(rule), now, horizon, inclusive=True)
    placer = excluded.holidays
    # A date a holiday moved is named where it takes place; the slot is what is posted.
    return [
        (
            rules.format_instant(slot),
            describe_instant(placer.start_of(slot) if placer else slot, rule.timezone),
        )
        for slot in slots
        if slot not in excluded
    ][:UPCOMING_LIMIT]


def _excluded_row(instant: dt.datetime, zone: Any, reason: ExclusionReason) -> UpcomingRow:
    """The upcoming row of a slot that no occurrence takes: excluded for ``reason``."""
    model = get_event_model()
    return UpcomingRow(
        instant=instant,
        label=describe_instant(instant, zone),
        status=model.status_label(model.RECURRING_STATUS_CANCELLED),
        event_id=None,
        admin_url=None,
        modified=False,
        drifted=False,
        cancelled=True,
        excluded_because=reason,
    )
