"""One service call per admin operation, its outcome told to the user as a message.

Changelist actions and change-page buttons both go through these, so a series
gets the same words whichever way it was asked. Domain errors (and validation
errors the services raise) become error messages; nothing here raises them on.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..exceptions import OccurrenceHasBookingsError, RecurrenceError
from ..instants import describe_instant
from ..models import EventSeries
from ..services.cancellation import cancel_occurrence, restore_occurrence
from ..services.drift import cancel_stale_occurrences
from ..services.extra_dates import add_extra_date, remove_extra_date
from ..services.generation import generate_series_events, generation_readiness
from ..services.lifecycle import pause_series, resume_series
from ..services.toolbox.bookings import series_zone
from .forms import AddDateForm, DateButtonForm
from .summaries import Tally, counted, first_names

T = TypeVar("T")


def error_text(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    return str(exc)


def _run(request: HttpRequest, series: EventSeries, call: Callable[[], T]) -> tuple[bool, T | None]:
    try:
        return True, call()
    except (RecurrenceError, ValidationError) as exc:
        messages.error(
            request,
            _("%(name)s: %(error)s") % {"name": series.name, "error": error_text(exc)},
        )
        return False, None


def local_label(series: EventSeries, instant: dt.datetime) -> str:
    """``instant`` as the series' people read it: local date and time, and the zone."""
    return describe_instant(instant, series_zone(series))


def generated_text(series: EventSeries, count: int) -> str:
    return ngettext(
        "%(count)d occurrence generated for %(name)s.",
        "%(count)d occurrences generated for %(name)s.",
        count,
    ) % {"count": count, "name": series.name}


def adopted_text(series: EventSeries, event: Any) -> str:
    when = local_label(series, event.occurrence_start)
    return _(
        "%(event)s (%(when)s) is now the first occurrence of %(name)s: it starts on a date "
        "of the rule, so it joined the series (same event, bookings kept) instead of "
        "getting a copy on the same date."
    ) % {"event": event, "when": when, "name": series.name}


def generate_now(request: HttpRequest, series: EventSeries, *, now: dt.datetime) -> int:
    """Materialize the series' window now; returns the number of occurrences created.

    A series that cannot generate (paused, no rule, no template) is a warning with
    the sentence the API's ``generate/`` answers in its 409.
    """
    readiness = generation_readiness(series)
    if not readiness.ready:
        messages.warning(request, readiness.message)
        return 0
    ok, created = _run(request, series, lambda: generate_series_events(series, now=now))
    if not ok or created is None:
        return 0
    count = len(created)
    text = generated_text(series, count)
    messages.add_message(request, messages.SUCCESS if count else messages.INFO, text)
    return count


def pause(request: HttpRequest, series: EventSeries, *, now: dt.datetime) -> bool:
    ok, changed = _run(request, series, lambda: pause_series(series, now=now))
    if ok:
        if changed:
            messages.success(request, _("%(name)s paused.") % {"name": series.name})
        else:
            messages.info(request, _("%(name)s was already paused.") % {"name": series.name})
    return bool(changed)


def resume(request: HttpRequest, series: EventSeries, *, now: dt.datetime) -> bool:
    ok, changed = _run(request, series, lambda: resume_series(series, now=now))
    if ok:
        if changed:
            messages.success(request, _("%(name)s resumed.") % {"name": series.name})
        else:
            messages.info(request, _("%(name)s was already active.") % {"name": series.name})
    return bool(changed)


def _cancel_stale_outcome(
    series: EventSeries,
    *,
    ids: Collection[Any],
    include_booked: Collection[Any],
    left_alone: Collection[str],
    notify: str | None = None,
    now: dt.datetime,
) -> tuple[int, list[str]]:
    """Cancel those of ``ids`` that still drift: how many, and the booked dates kept."""
    result = cancel_stale_occurrences(
        series, ids=ids, include_booked=include_booked, notify=notify, now=now
    )
    return len(result.cancelled), [*left_alone, *(date.display for date in result.kept_booked)]


