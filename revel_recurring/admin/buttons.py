"""The change page's buttons (generate, pause, resume, cancel / restore a date, add /
remove an extra date) and the "Cancel stale dates" confirmation page shared with the
changelist action."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from ..host_model import bulky_fields, parse_event_pks
from ..models import EventSeries, get_event_model
from ..services.bookings import booked_ids
from ..services.drift import drifted_ids_by_series
from .clock import current_time as _now
from .operations import (
    add_date,
    cancel_stale,
    change_date,
    generate_now,
    local_label,
    pause,
    remove_date,
    resume,
)

if TYPE_CHECKING:
    _Base = admin.ModelAdmin[EventSeries]
else:
    _Base = admin.ModelAdmin


class SeriesButtonsMixin(_Base):
    """Per-series views behind the change page's buttons; each runs one operation."""

    def _cancel_stale(
        self, request: HttpRequest, selection: list[EventSeries], *, from_action: bool
    ) -> HttpResponse | None:
        """Show the drifted dates; cancel exactly those once the form is confirmed."""
        now = _now()
        if request.method == "POST" and request.POST.get("confirm") == "yes":
            model = get_event_model()
            shown = set(parse_event_pks(model, request.POST.getlist("occurrence")))
            # The dates the page marked as booked: ticked ones are cancelled with their
            # bookings (the person asked for exactly those); unticked ones are named as
            # kept. A date booked after the page was shown is kept by the service.
            booked = set(parse_event_pks(model, request.POST.getlist("booked")))
            unticked = self._labels(selection, booked - shown)
            owners = set(
                model._default_manager.filter(pk__in=shown, series__in=selection).values_list(
                    "series_id", flat=True
                )
                if shown
                else ()
            )
            if not owners and not unticked:
                # A confirmation naming no occurrence must not read as a success.
                messages.warning(
                    request,
                    _("No confirmed date belongs to the selected series; nothing cancelled."),
                )
                return None
            for series in selection:
                if series.pk in owners or series.pk in unticked:
                    cancel_stale(
                        request,
                        series,
                        ids=shown,
                        include_booked=shown & booked,
                        left_alone=unticked.get(series.pk, []),
                        now=now,
                    )
            return None
        drifted = drifted_ids_by_series(selection, now=now)
        model = get_event_model()
        ids = [pk for pks in drifted.values() for pk in pks]
        # The page shows dates and states: long texts stay in the database.
        events = model._default_manager.defer(*bulky_fields(model)).in_bulk(ids)
        booked_now = booked_ids(events.values())
        groups = [
            (
                series,
                [
                    (
                        events[pk],
                        local_label(series, events[pk].occurrence_start),
                        pk in booked_now,
                    )
                    for pk in drifted[series.pk]
                ],
            )
            for series in selection
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Cancel stale dates"),
            "groups": groups,
            "any_drifted": bool(ids),
            "any_booked": bool(booked_now),
            "from_action": from_action,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(
            request, "admin/revel_recurring/eventseries/cancel_stale.html", context
        )

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

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        routes = [
            ("generate", self.generate_view),
            ("pause", self.pause_view),
            ("resume", self.resume_view),
            ("cancel-stale", self.cancel_stale_view),
            ("cancel-date", self.cancel_date_view),
            ("restore-date", self.restore_date_view),
            ("add-date", self.add_date_view),
            ("remove-date", self.remove_date_view),
        ]
        own = [
            path(f"<path:object_id>/{route}/", wrap(view), name=f"{name}_{route.replace('-', '_')}")
            for route, view in routes
        ]
        return own + super().get_urls()

    def _series_for_operation(self, request: HttpRequest, object_id: str) -> EventSeries:
        series = get_object_or_404(
            self.get_queryset(request).select_related("recurrence_rule"), pk=object_id
        )
        if not self.has_change_permission(request, series):
            raise PermissionDenied
        return series

    def _back(self, series: EventSeries) -> HttpResponse:
        return HttpResponseRedirect(
            reverse(
                f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
                args=[series.pk],
                current_app=self.admin_site.name,
            )
        )

    @method_decorator(require_POST)
    def generate_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        generate_now(request, series, now=_now())
        return self._back(series)

    @method_decorator(require_POST)
    def pause_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        pause(request, series, now=_now())
        return self._back(series)

    @method_decorator(require_POST)
    def resume_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        resume(request, series, now=_now())
        return self._back(series)

    def cancel_stale_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        response = self._cancel_stale(request, [series], from_action=False)
        return response if response is not None else self._back(series)

    @method_decorator(require_POST)
    def cancel_date_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self._change_date(request, object_id, cancel=True)

    @method_decorator(require_POST)
    def restore_date_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        return self._change_date(request, object_id, cancel=False)

    def _change_date(self, request: HttpRequest, object_id: str, *, cancel: bool) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        change_date(
            request,
            series,
            request.POST.get("instant", ""),
            cancel=cancel,
            include_booked=cancel and request.POST.get("include_booked") == "yes",
            now=_now(),
        )
        return self._back(series)

    @method_decorator(require_POST)
    def add_date_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        add_date(request, series, request.POST, now=_now())
        return self._back(series)

    @method_decorator(require_POST)
    def remove_date_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        series = self._series_for_operation(request, object_id)
        remove_date(request, series, request.POST.get("instant", ""), now=_now())
        return self._back(series)
