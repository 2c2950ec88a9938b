"""The "Cancel stale dates" confirmation page, bounded, and what its confirmation does.

The page reads the drift of at most ``max(REVEL_RECURRING_ADMIN_INLINE_LIMIT,
LISTED_SERIES)`` selected series (one query for all of them) and lists at most
``LISTED_SERIES`` series with stale dates, each with its count, its first
``LISTED_DATES`` dates and its first ``LISTED_DATES`` booked ones as checkboxes
(booked ones marked and unticked: only a tick cancels them). What it
leaves out is counted, and cancelled on confirmation too unless booked: the
page says so (``rest``), and which series it listed completely (``complete``),
so that of those only the ticked dates go (see ``services.bulk.StaleChoice``).
A selection within the inline limit is confirmed in the request, series by
series, told in one message per kind of outcome; a larger one goes to ``cancel_stale_chunk`` tasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext_lazy

from ..conf import recurring_settings
from ..exceptions import QueueUnavailableError
from ..host_model import bulky_fields, parse_event_pks
from ..models import EventSeries, QueuedAction, get_event_model
from ..services.bulk import StaleChoice
from ..services.drift import drifted_ids_by_series, enrolled_on_drift
from ..services.plans.told import count_people
from ..services.queued_actions import drop_queued_action
from ..tasks import cancel_stale_chunk, send_fan_out, send_series_chunk
from .clock import current_time as _now
from .operations import StaleDecision, cancel_stale_each, local_label
from .selection import (
    LISTED_DATES,
    LISTED_SERIES,
    UP_TO_FIELD,
    Selection,
    open_record,
    report_not_queued,
    reposted,
)
from .telling import posted_notify, telling_context

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[EventSeries]
else:
    _Base = admin.ModelAdmin

QUEUED_CANCELLATION = ngettext_lazy(
    "%(count)d series queued for its stale dates to be cancelled; booked dates nobody "
    "ticked are kept. This page shows when it has finished.",
    "%(count)d series queued for their stale dates to be cancelled; booked dates nobody "
    "ticked are kept. This page shows when it has finished.",
    "count",
)


@dataclass(frozen=True)
class StaleGroup:
    """One listed series: its first stale dates (event, label, bookings, status, enrolled
    users), and the count.

    ``bookings`` is 0 for a date without bookings, ``enrolled`` for one without an
    enrolled user.
    """

    series: EventSeries
    rows: list[tuple[Any, str, int, str, int]]
    total: int

    @property
    def more(self) -> int:
        return self.total - len(self.rows)


def _choice(request: HttpRequest) -> StaleChoice:
    model = get_event_model()
    return StaleChoice(
        ticked=frozenset(parse_event_pks(model, request.POST.getlist("occurrence"))),
        listed=frozenset(parse_event_pks(model, request.POST.getlist("listed"))),
        complete=frozenset(int(v) for v in request.POST.getlist("complete") if v.isdigit()),
        rest=request.POST.get("rest") == "yes",
    )


class CancelStaleMixin(_Base):
    """The page and its confirmation, for the action and for the change page's button."""

    def _cancel_stale(
        self, request: HttpRequest, selection: Selection, *, from_action: bool
    ) -> HttpResponse | None:
        """Show the stale dates (bounded); cancel as confirmed once the form is posted."""
        if request.method == "POST" and request.POST.get("confirm") == "yes":
            if selection.queued:
                self._queue_stale(request, selection, _choice(request))
            else:
                self._confirm_stale(request, selection, _choice(request))
            return None
        return self._stale_page(request, selection, from_action=from_action)

    def _stale_page(
        self, request: HttpRequest, selection: Selection, *, from_action: bool
    ) -> HttpResponse:
        now = _now()
        scanned = selection.series(
            selection.ids[: max(recurring_settings.ADMIN_INLINE_LIMIT, LISTED_SERIES)]
        )
        drifted = drifted_ids_by_series(scanned, now=now)
        stale = [series for series in scanned if drifted[series.pk]]
        listed = stale[:LISTED_SERIES]
        model = get_event_model()
        # The page shows dates and states: long texts stay in the database. The
        # listed series' stale dates are read whole, so that their booked ones
        # (which only a tick cancels) are listed even after the first dates.
        events = model._default_manager.defer(*bulky_fields(model)).in_bulk(
            [pk for series in listed for pk in drifted[series.pk]]
        )
        # How many bookings each holds, in one question to the host (the plan page
        # reads them so too): a booked date is listed as "booked (3 bookings)".
        counts = model.count_bookings_among(list(events.values())) if events else {}
        booked_now = {pk for pk, count in counts.items() if count}
        # Who would be told: the people on the booked dates listed (one more question).
        people = count_people([events[pk] for pk in booked_now if pk in events])
        # The enrolled users on the booked dates, beside their bookings: one aggregate
        # query (none on a site without enrolments).
        enrolled = enrolled_on_drift([series.pk for series in listed], booked_now)
        groups = []
        for series in listed:
            own = [pk for pk in drifted[series.pk] if pk in events]
            booked = [pk for pk in own if pk in booked_now][:LISTED_DATES]
            chosen = set(own[:LISTED_DATES]) | set(booked)
            rows = [
                (
                    events[pk],
                    local_label(series, events[pk].occurrence_start),
                    counts.get(pk, 0),
                    model.status_label(getattr(events[pk], model.RECURRING_STATUS_FIELD)),
                    enrolled.get(str(pk), 0),
                )
                for pk in own
                if pk in chosen
            ]
            groups.append(StaleGroup(series=series, rows=rows, total=len(drifted[series.pk])))
        shown = [row[0].pk for group in groups for row in group.rows]
        unlisted = stale[LISTED_SERIES:]
        unscanned = len(selection) - len(scanned)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Cancel stale dates"),
            "groups": groups,
            "any_drifted": bool(stale) or unscanned > 0,
            "any_booked": any(row[2] for group in groups for row in group.rows),
            "enrolled_on_dates": sum(row[4] for group in groups for row in group.rows),
            "stale_dates": sum(len(drifted[series.pk]) for series in stale),
            "stale_series": len(stale),
            "scanned": len(scanned),
            "unlisted_series": len(unlisted),
            "unlisted_dates": sum(len(drifted[series.pk]) for series in unlisted),
            "unscanned": unscanned,
            "rest": bool(unlisted) or unscanned > 0 or any(group.more for group in groups),
            "complete": [group.series.pk for group in groups if not group.more],
            "listed": shown,
            "queued": selection.queued,
            "from_action": from_action,
            "reposted": reposted(selection),
            "up_to_field": UP_TO_FIELD,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            **telling_context(people),
        }
        return TemplateResponse(
            request, "admin/revel_recurring/eventseries/cancel_stale.html", context
        )

    def _confirm_stale(
        self, request: HttpRequest, selection: Selection, choice: StaleChoice
    ) -> None:
        """Cancel in the request, series by series, told in one message per kind of
        outcome (a small selection)."""
        model = get_event_model()
        series_list = selection.series()
        # The dates the page marked as booked: ticked ones are cancelled with their
        # bookings (the person asked for exactly those); unticked ones are named as
        # kept. A date booked after the page was shown is kept by the service.
        booked = set(parse_event_pks(model, request.POST.getlist("booked")))
        unticked = self._labels(series_list, booked - choice.ticked)
        ticked_by_series: dict[int, list[Any]] = {}
        if choice.ticked:
            rows = model._default_manager.filter(pk__in=choice.ticked, series__in=series_list)
            for pk, series_id in rows.values_list("pk", "series_id"):
                ticked_by_series.setdefault(series_id, []).append(pk)
        drifted = drifted_ids_by_series(series_list, now=_now()) if choice.rest else {}
        wanted = {
            series.pk: [
                *ticked_by_series.get(series.pk, []),
                *choice.unlisted(series.pk, drifted.get(series.pk, [])),
            ]
            for series in series_list
        }
        if not any(wanted.values()) and not unticked:
            # A confirmation naming no occurrence must not read as a success.
            messages.warning(
                request,
                _("No confirmed date belongs to the selected series; nothing cancelled."),
            )
            return
        decisions = [
            StaleDecision(
                series,
                ids=wanted[series.pk],
                include_booked=choice.ticked & booked,
                left_alone=unticked.get(series.pk, []),
            )
            for series in series_list
            if wanted[series.pk] or series.pk in unticked
        ]
        cancel_stale_each(request, decisions, notify=posted_notify(request.POST), now=_now())

    def _queue_stale(self, request: HttpRequest, selection: Selection, choice: StaleChoice) -> None:
        """Hand the cancellation to Celery: the series the page decided on, then the rest.

        The series whose dates the page listed get one ``cancel_stale_chunk`` with
        those dates; every other selected series goes through the chunks of
        ``fan_out_series_chunks``, where all its stale dates but the booked ones go.
        """
        model = get_event_model()
        named = choice.ticked | choice.listed
        owners = (
            set(model._default_manager.filter(pk__in=named).values_list("series_id", flat=True))
            if named
            else set()
        )
        own = set(selection.ids)
        decided = sorted((owners | choice.complete) & own)
        others = [pk for pk in selection.ids if pk not in set(decided)] if choice.rest else []
        # The record counts the series the chunks are sent: those decided on and,
        # with ``rest``, all the others.
        sent = Selection(decided + others)
        record = open_record(request, sent, QueuedAction.Action.CANCEL_STALE) if sent.ids else None
        # One message or none: with the broker down nothing of the cancellation
        # starts, so the page's decisions are never half carried out.
        page: dict[str, Any] = {
            "ticked": [str(pk) for pk in choice.ticked],
            "listed": [str(pk) for pk in choice.listed],
            "complete": sorted(choice.complete & own),
            "rest": choice.rest,
            "queued_action": record,
            "notify": posted_notify(request.POST),
        }
        lead = {"series_ids": decided, "options": page} if decided else None
        try:
            if others:
                send_fan_out(
                    cancel_stale_chunk,
                    others,
                    lead=lead,
                    rest=True,
                    queued_action=record,
                    notify=page["notify"],
                )
            elif decided:
                send_series_chunk(cancel_stale_chunk, decided, **page)
        except QueueUnavailableError:
            if record is not None:
                drop_queued_action(record)
            report_not_queued(request, selection, _("Cancel stale dates…"))
            return
        messages.info(request, QUEUED_CANCELLATION % {"count": len(selection)})

    def _labels(self, selection: list[EventSeries], ids: set[Any]) -> dict[Any, list[str]]:
        """The dates of ``ids`` (of the selected series) as labels, by series id."""
        if not ids:
            return {}
        by_id = {series.pk: series for series in selection}
        model = get_event_model()
        start = model.RECURRING_START_FIELD
        labels: dict[Any, list[str]] = {}
        rows = (
            model._default_manager.filter(pk__in=ids, series_id__in=list(by_id))
            .order_by(start, "pk")
            .values_list("series_id", start)
        )
        for series_id, value in rows:
            labels.setdefault(series_id, []).append(local_label(by_id[series_id], value))
        return labels