def cancel_stale(
    request: HttpRequest,
    series: EventSeries,
    *,
    ids: Collection[Any],
    include_booked: Collection[Any] = (),
    left_alone: Collection[str] = (),
    notify: str | None = None,
    now: dt.datetime,
) -> int:
    """Cancel those of ``ids`` that still drift (the ones the confirmation page ticked).

    ``notify``: whether the people booked on the cancelled dates are told ("all",
    "none"; None: the site's default).

    Booked dates are cancelled only when ``include_booked`` names them (the person
    ticked them); a booked one among ``ids`` that it does not name is kept. The
    message names every booked date kept: those and ``left_alone`` (the labels of
    the booked dates the person left unticked). Cancelling none of them, with no
    booked date kept, is a warning: the dates confirmed no longer drift (or belong
    to another series), and the organiser should look again.
    """
    ok, result = _run(
        request,
        series,
        lambda: _cancel_stale_outcome(
            series,
            ids=ids,
            include_booked=include_booked,
            left_alone=left_alone,
            notify=notify,
            now=now,
        ),
    )
    if not ok or result is None:
        return 0
    count, kept = result
    if not count and not kept:
        messages.warning(
            request,
            _("Nothing cancelled for %(name)s: none of the confirmed dates still drifts.")
            % {"name": series.name},
        )
        return 0
    text = ngettext(
        "%(count)d stale occurrence cancelled for %(name)s.",
        "%(count)d stale occurrences cancelled for %(name)s.",
        count,
    ) % {"count": count, "name": series.name}
    if count:
        messages.success(request, text)
    if kept:
        messages.warning(
            request,
            ngettext(
                "%(name)s: kept %(count)d booked date: %(dates)s.",
                "%(name)s: kept %(count)d booked dates: %(dates)s.",
                len(kept),
            )
            % {"name": series.name, "count": len(kept), "dates": ", ".join(kept)},
        )
    return count


@dataclass(frozen=True)
class StaleDecision:
    """What the confirmation page decided for one series (see :func:`cancel_stale`)."""

    series: EventSeries
    ids: Collection[Any]
    include_booked: Collection[Any] = ()
    left_alone: Collection[str] = ()


def cancel_stale_each(
    request: HttpRequest,
    decisions: Sequence[StaleDecision],
    *,
    notify: str | None = None,
    now: dt.datetime,
) -> int:
    """:func:`cancel_stale` for several series: one message per kind of outcome.

    The series with dates cancelled are named with their counts, the booked dates
    kept in one warning, the series where nothing still drifted in another.
    """
    if len(decisions) == 1:
        one = decisions[0]
        return cancel_stale(
            request,
            one.series,
            ids=one.ids,
            include_booked=one.include_booked,
            left_alone=one.left_alone,
            notify=notify,
            now=now,
        )
    tally, cancelled, kept_dates, nothing = Tally(), 0, [], []
    for decision in decisions:
        series = decision.series
        try:
            count, kept = _cancel_stale_outcome(
                series,
                ids=decision.ids,
                include_booked=decision.include_booked,
                left_alone=decision.left_alone,
                notify=notify,
                now=now,
            )
        except (RecurrenceError, ValidationError) as exc:
            tally.refuse(series.name, error_text(exc))
            continue
        cancelled += count
        if count:
            tally.done.append(_("%(name)s (%(count)d)") % {"name": series.name, "count": count})
        if kept:
            kept_dates.append(
                _("%(name)s: %(dates)s") % {"name": series.name, "dates": ", ".join(kept)}
            )
        if not count and not kept:
            nothing.append(series.name)
    if tally.done:
        messages.success(
            request,
            ngettext(
                "%(dates)d stale occurrences cancelled in %(count)d series: %(names)s.",
                "%(dates)d stale occurrences cancelled in %(count)d series: %(names)s.",
                len(tally.done),
            )
            % {**counted(tally.done), "dates": cancelled},
        )
    if kept_dates:
        messages.warning(
            request,
            ngettext(
                "Booked dates kept in %(count)d series: %(names)s.",
                "Booked dates kept in %(count)d series: %(names)s.",
                len(kept_dates),
            )
            % {"count": len(kept_dates), "names": first_names(kept_dates, separator="; ")},
        )
    if nothing:
        messages.warning(
            request,
            ngettext(
                "Nothing cancelled for %(count)d series, none of whose confirmed dates still "
                "drifts: %(names)s.",
                "Nothing cancelled for %(count)d series, none of whose confirmed dates still "
                "drifts: %(names)s.",
                len(nothing),
            )
            % counted(nothing),
        )
    tally.report_refused(request)
    return cancelled


