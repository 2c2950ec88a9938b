"""One date beyond the window, materialized when someone books it.

A series materializes a rolling window of a few weeks; a person who wants a date
in six months books it through the host's booking code, which calls
:func:`materialize_date` first: that one date becomes a row now, through the
same generation floor as every other date, and the daily pass finds it taken when
the window reaches it (docs/decisions/0063-dates-beyond-the-window.md). The
dates a person may see there are read by :mod:`revel_recurring.beyond_window`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from .. import rules
from ..context import suppress_event_notifications
from ..exceptions import SeriesNotReadyError
from ..exclusions import FOLDED, ExclusionReason, Exclusions, excluded_between, placed_dates
from ..holiday_placement import SHIFT_REACH
from ..instants import describe_instant
from ..models import EventSeries, RecurrenceRule, get_event_model
from ..rules.zone_data import widen_fingerprint
from ..slots import holiday_of
from .generation.floor import materialize_locked
from .toolbox.exdates import absorb_pending_exdates
from .toolbox.locking import lock_series, retry_on_lock_conflict
from .toolbox.operation import dates_operation
from .toolbox.plumbing import load_rule, mirror_columns, now_utc

#: The key of a refused date in the errors (the API body's ``start``).
START_KEY = "start"


@dataclass(frozen=True)
class MaterializedDate:
    """What :func:`materialize_date` answered: the row of the date, and whether it is new.

    ``created`` is False when a row held the date already (materialized by the
    window, or by an earlier call): the same row is answered, nothing written.
    """

    occurrence: Any
    created: bool


def materialize_date(
    series: EventSeries,
    start: dt.datetime,
    *,
    now: dt.datetime | None = None,
) -> MaterializedDate:
    """Make the date of ``series`` at ``start`` a row now, however far ahead; idempotent.

    ``start`` (aware, any zone) is a date of the series: a slot of its rule or an
    extra date, or the day a holiday moved one to. Under the series lock, its
    pending exdates folded in: a row already holding the date is answered as it
    is (``created=False``); otherwise exactly that row is built from the
    template as the daily pass builds every date (``prepare_occurrence``, the
    related rows, the enrolled users booked, the digest after commit), with the
    next ``occurrence_index`` of the series' counter. The cursor does not move:
    the window reaches the date later and finds it taken.

    Refused with a ``ValidationError`` keyed ``start`` when the value is not an
    aware datetime, when it is in the past, when it is no date of the series,
    when the date is excluded (cancelled, deleted or skipped by a holiday), or
    when its row is cancelled (restore it instead). A series without a rule or
    template, or a paused one, raises ``SeriesNotReadyError``; so does one whose
    zone has new time-zone data (``zone_data_changed``: its dates move first). The
    fingerprint of the zone's offsets is widened to the date. Recorded as an
    operation of kind "materialize" (``dates_operation``); the host books the
    person on the row it gets back, in its own transaction or after this one.
    """
    moment = now_utc(now)
    instant = _instant(start)

    def attempt() -> tuple[EventSeries, MaterializedDate]:
        with transaction.atomic():
            locked = lock_series(series.pk)
            rule = load_rule(locked)
            _check_ready(locked, rule)
            assert rule is not None
            absorb_pending_exdates(locked)
            existing = _row_at(locked, instant)
            if existing is not None:
                _refuse_cancelled(existing, rule)
                return locked, MaterializedDate(existing, created=False)
            if locked.zone_data_changed(rule):
                # Its dates sit at the old offsets: a date of the new data may be one
                # already there at its old instant (services.zone_data moves them first).
                raise SeriesNotReadyError(
                    gettext(
                        "The time-zone data of %(zone)s changed since the dates of "
                        "'%(series)s' were placed; they move first (manage.py "
                        "revel_recurring_data)."
                    )
                    % {"zone": rule.timezone, "series": locked.name}
                )
            slot, placed_at = _slot_of(locked, rule, instant, now=moment)
            with (
                dates_operation("materialize", locked, notify="none", now=moment),
                suppress_event_notifications(),
            ):
                row = materialize_locked(locked, slot, start=placed_at, now=moment)
            if row is None:
                raise SeriesNotReadyError(
                    gettext("Series '%(series)s' has no template; add one first.")
                    % {"series": locked.name}
                )
            # The zone's offsets it was placed with are kept up to its date too.
            widened = widen_fingerprint(locked.zone_fingerprint, rule.timezone, instant)
            if widened != locked.zone_fingerprint:
                locked.zone_fingerprint = widened
                EventSeries.objects.filter(pk=locked.pk).update(zone_fingerprint=widened)
        return locked, MaterializedDate(row, created=True)

    locked, result = retry_on_lock_conflict(attempt, series_ids=[series.pk])
    mirror_columns(series, locked, "last_occurrence_index", "exdates")
    return result


def _instant(value: object) -> dt.datetime:
    if not isinstance(value, dt.datetime) or not rules.is_aware(value):
        raise ValidationError(
            {
                START_KEY: [
                    gettext(
                        "Give the date as an aware date and time (with a UTC offset), "
                        "got %(value)s."
                    )
                    % {"value": repr(value)}
                ]
            }
        )
    return rules.to_utc(value)


def _check_ready(series: EventSeries, rule: RecurrenceRule | None) -> None:
    if rule is None:
        raise SeriesNotReadyError(
            gettext("Series '%(series)s' has no recurrence rule; it has no dates to book.")
            % {"series": series.name}
        )
    if not series.is_active:
        raise SeriesNotReadyError(
            gettext("Series '%(series)s' is paused; resume it before booking its dates ahead.")
            % {"series": series.name}
        )


def _row_at(series: EventSeries, instant: dt.datetime) -> Any:
    """The row standing for ``instant``: by its slot, or by where it takes place now."""
    model = get_event_model()
    rows = model._default_manager.filter(series_id=series.pk, is_template=False)
    by_slot = rows.filter(recurrence_id=instant).first()
    if by_slot is not None:
        return by_slot
    return rows.filter(**{model.RECURRING_START_FIELD: instant}).order_by("pk").first()


def _refuse_cancelled(row: Any, rule: RecurrenceRule) -> None:
    if not row.is_cancelled:
        return
    shown = describe_instant(rules.to_utc(row.occurrence_start), rule.timezone)
    raise ValidationError(
        {
            START_KEY: [
                gettext("%(date)s is cancelled; restore it before booking it.") % {"date": shown}
            ]
        }
    )


def _slot_of(
    series: EventSeries, rule: RecurrenceRule, instant: dt.datetime, *, now: dt.datetime
) -> tuple[dt.datetime, dt.datetime]:
    """The slot ``instant`` stands for and where it takes place; refused when it cannot.

    ``instant`` may be a slot (of the rule or an extra date) or the day a holiday
    moved one to; the series' exclusions around it are read in one query.
    """
    shown = describe_instant(instant, rule.timezone)
    spec = series.dates_spec(rule)
    excluded = excluded_between(
        series, instant - 2 * SHIFT_REACH, instant + 2 * SHIFT_REACH, pending=FOLDED, rule=rule
    )
    placed = placed_dates(spec, excluded, instant, instant + SHIFT_REACH)
    if instant in placed:
        slot, start = instant, placed[instant]
    else:
        moved_here = [slot for slot, start in placed.items() if start == instant]
        if not moved_here:
            raise ValidationError({START_KEY: [_off_rule(spec, excluded, instant, shown)]})
        slot, start = moved_here[0], instant
    if start < now:
        raise ValidationError(
            {
                START_KEY: [
                    gettext("%(date)s is in the past; book a date still to come.") % {"date": shown}
                ]
            }
        )
    return slot, start


def _off_rule(spec: rules.RuleSpec, excluded: Exclusions, instant: dt.datetime, shown: str) -> str:
    """Why ``instant`` has no date to materialize: excluded, or no date of the series."""
    if not rules.is_occurrence(spec, instant):
        return gettext("%(date)s is not a date of this series.") % {"date": shown}
    reason = excluded.reason(instant)
    if reason is ExclusionReason.HOLIDAY:
        _, holiday = holiday_of(excluded.holidays, instant)
        return gettext("%(date)s is skipped for a holiday (%(holiday)s).") % {
            "date": shown,
            "holiday": holiday,
        }
    if reason is not None:
        return gettext(
            "%(date)s was cancelled or deleted; restore it instead of booking it ahead."
        ) % {"date": shown}
    return gettext("%(date)s is not a date of this series.") % {"date": shown}


__all__ = ["START_KEY", "MaterializedDate", "materialize_date"]