def _instant(request: HttpRequest, series: EventSeries, value: str) -> dt.datetime | None:
    form = DateButtonForm({"instant": value})
    if form.is_valid():
        instant: dt.datetime = form.cleaned_data["instant"]
        return instant
    messages.error(
        request,
        _("%(name)s: %(error)s Pick a date from the list.")
        % {"name": series.name, "error": " ".join(map(str, form.errors["instant"]))},
    )
    return None


def change_date(
    request: HttpRequest,
    series: EventSeries,
    value: str,
    *,
    cancel: bool,
    include_booked: bool = False,
    notify: str | None = None,
    now: dt.datetime,
) -> bool:
    """Cancel (``cancel=True``) or restore one date of ``series``; whether it was done.

    ``value`` is the instant as the page posted it. A booked date is cancelled only
    when the person ticked "with its bookings" (``include_booked``); ``notify`` says
    whether its people are told ("all", "none"; None: the site's default).
    """
    instant = _instant(request, series, value)
    if instant is None:
        return False
    if cancel:
        done = _("%(date)s cancelled for %(name)s.")
        ok, _event = _run(
            request,
            series,
            lambda: _cancel(series, instant, include_booked, notify=notify, now=now),
        )
    else:
        done = _("%(date)s restored for %(name)s.")
        ok, _event = _run(
            request, series, lambda: restore_occurrence(series, instant, notify=notify, now=now)
        )
    if ok:
        messages.success(
            request, done % {"date": local_label(series, instant), "name": series.name}
        )
    return ok


def _cancel(
    series: EventSeries,
    instant: dt.datetime,
    include_booked: bool,
    *,
    notify: str | None,
    now: dt.datetime,
) -> Any:
    try:
        return cancel_occurrence(
            series, instant, include_booked=include_booked, notify=notify, now=now
        )
    except OccurrenceHasBookingsError as exc:
        # The service names the API's flag; a person here ticks a box instead.
        dates = ", ".join(date.display for date in exc.booked)
        raise OccurrenceHasBookingsError(
            _(
                "%(date)s has bookings and was not cancelled; tick “with its "
                "bookings” to cancel it with them."
            )
            % {"date": dates},
            booked=exc.booked,
        ) from exc


def add_date(
    request: HttpRequest, series: EventSeries, data: Any, *, now: dt.datetime
) -> AddDateForm:
    """Add the date "Add a date" posted (wall clock of the rule's zone); the bound form.

    Added, the message names the date and says whether its occurrence was created
    at once or will be when the generation window reaches it. Refused, the form
    holds the reason under its field (the page shows it there, with what was typed).
    """
    form = AddDateForm(data)
    if not form.is_valid():
        return form
    instant = form.instant_in(series_zone(series))
    try:
        event = add_extra_date(series, instant, now=now)
    except (RecurrenceError, ValidationError) as exc:
        form.add_error("when", error_text(exc))
        return form
    values = {"date": local_label(series, instant), "name": series.name}
    if event is not None:
        text = _("%(date)s added to %(name)s; its occurrence was created.")
    else:
        text = _(
            "%(date)s added to %(name)s; its occurrence will be created when the "
            "generation window reaches it."
        )
    messages.success(request, text % values)
    return form


def remove_date(request: HttpRequest, series: EventSeries, value: str, *, now: dt.datetime) -> bool:
    """Remove the extra date a *Remove* button posted; whether it was removed.

    A date whose occurrence takes place is refused by the service (with bookings
    by ``OccurrenceHasBookingsError`` naming it); the refusal is the message.
    """
    instant = _instant(request, series, value)
    if instant is None:
        return False
    ok, _nothing = _run(request, series, lambda: remove_extra_date(series, instant, now=now))
    if ok:
        messages.success(
            request,
            _("%(date)s is no longer an extra date of %(name)s.")
            % {"date": local_label(series, instant), "name": series.name},
        )
    return ok


def _in_order(selection: Collection[EventSeries]) -> list[EventSeries]:
    return sorted(selection, key=lambda item: item.pk)


def _switch_each(
    selection: Collection[EventSeries], switch: Callable[[EventSeries], bool]
) -> Tally:
    """``switch`` each series (pause or resume): done, already so, or refused and why."""
    tally = Tally()
    for series in _in_order(selection):
        try:
            changed = switch(series)
        except (RecurrenceError, ValidationError) as exc:
            tally.refuse(series.name, error_text(exc))
            continue
        (tally.done if changed else tally.unchanged).append(series.name)
    return tally


def pause_each(
    request: HttpRequest, selection: Collection[EventSeries], *, now: dt.datetime
) -> None:
    """Pause each series of an action's selection: one message per kind of outcome."""
    if len(selection) == 1:
        pause(request, next(iter(selection)), now=now)
        return
    tally = _switch_each(selection, lambda series: pause_series(series, now=now))
    if tally.done:
        messages.success(
            request,
            ngettext(
                "%(count)d series paused: %(names)s.",
                "%(count)d series paused: %(names)s.",
                len(tally.done),
            )
            % counted(tally.done),
        )
    if tally.unchanged:
        messages.info(
            request,
            ngettext(
                "%(count)d series was already paused: %(names)s.",
                "%(count)d series were already paused: %(names)s.",
                len(tally.unchanged),
            )
            % counted(tally.unchanged),
        )
    tally.report_refused(request)


def resume_each(
    request: HttpRequest, selection: Collection[EventSeries], *, now: dt.datetime
) -> None:
    """Resume each series of an action's selection: one message per kind of outcome."""
    if len(selection) == 1:
        resume(request, next(iter(selection)), now=now)
        return
    tally = _switch_each(selection, lambda series: resume_series(series, now=now))
    if tally.done:
        messages.success(
            request,
            ngettext(
                "%(count)d series resumed: %(names)s.",
                "%(count)d series resumed: %(names)s.",
                len(tally.done),
            )
            % counted(tally.done),
        )
    if tally.unchanged:
        messages.info(
            request,
            ngettext(
                "%(count)d series was already active: %(names)s.",
                "%(count)d series were already active: %(names)s.",
                len(tally.unchanged),
            )
            % counted(tally.unchanged),
        )
    tally.report_refused(request)


def generate_each(
    request: HttpRequest, selection: Collection[EventSeries], *, now: dt.datetime
) -> None:
    """Generate each series of an action's selection: one message per kind of outcome.

    The series that generated are named with the number of their new dates; those
    that cannot generate (paused, no rule, no template) in one warning.
    """
    if len(selection) == 1:
        generate_now(request, next(iter(selection)), now=now)
        return
    tally, created, not_ready = Tally(), 0, []
    for series in _in_order(selection):
        readiness = generation_readiness(series)
        if not readiness.ready:
            not_ready.append(readiness.message)
            continue
        try:
            count = len(generate_series_events(series, now=now))
        except (RecurrenceError, ValidationError) as exc:
            tally.refuse(series.name, error_text(exc))
            continue
        created += count
        tally.done.append(_("%(name)s (%(count)d)") % {"name": series.name, "count": count})
    if tally.done:
        messages.add_message(
            request,
            messages.SUCCESS if created else messages.INFO,
            ngettext(
                "%(dates)d occurrences generated for %(count)d series: %(names)s.",
                "%(dates)d occurrences generated for %(count)d series: %(names)s.",
                len(tally.done),
            )
            % {**counted(tally.done), "dates": created},
        )
    if not_ready:
        messages.warning(
            request,
            ngettext(
                "%(count)d series was not generated: %(names)s",
                "%(count)d series were not generated: %(names)s",
                len(not_ready),
            )
            % {"count": len(not_ready), "names": first_names(not_ready, separator=" ")},
        )
    tally.report_refused(request)
